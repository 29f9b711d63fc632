import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { db } from '../lib/db/client.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import type { HttpResult, ServiceContext } from '../lib/http/types.ts';
import { buildHttpEvent, localContext } from '../lib/local/apigw-event.ts';
import { workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { tokenFor } from './support/tokens.ts';

// Endpoints defined here exercise the shared middleware chain with behaviours no production
// route has yet (a JSON body, a crash); they use the same endpoint() as every real handler.
const echo = endpoint({ jsonBody: true, schemas: { body: z.object({ count: z.number().int().min(1) }) } }, async ({ body }) => body);
const crash = endpoint({ schemas: {} }, async () => {
  await db().send(new ScanCommand({ TableName: 'no-such-table-secret-name' }));
});
const typeError = endpoint({ schemas: {} }, async () => {
  const nothing: { deep?: { value: number } } = {};
  return nothing.deep!.value;
});

const { users } = await workspace();
const token = tokenFor(users.owner);

describe('error bodies', () => {
  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const answer = await call(echo, { method: 'POST', url: '/echo', contract: false, token, body: '{"count": 1' });
    expect(answer.status).toBe(400);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'invalid_json',
      message: 'body: must be a JSON document',
      data: { issues: [{ path: ['body'], code: 'invalid_json', message: 'must be a JSON document' }] },
    });
  });

  it('answers 400 validation_failed naming a missing body field', async () => {
    const answer = await call(echo, { method: 'POST', url: '/echo', contract: false, token, body: {} });
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'validation_failed',
      message: 'body.count: is required',
      data: { issues: [{ path: ['body', 'count'], code: 'required', message: 'is required' }] },
    });
  });

  it('treats an absent body as an empty object', async () => {
    const answer = await call(echo, { method: 'POST', url: '/echo', contract: false, token });
    expect(answer.body.data.issues).toEqual([{ path: ['body', 'count'], code: 'required', message: 'is required' }]);
  });

  it('parses the body whatever the Content-Type says', async () => {
    const answer = await call(echo, {
      method: 'POST',
      url: '/echo',
      contract: false,
      token,
      headers: { 'content-type': 'text/plain' },
      body: { count: 2 },
    });
    expect(answer).toMatchObject({ status: 200, body: { count: 2 } });
  });

  it.each([
    ['an SDK error', crash],
    ['a programming error', typeError],
  ])('answers a plain 500 for %s, with nothing internal in it', async (_case, failing) => {
    const answer = await call(failing, { method: 'GET', url: '/anything', contract: false, token });
    expect(answer.status).toBe(500);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'internal_error',
      message: 'the request failed on the service side; retry with backoff',
    });
    expect(answer.body.request_id).toBe(answer.headers['x-request-id']);
    const raw = JSON.stringify(answer);
    for (const secret of ['no-such-table', 'ResourceNotFound', 'TypeError', 'stack', token.slice(0, 20), 'at ']) {
      expect(raw).not.toContain(secret);
    }
  });

  it('uses the API Gateway request id when there is one', async () => {
    const event = buildHttpEvent({
      method: 'POST',
      path: '/echo',
      routeKey: 'POST /echo',
      headers: { authorization: `Bearer ${token}` },
      body: '{}',
    });
    event.requestContext.requestId = 'Xyz1AbCdIAMEL2g=';
    const result = (await echo(event, localContext('echo') as ServiceContext)) as HttpResult;
    expect(result.headers?.['x-request-id']).toBe('Xyz1AbCdIAMEL2g=');
    expect(JSON.parse(result.body ?? '{}').request_id).toBe('Xyz1AbCdIAMEL2g=');
  });
});
