/**
 * CORS with CORS_ALLOWED_ORIGINS set (test/cors-off.test.ts: unset): preflights answered by the
 * `$default` function as API Gateway answers them deployed, and every answer to an allowed
 * origin, errors included, carrying Access-Control-Allow-Origin and the exposed headers.
 */
import { describe, expect, it } from 'vitest';
import { workspace } from './support/fixtures.ts';
import { call } from './support/http.ts';
import { tokenFor } from './support/tokens.ts';

process.env.CORS_ALLOWED_ORIGINS = 'https://app.example.com,https://admin.example.com';
const { handler: routeNotFound } = await import('../functions/route-not-found.ts');
const { handler: listBillingEvents } = await import('../functions/list-billing-events.ts');
const { handler: mcp } = await import('../functions/mcp.ts');
const { loadHandlers } = await import('../lib/local/server.ts');
const { createLocalServer } = await import('../lib/local/server.ts');

const ALLOWED = 'https://app.example.com';
const EXPOSED =
  'x-request-id, Endless-Api-Version, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Credits-Charged, Credits-Remaining, Idempotent-Replayed, Charge-Id, Cache-Status, Age, Sample-Data, WWW-Authenticate, Link';
const preflightHeaders = (origin: string) => ({
  origin,
  'access-control-request-method': 'POST',
  'access-control-request-headers': 'authorization, content-type, idempotency-key',
});
const corsHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('access-control-') || name === 'vary'));

const { orgId, users } = await workspace();

describe('preflight', () => {
  it('answers 204 with the allowed methods and headers for an allowed origin', async () => {
    const answer = await call(routeNotFound, {
      method: 'OPTIONS',
      // A preflight is CORS protocol, answered before any route: the API description leaves it out.
      contract: false,
      url: `/organizations/${orgId}/billing/events`,
      headers: preflightHeaders(ALLOWED),
    });

    expect(answer.status).toBe(204);
    expect(answer.raw).toBe('');
    expect(corsHeaders(answer.headers)).toEqual({
      'access-control-allow-origin': ALLOWED,
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers':
        'Authorization, Content-Type, Endless-Api-Version, Service-Api-Version, Idempotency-Key, Cache-Control, Max-Credits',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
  });

  it('answers 204 without CORS headers for another origin', async () => {
    const answer = await call(routeNotFound, {
      method: 'OPTIONS',
      // A preflight is CORS protocol, answered before any route: the API description leaves it out.
      contract: false,
      url: '/social/operations',
      headers: preflightHeaders('https://evil.example'),
    });

    expect(answer.status).toBe(204);
    expect(corsHeaders(answer.headers)).toEqual({ vary: 'Origin' });
  });

  it('treats an OPTIONS that is not a preflight as any other method: 405 on a known path', async () => {
    const answer = await call(routeNotFound, { method: 'OPTIONS', url: '/social/operations' });
    expect(answer.status).toBe(405);
    expect(answer.body.code).toBe('method_not_allowed');
  });

  it('is answered by the local server like any request (npm start)', async () => {
    const server = createLocalServer(await loadHandlers());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const answer = await fetch(`http://127.0.0.1:${port}/social/instagram_profile?organization_id=${orgId}`, {
        method: 'OPTIONS',
        headers: preflightHeaders(ALLOWED),
      });
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(answer.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    } finally {
      server.close();
    }
  });
});

describe('answers to an allowed origin', () => {
  it.each([
    ['a success', () => tokenFor(users.owner), 200],
    ['a 401', () => 'not-a-jwt', 401],
    ['a 403', () => tokenFor(users.viewer), 403],
  ])('carry Access-Control-Allow-Origin and the exposed headers on %s', async (_case, token, status) => {
    const answer = await call(listBillingEvents, {
      url: `/organizations/${orgId}/billing/events`,
      token: token(),
      headers: { origin: 'https://admin.example.com' },
    });

    expect(answer.status).toBe(status);
    expect(corsHeaders(answer.headers)).toEqual({
      'access-control-allow-origin': 'https://admin.example.com',
      'access-control-expose-headers': EXPOSED,
      vary: 'Origin',
    });
  });

  it('carry them on an unknown route too', async () => {
    const answer = await call(routeNotFound, { method: 'GET', url: '/nowhere', headers: { origin: ALLOWED } });
    expect(answer.status).toBe(404);
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('are not given to another origin, nor to a request without Origin', async () => {
    const other = await call(listBillingEvents, {
      url: `/organizations/${orgId}/billing/events`,
      token: tokenFor(users.owner),
      headers: { origin: 'https://app.example.com.evil.example' },
    });
    const none = await call(listBillingEvents, { url: `/organizations/${orgId}/billing/events`, token: tokenFor(users.owner) });

    expect(corsHeaders(other.headers)).toEqual({ vary: 'Origin' });
    expect(corsHeaders(none.headers)).toEqual({ vary: 'Origin' });
  });
});

describe('/mcp and Origin (the MCP transport against DNS rebinding)', () => {
  const ping = (origin: string) =>
    call(mcp, {
      method: 'POST',
      url: `/mcp?organization_id=${orgId}`,
      token: tokenFor(users.viewer),
      headers: { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });

  it('serves an allowed origin, with the CORS headers', async () => {
    const answer = await ping(ALLOWED);

    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
    expect(answer.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it.each([
    'https://app.example.com.evil.example',
    'http://app.example.com',
    'https://app.example.com:8443',
  ])('refuses %s, which is not one, with 403 and without CORS headers', async (origin) => {
    const answer = await ping(origin);

    expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 403, code: 'forbidden' });
    expect(corsHeaders(answer.headers)).toEqual({ vary: 'Origin' });
  });
});
