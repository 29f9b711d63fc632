/**
 * API keys (docs/authentication.md, "API keys"): owners create, list and revoke them; a key is a
 * bearer JWT the service signs, acting in its one organization as a member with its role, within
 * its own monthly limit, refused from the request after its revocation and after its expiry.
 * Real signatures throughout: the test key signs keys as the dev key does for `npm start`.
 */
import { sign } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as getCredits } from '../../functions/get-credits.ts';
import { handler as getJwks } from '../../functions/get-jwks.ts';
import { handler as getMe } from '../../functions/get-me.ts';
import { handler as getOrganization } from '../../functions/get-organization.ts';
import { handler as listKeys } from '../../functions/list-api-keys.ts';
import { handler as listEvents } from '../../functions/list-billing-events.ts';
import { handler as listMembers } from '../../functions/list-members.ts';
import { handler as mcpHandler } from '../../functions/mcp.ts';
import { handler as putMember } from '../../functions/put-member.ts';
import { handler as restoreAsset } from '../../functions/restore-asset.ts';
import { handler as revokeKey } from '../../functions/revoke-api-key.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { handler as updateOrganization } from '../../functions/update-organization.ts';
import { API_KEY_AUDIENCE, API_KEY_ISSUER } from '../../lib/auth/api-key-token.ts';
import { thumbprintOf } from '../../lib/auth/signer.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { apiKeyKey, orgKey } from '../../lib/db/keys.ts';
import { getOrganization as readOrganization } from '../../lib/db/organizations.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { deleted } from '../support/resources.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { apiKeyTokenWith, tokenFor, untrustedKey } from '../support/tokens.ts';

const keysUrl = (orgId: string) => `/organizations/${orgId}/api-keys`;
const create = (orgId: string, token: string, body: unknown) => call(createKey, { method: 'POST', url: keysUrl(orgId), token, body });
const revoke = (orgId: string, token: string, keyId: string) =>
  call(revokeKey, { method: 'DELETE', url: `${keysUrl(orgId)}/${keyId}`, token });
const run = (orgId: string, token: string, body: unknown = { handle: 'nasa' }) =>
  call(runOperation, { method: 'POST', url: runUrl('tiktok_profile', orgId), token, body });

/** A workspace and one key of its owner's making: the key's view and token. */
async function keyed(options: { credits?: number; role?: 'viewer' | 'editor'; spending_limit?: number | null } = {}) {
  const ws = await workspace({ credits: options.credits ?? 10 });
  const created = await create(ws.orgId, tokenFor(ws.users.owner), {
    name: 'nightly script',
    role: options.role ?? 'editor',
    ...(options.spending_limit === undefined ? {} : { spending_limit: options.spending_limit }),
  });
  expect(created.status).toBe(201);
  return { ...ws, key: created.body as Record<string, any>, token: created.body.token as string };
}

const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8'));

/** A key token with exactly `claims`, signed by the trusted key under its published kid: a real signature on claims of our choosing. */
const keyTokenWith = (claims: Record<string, unknown>): string => apiKeyTokenWith(String(claims.sub), String(claims.org), claims);

describe('POST /organizations/{organization_id}/api-keys', () => {
  it('gives an owner a key and its token once: 201, the key as listed plus `token`, never cached', async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const before = Date.now();

    // Act
    const answer = await create(orgId, tokenFor(users.owner), { name: 'agent', role: 'editor', spending_limit: 50, expires_in_days: 30 });

    // Assess
    expect(answer.status).toBe(201);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{32}$/),
      name: 'agent',
      role: 'editor',
      spending_limit: 50,
      spent: 0,
      daily_limit: null,
      spent_today: 0,
      confirm_above: null,
      allowed_ips: null,
      rate_limit: null,
      created_at: expect.any(String),
      created_by_id: users.owner,
      expires_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    const created = Date.parse(answer.body.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(answer.body.expires_at) - created).toBe(30 * 86_400_000);
    expect(payloadOf(answer.body.token)).toEqual({
      iss: API_KEY_ISSUER,
      aud: API_KEY_AUDIENCE,
      sub: answer.body.id,
      jti: answer.body.id,
      org: orgId,
      token_use: 'api_key',
      iat: created / 1000,
      exp: Date.parse(answer.body.expires_at) / 1000,
    });
  });

  it('expires a key after 90 days by default, with no limit of its own', async () => {
    const { orgId, users } = await workspace();
    const answer = await create(orgId, tokenFor(users.owner), { name: 'agent', role: 'viewer' });
    expect(answer.status).toBe(201);
    expect(answer.body.spending_limit).toBeNull();
    expect(Date.parse(answer.body.expires_at) - Date.parse(answer.body.created_at)).toBe(90 * 86_400_000);
  });

  it.each([
    ['the role owner', { name: 'a', role: 'owner' }, 'body.role'],
    ['no role', { name: 'a' }, 'body.role'],
    ['an empty name', { name: '  ', role: 'editor' }, 'body.name'],
    ['a name of 101 characters', { name: 'n'.repeat(101), role: 'editor' }, 'body.name'],
    ['an expiry of 0 days', { name: 'a', role: 'editor', expires_in_days: 0 }, 'body.expires_in_days'],
    ['an expiry of 366 days', { name: 'a', role: 'editor', expires_in_days: 366 }, 'body.expires_in_days'],
    ['an expiry of 1.5 days', { name: 'a', role: 'editor', expires_in_days: 1.5 }, 'body.expires_in_days'],
    ['a negative limit', { name: 'a', role: 'editor', spending_limit: -1 }, 'body.spending_limit'],
    ['an unknown field', { name: 'a', role: 'editor', scopes: ['all'] }, 'body'],
  ])('refuses %s: 400 naming the field, and creates nothing', async (_, body, field) => {
    const { orgId, users } = await workspace();
    const answer = await create(orgId, tokenFor(users.owner), body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.data.issues.map((issue: { path: string[] }) => issue.path.join('.'))).toContain(field);
    expect((await call(listKeys, { url: keysUrl(orgId), token: tokenFor(users.owner) })).body.api_keys).toEqual([]);
  });

  it('refuses an editor or viewer (403) and a non-member (404, as for an unknown organization)', async () => {
    const { orgId, users } = await workspace();
    const body = { name: 'a', role: 'viewer' };
    expect((await create(orgId, tokenFor(users.editor), body)).body.code).toBe('forbidden');
    expect((await create(orgId, tokenFor(users.viewer), body)).status).toBe(403);
    const stranger = await create(orgId, tokenFor(uniqueId('stranger_')), body);
    const unknown = await create(uniqueId('org_'), tokenFor(users.owner), body);
    expect(stranger.status).toBe(404);
    expect(withoutRequestId(stranger.body)).toEqual(withoutRequestId(unknown.body));
  });
});

describe('what a key cannot do: manage keys, members or settings', () => {
  it('is refused 403 api_key_not_allowed in its organization, 404 in any other, even with an owner behind it', async () => {
    // Prepare
    const { orgId, users, key, token } = await keyed();
    const other = await workspace();

    // Act
    const answers = {
      createKey: await create(orgId, token, { name: 'more', role: 'editor' }),
      listKeys: await call(listKeys, { url: keysUrl(orgId), token }),
      revokeKey: await revoke(orgId, token, key.id),
      listMembers: await call(listMembers, { url: `/organizations/${orgId}/members`, token }),
      putMember: await call(putMember, {
        method: 'PUT',
        url: `/organizations/${orgId}/members/${users.viewer}`,
        token,
        body: { role: 'owner' },
      }),
      patch: await call(updateOrganization, { method: 'PATCH', url: `/organizations/${orgId}`, token, body: { spending_limit: null } }),
      elsewhere: await create(other.orgId, token, { name: 'more', role: 'editor' }),
    };

    // Assess
    for (const name of ['createKey', 'listKeys', 'revokeKey', 'listMembers', 'putMember', 'patch'] as const) {
      expect({ name, status: answers[name].status, code: answers[name].body.code }).toEqual({
        name,
        status: 403,
        code: 'api_key_not_allowed',
      });
    }
    expect(answers.createKey.body.message).toBe(
      'an API key cannot manage members, organization settings or API keys; use the token of an owner',
    );
    expect(answers.elsewhere.status).toBe(404);
    // Nothing changed: the key still stands, the viewer is still a viewer.
    expect((await run(orgId, token)).status).toBe(200);
  });
});

describe('a key at work', () => {
  it('runs as an editor of its organization: charged to it, named in the charge event, its spend listed', async () => {
    // Prepare
    const { orgId, users, key, token } = await keyed({ credits: 5 });

    // Act
    const answer = await run(orgId, token);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers['credits-remaining']).toBe('4');
    const events = await call(listEvents, { url: `/organizations/${orgId}/billing/events`, token: tokenFor(users.owner) });
    const charge = events.body.events.find((event: { type: string }) => event.type === 'social_operation.charged');
    expect(charge?.metadata).toEqual({
      operation: 'tiktok_profile',
      charge_id: answer.headers['charge-id'],
      api_key_id: key.id,
      request_id: answer.headers['x-request-id'],
    });
    const listed = await call(listKeys, { url: keysUrl(orgId), token: tokenFor(users.owner) });
    const { token: _, ...view } = key;
    expect(listed.body).toEqual({
      api_keys: [{ ...view, spent: 1, spent_today: 1, last_used_at: expect.any(String) }],
      next_cursor: null,
      has_more: false,
    });
  });

  it('reads what a member reads: the organization, the balance, /me naming the key and its one organization', async () => {
    const { orgId, key, token } = await keyed({ role: 'viewer' });
    expect((await call(getOrganization, { url: `/organizations/${orgId}`, token })).status).toBe(200);
    const credits = await call(getCredits, { url: `/organizations/${orgId}/credits`, token });
    expect(credits.status).toBe(200);
    expect(credits.body.balance).toBe(10);
    const me = await call(getMe, { url: '/me', token });
    expect(me.body).toEqual({
      user_id: key.id,
      token_kind: 'api_key',
      api_key_id: key.id,
      email: null,
      organizations: [{ organization_id: orgId, role: 'viewer', spending_limit: null, spent: 0, daily_limit: null, spent_today: 0 }],
      invitations: [],
    });
    expect(credits.body.api_key).toEqual({ id: key.id, spending_limit: null, spent: 0, daily_limit: null, spent_today: 0 });
  });

  it('is held to its role (a viewer key may not run) and is a non-member anywhere else', async () => {
    const viewer = await keyed({ role: 'viewer' });
    const refused = await run(viewer.orgId, viewer.token);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('only editors and owners can run social operations');

    const editor = await keyed();
    const elsewhere = await run(viewer.orgId, editor.token);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.message).toBe('you are not a member of this organization');
    expect((await call(getOrganization, { url: `/organizations/${viewer.orgId}`, token: editor.token })).status).toBe(404);
    expect((await readOrganization(viewer.orgId))?.credits).toBe(10);
  });

  it('restores only in its organization: a resource of another organization is a plain 404', async () => {
    const { orgId, token } = await keyed();
    const other = await workspace();
    const mine = await deleted('asset', { orgId, by: 'someone' });
    const theirs = await deleted('asset', { orgId: other.orgId, by: 'someone' });
    expect((await call(restoreAsset, { method: 'POST', url: `/assets/${mine.id}/restore`, token })).status).toBe(200);
    const refused = await call(restoreAsset, { method: 'POST', url: `/assets/${theirs.id}/restore`, token });
    expect(refused.status).toBe(404);
    expect(refused.body.message).toBe('no such resource');
  });

  it('works over MCP: tools/call charges the organization as the key', async () => {
    const { orgId, token } = await keyed({ credits: 3 });
    const answer = await call(mcpHandler, {
      method: 'POST',
      url: `/mcp?organization_id=${orgId}`,
      token,
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tiktok_profile', arguments: { handle: 'nasa' } } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.result.isError).toBeUndefined();
    expect(answer.body.result._meta).toMatchObject({ credits_charged: 1, credits_remaining: 2 });
  });

  it('costs no extra sequential round trip over a user: its record and organization are read in the first wave', async () => {
    // Prepare
    const { orgId, users, token } = await keyed({ credits: 10 });
    await run(orgId, token); // last_used_at written once; later requests only read it
    const waves = async (bearer: string) => {
      const counter = countRoundTrips(db());
      const answer = await run(orgId, bearer).finally(() => counter.stop());
      expect(answer.status).toBe(200);
      return counter;
    };

    // Act
    const user = await waves(tokenFor(users.editor));
    const key = await waves(token);

    // Assess
    expect(key.log.sequential).toBe(user.log.sequential);
    // The key's record and its organization, in one BatchGetItem, stand in for the membership's GetItem.
    expect([...key.log.commands].sort()).toEqual(
      [...user.log.commands.filter((_, i) => i !== user.log.commands.indexOf('GetItemCommand')), 'BatchGetItemCommand'].sort(),
    );
  });

  it('has its own rate-limit window, apart from its owner', async () => {
    const { orgId, users, token } = await keyed();
    // The owner made one request already: the key's creation.
    const key = await call(getOrganization, { url: `/organizations/${orgId}`, token });
    const owner = await call(getOrganization, { url: `/organizations/${orgId}`, token: tokenFor(users.owner) });
    const limit = Number(key.headers['ratelimit-limit']);
    expect(Number(key.headers['ratelimit-remaining'])).toBe(limit - 1);
    expect(Number(owner.headers['ratelimit-remaining'])).toBe(limit - 2);
  });
});

describe('a spending limit of its own', () => {
  it('holds under 20 parallel runs: a limit of 10 lets exactly 10 through, the rest 402 with scope api_key', async () => {
    // Prepare
    const { orgId, token } = await keyed({ credits: 100, spending_limit: 10 });

    // Act
    const answers = await Promise.all(Array.from({ length: 20 }, () => run(orgId, token)));

    // Assess
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    const refused = answers.filter((answer) => answer.status === 402);
    expect(refused).toHaveLength(10);
    for (const answer of refused) {
      expect(answer.body.code).toBe('spending_limit_exceeded');
      expect(answer.body.data).toMatchObject({ scope: 'api_key', spending_limit: 10, spent: 10, cost: 1 });
      expect(answer.body.message).toMatch(/^this run would exceed this API key's monthly spending limit: 10 of 10 credits spent/);
    }
    expect((await readOrganization(orgId))?.credits).toBe(90);
  });
});

describe('revocation', () => {
  it('refuses the very next request (401, reason revoked); revoking again is 204; an unknown key 404', async () => {
    // Prepare
    const { orgId, users, key, token } = await keyed();
    expect((await run(orgId, token)).status).toBe(200);

    // Act
    const revoked = await revoke(orgId, tokenFor(users.owner), key.id);
    const next = await call(getOrganization, { url: `/organizations/${orgId}`, token });

    // Assess
    expect(revoked.status).toBe(204);
    expect(revoked.raw).toBe('');
    expect(next.status).toBe(401);
    expect(withoutRequestId(next.body)).toEqual({
      code: 'unauthenticated',
      message: 'the API key has been revoked',
      data: { reason: 'revoked' },
    });
    expect(next.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="the API key has been revoked"');
    expect((await revoke(orgId, tokenFor(users.owner), key.id)).status).toBe(204);
    const unknown = await revoke(orgId, tokenFor(users.owner), `key_${'0'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    const malformed = await revoke(orgId, tokenFor(users.owner), 'key_nope');
    expect(malformed.status).toBe(400);
    expect(malformed.body.data.issues[0].path).toEqual(['path', 'key_id']);
    const listed = await call(listKeys, { url: keysUrl(orgId), token: tokenFor(users.owner) });
    expect(listed.body.api_keys[0].revoked_at).toEqual(expect.any(String));
  });

  it('outranks every other answer: a revoked key gets 401 where it would have had 404, 400 or 403', async () => {
    const { orgId, users, key, token } = await keyed();
    await revoke(orgId, tokenFor(users.owner), key.id);
    expect((await run(uniqueId('org_'), token)).status).toBe(401);
    expect((await run(orgId, token, { handle: 42 })).status).toBe(401);
    expect((await call(listMembers, { url: `/organizations/${orgId}/members`, token })).status).toBe(401);
  });

  it('racing runs: every run is either delivered and charged, or refused and not charged', async () => {
    // Prepare
    const { orgId, users, key, token } = await keyed({ credits: 100 });

    // Act
    const runs = Array.from({ length: 12 }, (_, i) => new Promise((resolve) => setTimeout(resolve, i * 3)).then(() => run(orgId, token)));
    const revoked = await revoke(orgId, tokenFor(users.owner), key.id);
    const answers = await Promise.all(runs);

    // Assess
    expect(revoked.status).toBe(204);
    const delivered = answers.filter((answer) => answer.status === 200).length;
    expect(answers.every((answer) => answer.status === 200 || answer.status === 401)).toBe(true);
    expect((await readOrganization(orgId))?.credits).toBe(100 - delivered);
    const charges = (await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged').length;
    const refunds = (await eventsOf(orgId)).filter((event) => event.type === 'social_operation.refunded').length;
    expect(charges - refunds).toBe(delivered);
    expect((await run(orgId, token)).status).toBe(401);
  });
});

describe('tokens that are not what they claim', () => {
  it('refuses an expired key: 401 with reason expired', async () => {
    const { orgId, key, token } = await keyed();
    const claims = payloadOf(token);
    const expired = keyTokenWith({ ...claims, iat: claims.iat - 7200, exp: Math.floor(Date.now() / 1000) - 3600 });
    const answer = await call(getOrganization, { url: `/organizations/${orgId}`, token: expired });
    expect(answer.status).toBe(401);
    expect(answer.body.data).toEqual({ reason: 'expired' });
    // Its record's expiry counts too, whatever a token says.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiKeyKey(orgId, key.id),
        UpdateExpression: 'SET key_expires_at = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const recorded = await call(getOrganization, { url: `/organizations/${orgId}`, token });
    expect(recorded.body.data).toEqual({ reason: 'expired' });
  });

  it('refuses a key re-signed with another key, and a key with a changed claim: 401 naming the signature', async () => {
    const { orgId, token } = await keyed();
    const other = untrustedKey();
    const [header, payload] = token.split('.');
    const resigned = `${header}.${payload}.${sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), other).toString('base64url')}`;
    const changed = token.split('.');
    changed[1] = Buffer.from(JSON.stringify({ ...payloadOf(token), org: uniqueId('org_') })).toString('base64url');

    const answers = [
      await call(getOrganization, { url: `/organizations/${orgId}`, token: resigned }),
      await call(getOrganization, { url: `/organizations/${orgId}`, token: changed.join('.') }),
    ];

    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.body.data).toEqual({ reason: 'bad_signature' });
    }
    expect(headerOf(token).kid).toBe(headerOf(resigned).kid);
  });

  it('refuses a well-signed token of this issuer that is not a key, and a user token posing as one', async () => {
    const { orgId, key, token } = await keyed();
    const claims = payloadOf(token);
    const noTokenUse = keyTokenWith({ ...claims, token_use: undefined });
    const otherSub = keyTokenWith({ ...claims, sub: 'user_x' });
    const posing = await call(getOrganization, { url: `/organizations/${orgId}`, token: tokenFor(key.id) });
    for (const bad of [noTokenUse, otherSub]) {
      const answer = await call(getOrganization, { url: `/organizations/${orgId}`, token: bad });
      expect(answer.status).toBe(401);
      expect(answer.body.data).toEqual({ reason: 'invalid_api_key' });
    }
    expect(posing.status).toBe(401);
    expect(posing.body.data).toEqual({ reason: 'invalid_subject' });
  });

  it('refuses the key of an organization that no longer exists, and a key whose record is gone', async () => {
    const gone = await keyed();
    await db().send(new DeleteCommand({ TableName: tableName(), Key: orgKey(gone.orgId) }));
    const answer = await call(getMe, { url: '/me', token: gone.token });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({
      message: 'the API key does not exist, or its organization no longer does',
      data: { reason: 'unknown_api_key' },
    });

    const erased = await keyed();
    await db().send(new DeleteCommand({ TableName: tableName(), Key: apiKeyKey(erased.orgId, erased.key.id) }));
    expect((await run(erased.orgId, erased.token)).body.data).toEqual({ reason: 'unknown_api_key' });
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the public key that verifies every key, with no token', async () => {
    const { token } = await keyed();
    const answer = await call(getJwks, { url: '/.well-known/jwks.json' });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('public, max-age=300');
    const { kid } = headerOf(token);
    const jwk = answer.body.keys.find((key: { kid: string }) => key.kid === kid);
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB' });
    expect(thumbprintOf(jwk)).toBe(kid);
    expect(JSON.stringify(answer.body)).not.toMatch(/"d"|"p"|"q"/);
  });
});
