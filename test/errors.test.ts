import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { db } from '../lib/db/client.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import type { HttpResult, ServiceContext } from '../lib/http/types.ts';
import { buildHttpEvent, localContext } from '../lib/local/apigw-event.ts';
import { workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { tokenFor } from './support/tokens.ts';

// Endpoints defined here exercise the shared middleware chain with behaviours no production
// route has yet (a JSON body, a crash); they use the same endpoint() as every real handler.
const echo = endpoint({ jsonBody, schemas: { body: z.object({ count: z.number().int().min(1) }) } }, async ({ body }) => body);
const list = endpoint({ jsonBody, schemas: { body: z.strictObject({ values: z.array(z.number()) }) } }, async ({ body }) => body);
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

  it('keeps at most 20 issues and says how many more there were', async () => {
    const answer = await call(list, {
      contract: false,
      method: 'POST',
      url: '/list',
      token,
      body: { values: Array.from({ length: 50 }, (_, i) => `v${i}`) },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('body.values.0: must be a number, not a string');
    expect(answer.body.data.issues).toHaveLength(20);
    expect(answer.body.data.issues[19]).toEqual({
      path: ['body', 'values', 19],
      code: 'invalid_type',
      message: 'must be a number, not a string',
    });
    expect(answer.body.data.more_issues).toBe(30);
  });

  it('answers 100,000 unknown keys with a small body that names five of them', async () => {
    const body: Record<string, unknown> = { values: [] };
    for (let i = 0; i < 100_000; i += 1) body[`key_${i}_${'x'.repeat(20)}`] = i;
    const answer = await call(list, { method: 'POST', url: '/list', token, body, contract: false });
    expect(answer.status).toBe(400);
    expect(answer.raw.length).toBeLessThan(1_000);
    expect(answer.body.data.issues).toEqual([
      {
        path: ['body'],
        code: 'unrecognized_keys',
        message: `has unknown fields ${[0, 1, 2, 3, 4].map((i) => `"key_${i}_${'x'.repeat(20)}"`).join(', ')} and 99995 more`,
      },
    ]);
  });

  it('clips a huge key in an issue path', async () => {
    const key = 'k'.repeat(10_000);
    const counts = endpoint({ jsonBody, schemas: { body: z.record(z.string(), z.number()) } }, async ({ body }) => body);
    const answer = await call(counts, { method: 'POST', url: '/counts', token, body: { [key]: 'one' }, contract: false });
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues[0].path).toEqual(['body', `${'k'.repeat(63)}…`]);
    expect(answer.raw.length).toBeLessThan(1_000);
  });
});
