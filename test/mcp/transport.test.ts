/**
 * What the MCP Streamable HTTP transport requires of /mcp beyond JSON-RPC, through the real
 * handler and its whole chain (CORS off here; test/cors.test.ts has the allowed origins):
 * a present `Origin` that is not allowed is refused 403 (DNS rebinding), and a notification or a
 * client's response is accepted with 202, no body and no Content-Type.
 */
import { describe, expect, it } from 'vitest';
import { handler as mcp } from '../../functions/mcp.ts';
import { workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { tokenFor } from '../support/tokens.ts';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const post = (orgId: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  call(mcp, { method: 'POST', url: `/mcp?organization_id=${orgId}`, token, headers: { ...MCP_HEADERS, ...headers }, body });

const refusedOrigin = (origin: string) => ({
  code: 'forbidden',
  message: `the origin ${origin} is not allowed to call this server; only the origins its CORS configuration names are, and its own on a loopback address`,
});

describe('Origin (DNS rebinding protection)', () => {
  it.each([
    ['https://evil.example', '127.0.0.1:3000'],
    // A DNS-rebound name: Origin and Host agree, on the attacker's name.
    ['http://evil.example:3000', 'evil.example:3000'],
    // A page of another local server.
    ['http://127.0.0.1:5173', '127.0.0.1:3000'],
    ['http://localhost:3000', '127.0.0.1:3000'],
    ['null', '127.0.0.1:3000'],
  ])('refuses Origin %s (Host %s) with 403 when CORS names no origin', async (origin, host) => {
    const { orgId, users } = await workspace();

    const answer = await post(orgId, tokenFor(users.owner), { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { origin, host });

    expect({ status: answer.status, body: withoutRequestId(answer.body) }).toEqual({ status: 403, body: refusedOrigin(origin) });
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['ratelimit-limit']).toBeUndefined();
  });

  it('refuses it before authentication, and before the method', async () => {
    const origin = 'https://rebound.example';

    const anonymous = await post('org_x', undefined, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin });
    // The document describes /mcp under POST only: a GET is checked by hand.
    const get = await call(mcp, { method: 'GET', url: '/mcp?organization_id=org_x', headers: { origin }, contract: false });

    expect([anonymous.status, get.status]).toEqual([403, 403]);
    expect(withoutRequestId(get.body)).toEqual(refusedOrigin(origin));
    expect(anonymous.headers['www-authenticate']).toBeUndefined();
  });

  it.each([
    ['http://127.0.0.1:3000', '127.0.0.1:3000'],
    ['http://localhost:49152', 'localhost:49152'],
    ['http://[::1]:3000', '[::1]:3000'],
  ])('serves a page of this server on a loopback address: Origin %s, Host %s (the local docs page)', async (origin, host) => {
    const { orgId, users } = await workspace();

    const answer = await post(orgId, tokenFor(users.viewer), { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin, host });

    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
  });

  it('serves a request without Origin, as non-browser MCP clients send', async () => {
    const { orgId, users } = await workspace();

    const answer = await post(orgId, tokenFor(users.viewer), { jsonrpc: '2.0', id: 1, method: 'ping' });

    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
  });
});

describe('202 Accepted', () => {
  it.each([
    ['a notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a cancellation', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } }],
    ["a client's response", { jsonrpc: '2.0', id: 5, result: {} }],
    ["a client's error response", { jsonrpc: '2.0', id: 6, error: { code: -32601, message: 'Method not found' } }],
  ])('answers %s with 202, no body and no Content-Type', async (_case, message) => {
    const { orgId, users } = await workspace();

    const answer = await post(orgId, tokenFor(users.viewer), message);

    expect({ status: answer.status, raw: answer.raw, contentType: answer.headers['content-type'] }).toEqual({
      status: 202,
      raw: '',
      contentType: undefined,
    });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
  });
});
