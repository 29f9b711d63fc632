/**
 * API keys that can be changed, bound to addresses and held to a rate of their own
 * (docs/authentication.md, "Guardrails"): PATCH …/api-keys/{key_id} and what it answers, the
 * key's `allowed_ips` checked right after authentication against the address API Gateway saw
 * (never a header), and its `rate_limit` in its RateLimit-* headers and 429s. Through the real
 * handlers on DynamoDB Local.
 */
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

// A window a day long, so that no test straddles one; a stack limit of 1,000 a caller.
process.env.RATE_LIMIT_REQUESTS = '1000';
process.env.RATE_LIMIT_WINDOW_SECONDS = '86400';
const { handler: createKey } = await import('../../functions/create-api-key.ts');
const { handler: updateKey } = await import('../../functions/update-api-key.ts');
const { handler: revokeKey } = await import('../../functions/revoke-api-key.ts');
const { handler: listKeys } = await import('../../functions/list-api-keys.ts');
const { handler: runOperation } = await import('../../functions/run-social-operation.ts');
const { handler: getCredits } = await import('../../functions/get-credits.ts');
const { handler: getMe } = await import('../../functions/get-me.ts');
const { handler: mcpHandler } = await import('../../functions/mcp.ts');
const { db, tableName } = await import('../../lib/db/client.ts');
const { apiKeyKey, rateLimitKey } = await import('../../lib/db/keys.ts');
const { getOrganization } = await import('../../lib/db/organizations.ts');

const keysUrl = (orgId: string) => `/organizations/${orgId}/api-keys`;
const create = (orgId: string, owner: string, body: unknown) =>
  call(createKey, { method: 'POST', url: keysUrl(orgId), token: tokenFor(owner), body });
const patch = (orgId: string, token: string, keyId: string, body: unknown) =>
  call(updateKey, { method: 'PATCH', url: `${keysUrl(orgId)}/${keyId}`, token, body });
const run = (orgId: string, token: string, options: { sourceIp?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
  call(runOperation, {
    method: 'POST',
    url: runUrl('tiktok_profile', orgId),
    token,
    body: options.body ?? { handle: 'nasa' },
    ...(options.sourceIp ? { sourceIp: options.sourceIp } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });

/** A workspace with one editor key of its owner's making, with `fields` set at its creation. */
async function keyed(fields: Record<string, unknown> = {}, credits = 10) {
  const ws = await workspace({ credits });
  const created = await create(ws.orgId, ws.users.owner, { name: 'overnight agent', role: 'editor', ...fields });
  expect(created.status).toBe(201);
  return { ...ws, key: created.body as Record<string, any>, token: created.body.token as string };
}

const storedKey = async (orgId: string, keyId: string) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: apiKeyKey(orgId, keyId), ConsistentRead: true }))).Item;

/** What the key's window counter holds now (the window is the current UTC day). */
const windowCount = async (keyId: string) => {
  const start = Math.floor(Date.now() / 86_400_000) * 86_400_000;
  const item = await db().send(new GetCommand({ TableName: tableName(), Key: rateLimitKey(keyId, start), ConsistentRead: true }));
  return Number(item.Item?.count ?? 0);
};

const notAllowedFrom = (address: string) => ({
  code: 'ip_not_allowed',
  message: `this API key may not be used from ${address}: it is bound to other addresses (allowed_ips); an owner can change them`,
  data: { ip: address },
});

describe('POST …/api-keys with guardrails', () => {
  it('creates a key with daily and monthly limits, addresses and a rate, shown as set', async () => {
    const { key } = await keyed({
      spending_limit: 300,
      daily_limit: 20,
      allowed_ips: ['203.0.113.0/24', '2001:db8::/32'],
      rate_limit: { requests: 60 },
    });
    expect(key).toMatchObject({
      spending_limit: 300,
      spent: 0,
      daily_limit: 20,
      spent_today: 0,
      allowed_ips: ['203.0.113.0/24', '2001:db8::/32'],
      rate_limit: { requests: 60 },
    });
  });

  it.each([
    [{ daily_limit: -1 }, ['body', 'daily_limit'], 'must be a whole number of credits, 0 or more, or null for none'],
    [{ daily_limit: 2.5 }, ['body', 'daily_limit'], undefined],
    [{ daily_limit: '5' }, ['body', 'daily_limit'], undefined],
    [{ spending_limit: -3 }, ['body', 'spending_limit'], 'must be a whole number of credits, 0 or more, or null for none'],
    [{ allowed_ips: [] }, ['body', 'allowed_ips'], 'must list 1 or more addresses or networks, or be null to allow any address'],
    [
      { allowed_ips: Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`) },
      ['body', 'allowed_ips'],
      'must list at most 50 addresses or networks',
    ],
    [{ allowed_ips: ['10.0.0.1/8'] }, ['body', 'allowed_ips', 0], undefined],
    [{ allowed_ips: ['203.0.113.0/24', 'not-an-ip'] }, ['body', 'allowed_ips', 1], undefined],
    [{ allowed_ips: ['2001:db8::/200'] }, ['body', 'allowed_ips', 0], undefined],
    [{ allowed_ips: '203.0.113.0/24' }, ['body', 'allowed_ips'], undefined],
    [{ rate_limit: { requests: 1001 } }, ['body', 'rate_limit', 'requests'], "must be at most 1000, this stack's per-caller limit"],
    [{ rate_limit: { requests: 0 } }, ['body', 'rate_limit', 'requests'], "must be 1 or more, up to this stack's per-caller limit"],
    [{ rate_limit: { requests: 10, window: 60 } }, ['body', 'rate_limit'], undefined],
    [{ rate_limit: 10 }, ['body', 'rate_limit'], undefined],
  ])('refuses %j with 400 naming %j, creating nothing', async (fields, path, message) => {
    const { orgId, users } = await workspace();
    const answer = await create(orgId, users.owner, { name: 'agent', role: 'editor', ...fields });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.data.issues[0].path).toEqual(path);
    if (message) expect(answer.body.data.issues[0].message).toBe(message);
    const listed = await call(listKeys, { url: keysUrl(orgId), token: tokenFor(users.owner) });
    expect(listed.body.api_keys).toEqual([]);
  });

  it('says what is wrong with an address: bits past the prefix, a malformed entry', async () => {
    const { orgId, users } = await workspace();
    const answer = await create(orgId, users.owner, { name: 'agent', role: 'editor', allowed_ips: ['10.0.0.1/8', '300.1.1.1'] });
    expect(answer.body.data.issues).toEqual([
      {
        path: ['body', 'allowed_ips', 0],
        code: 'custom',
        message: '"10.0.0.1/8" has bits set past its /8 prefix: write the network\'s first address, or the address alone',
      },
      { path: ['body', 'allowed_ips', 1], code: 'custom', message: '"300.1.1.1" is not an IPv4 or IPv6 address or CIDR network' },
    ]);
  });
});

describe('PATCH …/api-keys/{key_id}', () => {
  it('changes what it is given, keeps the rest, answers the key without its token, and clears with null', async () => {
    const { orgId, users, key } = await keyed({ spending_limit: 100, allowed_ips: ['203.0.113.0/24'] });
    const owner = tokenFor(users.owner);

    const changed = await patch(orgId, owner, key.id, {
      name: 'nightly agent',
      role: 'viewer',
      daily_limit: 5,
      confirm_above: 3,
      allowed_ips: ['198.51.100.7'],
      rate_limit: { requests: 10 },
    });
    const cleared = await patch(orgId, owner, key.id, { spending_limit: null, confirm_above: null, allowed_ips: null, rate_limit: null });

    expect(changed.status).toBe(200);
    const { token: _token, ...view } = key;
    expect(changed.body).toEqual({
      ...view,
      name: 'nightly agent',
      role: 'viewer',
      daily_limit: 5,
      confirm_above: 3,
      allowed_ips: ['198.51.100.7'],
      rate_limit: { requests: 10 },
    });
    expect(cleared.body).toEqual({
      ...view,
      name: 'nightly agent',
      role: 'viewer',
      spending_limit: null,
      daily_limit: 5,
      allowed_ips: null,
      rate_limit: null,
    });
    const listed = await call(listKeys, { url: keysUrl(orgId), token: owner });
    expect(listed.body.api_keys).toEqual([cleared.body]);
  });

  it('is in force from the key’s next request: its role, its addresses, its limits', async () => {
    const { orgId, users, key, token } = await keyed({}, 10);
    const owner = tokenFor(users.owner);
    expect((await run(orgId, token)).status).toBe(200);

    await patch(orgId, owner, key.id, { daily_limit: 1 });
    const overDaily = await run(orgId, token);
    await patch(orgId, owner, key.id, { daily_limit: null, allowed_ips: ['203.0.113.0/24'] });
    const elsewhere = await run(orgId, token, { sourceIp: '198.51.100.7' });
    const inside = await run(orgId, token, { sourceIp: '203.0.113.50' });
    await patch(orgId, owner, key.id, { role: 'viewer' });
    const asViewer = await run(orgId, token, { sourceIp: '203.0.113.50' });

    expect(overDaily.status).toBe(402);
    expect(overDaily.body.data).toMatchObject({ scope: 'api_key', period: 'day', spending_limit: 1, spent: 1, cost: 1 });
    expect(elsewhere.status).toBe(403);
    expect(inside.status).toBe(200);
    expect(asViewer.status).toBe(403);
    expect(asViewer.body.message).toBe('only editors and owners can run social operations');
  });

  it('refuses an empty body with 400, a revoked or unknown key with 404, and changes nothing', async () => {
    const { orgId, users, key } = await keyed({ daily_limit: 3 });
    const owner = tokenFor(users.owner);
    const empty = await patch(orgId, owner, key.id, {});
    const unknownField = await patch(orgId, owner, key.id, { expires_in_days: 3 });
    const badRole = await patch(orgId, owner, key.id, { role: 'owner' });
    const unknown = await patch(orgId, owner, `key_${'0'.repeat(32)}`, { daily_limit: 1 });
    await call(revokeKey, { method: 'DELETE', url: `${keysUrl(orgId)}/${key.id}`, token: owner });
    const revoked = await patch(orgId, owner, key.id, { daily_limit: 1 });

    expect(empty.status).toBe(400);
    expect(empty.body.data.issues).toEqual([
      {
        path: ['body'],
        code: 'custom',
        message: 'must change one or more of name, role, spending_limit, daily_limit, confirm_above, allowed_ips, rate_limit',
      },
    ]);
    expect(unknownField.status).toBe(400);
    expect(badRole.body.data.issues[0]).toMatchObject({
      path: ['body', 'role'],
      message: 'must be "viewer" or "editor" (a key is never an owner)',
    });
    expect([unknown.status, revoked.status]).toEqual([404, 404]);
    expect(withoutRequestId(revoked.body)).toEqual({ code: 'not_found', message: 'no such resource' });
    expect((await storedKey(orgId, key.id))?.daily_limit).toBe(3);
  });

  it('takes an owner with a user’s token: editors 403, the key itself 403 api_key_not_allowed, strangers 404', async () => {
    const { orgId, users, key, token } = await keyed();
    const answers = await Promise.all([
      patch(orgId, tokenFor(users.editor), key.id, { daily_limit: 1000 }),
      patch(orgId, token, key.id, { daily_limit: 1000 }),
      patch(orgId, tokenFor('stranger_1'), key.id, { daily_limit: 1000 }),
    ]);
    expect(answers.map((answer) => [answer.status, answer.body.code])).toEqual([
      [403, 'forbidden'],
      [403, 'api_key_not_allowed'],
      [404, 'not_found'],
    ]);
    expect((await storedKey(orgId, key.id))?.daily_limit).toBeNull();
  });
});

describe('allowed_ips', () => {
  it('refuses a request from elsewhere with 403 ip_not_allowed, whatever X-Forwarded-For and Forwarded say; never charged, counted or touched', async () => {
    const { orgId, key, token } = await keyed({ allowed_ips: ['203.0.113.0/24'] });

    const spoofed = await run(orgId, token, {
      sourceIp: '198.51.100.7',
      headers: { 'x-forwarded-for': '203.0.113.5', forwarded: 'for=203.0.113.5', 'x-real-ip': '203.0.113.5' },
    });

    expect(spoofed.status).toBe(403);
    expect(withoutRequestId(spoofed.body)).toEqual(notAllowedFrom('198.51.100.7'));
    expect(spoofed.headers['ratelimit-limit']).toBeUndefined();
    expect((await getOrganization(orgId))?.credits).toBe(10);
    expect(await eventsOf(orgId)).toEqual([expect.objectContaining({ type: 'credits.granted' })]);
    expect(await windowCount(key.id)).toBe(0);
    expect((await storedKey(orgId, key.id))?.last_used_at).toBeUndefined();
  });

  it('serves the key from an allowed address, an address of a listed network, and an IPv4-mapped IPv6 source', async () => {
    const { orgId, token } = await keyed({ allowed_ips: ['203.0.113.0/24', '198.51.100.7', '2001:db8::/32'] });
    const answers = await Promise.all(
      ['203.0.113.200', '198.51.100.7', '::ffff:203.0.113.9', '2001:db8:1::1'].map((sourceIp) => run(orgId, token, { sourceIp })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect((await run(orgId, token, { sourceIp: '2001:db9::1' })).status).toBe(403);
  });

  it('ranks right after authentication: above the version check, the rate limit and validation; a revoked key is still 401', async () => {
    const { orgId, users, key, token } = await keyed({ allowed_ips: ['203.0.113.0/24'], rate_limit: { requests: 1 } });
    const away = { sourceIp: '198.51.100.7' };
    expect((await run(orgId, token, { sourceIp: '203.0.113.1' })).status).toBe(200);
    expect((await run(orgId, token, { sourceIp: '203.0.113.1' })).status).toBe(429);

    const badVersion = await run(orgId, token, { ...away, headers: { 'endless-api-version': '9' } });
    const overRate = await run(orgId, token, away);
    const invalid = await run(orgId, token, { ...away, body: { handle: 42 } });
    // The two from inside the window; the refused ones taken back out of it.
    const counted = await windowCount(key.id);
    await call(revokeKey, { method: 'DELETE', url: `${keysUrl(orgId)}/${key.id}`, token: tokenFor(users.owner) });
    const revoked = await run(orgId, token, away);

    for (const answer of [badVersion, overRate, invalid]) {
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('ip_not_allowed');
    }
    expect(counted).toBe(2);
    expect(revoked.status).toBe(401);
    expect(revoked.body.data).toEqual({ reason: 'revoked' });
  });

  it('holds on every route the key calls, /mcp included (HTTP 403, not a tool result)', async () => {
    const { orgId, token } = await keyed({ allowed_ips: ['203.0.113.0/24'] });
    const away = '198.51.100.7';
    const credits = await call(getCredits, { url: `/organizations/${orgId}/credits`, token, sourceIp: away });
    const me = await call(getMe, { url: '/me', token, sourceIp: away });
    const mcp = await call(mcpHandler, {
      method: 'POST',
      url: `/mcp?organization_id=${orgId}`,
      token,
      sourceIp: away,
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tiktok_profile', arguments: { handle: 'nasa' } } },
    });
    for (const answer of [credits, me, mcp]) {
      expect(answer.status).toBe(403);
      expect(withoutRequestId(answer.body)).toEqual(notAllowedFrom(away));
    }
    expect((await getOrganization(orgId))?.credits).toBe(10);
  });

  it('binds keys only: a user token is served from anywhere', async () => {
    const { orgId, users } = await keyed({ allowed_ips: ['203.0.113.0/24'] });
    expect((await run(orgId, tokenFor(users.editor), { sourceIp: '198.51.100.7' })).status).toBe(200);
  });
});

describe('rate_limit', () => {
  it("holds the key to its own rate: its RateLimit-* headers, then 429 with Retry-After; other callers keep the stack's", async () => {
    const { orgId, users, token } = await keyed({ rate_limit: { requests: 2 } });
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await call(getCredits, { url: `/organizations/${orgId}/credits`, token }));
    const owner = await call(getCredits, { url: `/organizations/${orgId}/credits`, token: tokenFor(users.owner) });

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(answers.map((answer) => answer.headers['ratelimit-limit'])).toEqual(['2', '2', '2']);
    expect(answers.map((answer) => answer.headers['ratelimit-remaining'])).toEqual(['1', '0', '0']);
    expect(answers[2]!.headers['retry-after']).toBe(answers[2]!.headers['ratelimit-reset']);
    expect(answers[2]!.body.code).toBe('rate_limited');
    expect(owner.headers['ratelimit-limit']).toBe('1000');
  });

  it('follows a change from the next request: raised, the key is served again within the same window', async () => {
    const { orgId, users, key, token } = await keyed({ rate_limit: { requests: 1 } });
    const url = `/organizations/${orgId}/credits`;
    expect((await call(getCredits, { url, token })).status).toBe(200);
    expect((await call(getCredits, { url, token })).status).toBe(429);
    await patch(orgId, tokenFor(users.owner), key.id, { rate_limit: { requests: 5 } });
    const raised = await call(getCredits, { url, token });
    expect(raised.status).toBe(200);
    expect(raised.headers['ratelimit-limit']).toBe('5');
    expect(raised.headers['ratelimit-remaining']).toBe('2');
  });
});

describe('the local server: the address is the socket’s', () => {
  it('refuses a key bound elsewhere whatever X-Forwarded-For and Forwarded claim, and serves one bound to the socket’s address', async () => {
    const { createLocalServer, loadHandlers } = await import('../../lib/local/server.ts');
    const server = createLocalServer(await loadHandlers());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const elsewhere = await keyed({ allowed_ips: ['203.0.113.0/24'] });
      const here = await keyed({ allowed_ips: ['127.0.0.1'] });
      const post = (orgId: string, token: string) =>
        fetch(`${base}${runUrl('tiktok_profile', orgId)}`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${token}`,
            'Content-Type': 'application/json',
            'X-Forwarded-For': '203.0.113.5',
            Forwarded: 'for=203.0.113.5;proto=https',
            'X-Real-IP': '203.0.113.5',
          },
          body: JSON.stringify({ handle: 'nasa' }),
        });

      const refused = await post(elsewhere.orgId, elsewhere.token);
      const served = await post(here.orgId, here.token);

      expect(refused.status).toBe(403);
      expect(withoutRequestId((await refused.json()) as Record<string, unknown>)).toEqual(notAllowedFrom('127.0.0.1'));
      expect(served.status).toBe(200);
      expect((await getOrganization(elsewhere.orgId))?.credits).toBe(10);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections());
    }
  });

  it('reports an IPv4 client of a dual-stack socket as IPv4, as API Gateway does', async () => {
    const { peerAddress } = await import('../../lib/local/apigw-event.ts');
    expect([peerAddress('::ffff:203.0.113.5'), peerAddress('::1'), peerAddress('198.51.100.7'), peerAddress(undefined)]).toEqual([
      '203.0.113.5',
      '::1',
      '198.51.100.7',
      '',
    ]);
  });
});
