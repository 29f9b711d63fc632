/**
 * The local server at Lambda's payload limit: an invocation carries at most 6 MB (6,291,456
 * bytes) of event and returns at most as much. The server refuses what Lambda would refuse with
 * 413 `payload_too_large` in the documented error shape, measured as Lambda measures it (the
 * event, the result, as JSON), before any function runs or instead of its oversize answer. And
 * it answers only for its own loopback names on its port: any other `Host` (a DNS-rebound page's)
 * is refused before anything runs.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOrganization } from '../lib/db/organizations.ts';
import type { HttpResult } from '../lib/http/types.ts';
import { createLocalServer, LAMBDA_PAYLOAD_LIMIT_BYTES, type LambdaHandler, loadHandlers } from '../lib/local/server.ts';
import { workspace } from './support/fixtures.ts';
import { tokenFor } from './support/tokens.ts';

async function serve(handlers: Map<string, LambdaHandler>, options: Parameters<typeof createLocalServer>[1] = {}) {
  const server = createLocalServer(handlers, options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

const requestTooLarge = {
  code: 'payload_too_large',
  message: 'the request is over the 6291456 bytes a Lambda invocation carries (its body and headers as an API Gateway event)',
};

describe('the local server at Lambda’s 6 MB payload limit', () => {
  let local: Awaited<ReturnType<typeof serve>>;
  let handlers: Map<string, LambdaHandler>;
  beforeAll(async () => {
    handlers = await loadHandlers();
    local = await serve(handlers);
  });
  afterAll(() => local.close());

  it('refuses a run whose body is over 6 MB with 413 payload_too_large, and charges nothing', async () => {
    const { orgId, users } = await workspace({ credits: 10, networks: ['x'] });
    const body = JSON.stringify({ handle: 'nasa', padding: 'a'.repeat(LAMBDA_PAYLOAD_LIMIT_BYTES) });

    const answer = await fetch(`${local.baseUrl}/social/x_profile?organization_id=${orgId}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenFor(users.editor)}`, 'Content-Type': 'application/json' },
      body,
    });

    expect(answer.status).toBe(413);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toEqual({ ...requestTooLarge, request_id: answer.headers.get('x-request-id') });
    expect((await getOrganization(orgId))?.credits).toBe(10);
  });

  it('measures the event, not the body alone: a body under 6 MB whose event is over it is refused too', async () => {
    // A 3 MB body of quotes: in the event (JSON) each quote is escaped, which takes it over 6 MB.
    const body = `"${'"'.repeat(LAMBDA_PAYLOAD_LIMIT_BYTES / 2)}"`;

    const answer = await fetch(`${local.baseUrl}/social/x_profile?organization_id=org_x`, { method: 'POST', body });

    expect(body.length).toBeLessThan(LAMBDA_PAYLOAD_LIMIT_BYTES);
    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({ ...requestTooLarge, request_id: answer.headers.get('x-request-id') });
  });

  it('passes a 5 MB body on to the function, which answers it', async () => {
    const { orgId, users } = await workspace({ credits: 10, networks: ['x'] });

    const answer = await fetch(`${local.baseUrl}/social/x_profile?organization_id=${orgId}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenFor(users.editor)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ handle: 'a'.repeat(5 * 1024 * 1024) }),
    });

    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 'validation_failed' });
  });

  it('answers 413 instead of a function’s answer over 6 MB', async () => {
    const oversize: HttpResult = {
      statusCode: 200,
      headers: { 'Content-Type': 'text/plain' },
      body: 'x'.repeat(LAMBDA_PAYLOAD_LIMIT_BYTES),
    };
    const probe = await serve(new Map([...handlers].map(([name]) => [name, async () => oversize])));
    try {
      const answer = await fetch(`${probe.baseUrl}/docs`);

      expect(answer.status).toBe(413);
      expect(await answer.json()).toEqual({
        code: 'payload_too_large',
        message: 'the response is over the 6291456 bytes a Lambda invocation returns',
        request_id: answer.headers.get('x-request-id'),
      });
    } finally {
      await probe.close();
    }
  });
});

describe('the local server’s Host check (DNS rebinding)', () => {
  /** A GET to the server on 127.0.0.1 that names `host` in its Host header (fetch would name the address it connects to). */
  const getAs = (port: number, path: string, host: string) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const sent = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (answer) => {
        let body = '';
        answer.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body }));
      });
      sent.on('error', reject);
      sent.end();
    });
  const demoUsers = [{ role: 'owner', user_id: 'user_demo_owner', token: 'the-owner-token' }];
  let local: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    local = await serve(await loadHandlers(), { demoUsers: () => demoUsers });
  });
  afterAll(() => local.close());

  it.each([
    'evil.example',
    'evil.example:PORT',
    '127.0.0.1.evil.example:PORT',
    'localhost:1',
    '127.0.0.2:PORT',
    '127.0.0.1',
  ])('refuses Host %s with 403 forbidden before anything runs: not even the demo users’ tokens', async (given) => {
    const host = given.replace('PORT', String(local.port));
    for (const path of ['/local-idp/demo-users', '/.well-known/oauth-authorization-server']) {
      const answer = await getAs(local.port, path, host);

      expect([answer.status, answer.headers['content-type'], JSON.parse(answer.body)]).toEqual([
        403,
        'application/json',
        {
          code: 'forbidden',
          message: `this local server answers only for 127.0.0.1:${local.port}, localhost:${local.port} and [::1]:${local.port}, not Host ${JSON.stringify(host)} (a guard against DNS rebinding)`,
          request_id: answer.headers['x-request-id'],
        },
      ]);
      expect(answer.body).not.toContain('the-owner-token');
    }
  });

  it.each(['127.0.0.1', 'localhost', 'LOCALHOST', '[::1]'])('answers Host %s on its port', async (name) => {
    const users = await getAs(local.port, '/local-idp/demo-users', `${name}:${local.port}`);
    const metadata = await getAs(local.port, '/.well-known/oauth-authorization-server', `${name}:${local.port}`);

    expect([users.status, JSON.parse(users.body)]).toEqual([200, { users: demoUsers }]);
    expect(metadata.status).toBe(200);
  });
});
