/**
 * The audit log (docs/audit.md), through the real handlers on DynamoDB Local: each change of the
 * contract's table writes exactly its event, in its own transaction (an event that cannot be
 * written fails the change: 500, nothing changed), a change of nothing writes none, and owners
 * read the log with every filter, in pages and as CSV. The enumeration at the end walks the route
 * table: every route but a GET declares its events or why none, and each declared event is
 * written here by its route.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as acceptInvitation } from '../functions/accept-invitation.ts';
import { handler as createKey } from '../functions/create-api-key.ts';
import { handler as createInvitation } from '../functions/create-invitation.ts';
import { handler as createPaymentMethod } from '../functions/create-payment-method.ts';
import { handler as createWebhook } from '../functions/create-webhook.ts';
import { handler as deleteMember } from '../functions/delete-member.ts';
import { handler as deletePaymentMethod } from '../functions/delete-payment-method.ts';
import { handler as deleteWebhook } from '../functions/delete-webhook.ts';
import { handler as getAutoRecharge } from '../functions/get-auto-recharge.ts';
import { handler as getPaymentMethod } from '../functions/get-payment-method.ts';
import { handler as listAuditEvents } from '../functions/list-audit-events.ts';
import { handler as putAlertSettings } from '../functions/put-alert-settings.ts';
import { handler as putAutoRecharge } from '../functions/put-auto-recharge.ts';
import { handler as putMember } from '../functions/put-member.ts';
import { handler as resendInvitation } from '../functions/resend-invitation.ts';
import { handler as revokeKey } from '../functions/revoke-api-key.ts';
import { handler as revokeInvitation } from '../functions/revoke-invitation.ts';
import { handler as updateKey } from '../functions/update-api-key.ts';
import { handler as updateOrganization } from '../functions/update-organization.ts';
import { pemSigner } from '../lib/auth/signer.ts';
import { getApiKey, listApiKeys } from '../lib/db/api-keys.ts';
import { AUDIT_EVENT_TYPES, type AuditEventType, auditEventPut, operatorSource } from '../lib/db/audit-events.ts';
import { db } from '../lib/db/client.ts';
import { AUDIT_PARTITION_PREFIX } from '../lib/db/keys.ts';
import { getMembership } from '../lib/db/memberships.ts';
import { getOrganization } from '../lib/db/organizations.ts';
import { getResource } from '../lib/db/resources.ts';
import { type LocalSes, readOutbox, startLocalSes } from '../lib/local/ses-outbox.ts';
import { approve, codeHashOf } from '../lib/oauth/consent.ts';
import { exchange } from '../lib/oauth/token.ts';
import { type Route, routes } from '../lib/routes.ts';
import { invite } from '../lib/workspace/invite.ts';
import { main } from '../scripts/admin/main.ts';
import { TEST_OPERATOR, uniqueId, workspace } from './support/fixtures.ts';
import { type Answer, call } from './support/http.ts';
import { type PaymentsHarness, pay, startPayments, until } from './support/payments.ts';
import { deleted, restore } from './support/resources.ts';
import { apiKeyTokenWith, publishTestSigningKey, tokenFor, trustedKey } from './support/tokens.ts';

const IP = '203.0.113.9';
const ID = /^aud_[0-9a-f]{44}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The events each route was seen writing here, for the enumeration at the end. */
const written = new Map<string, Set<string>>();
const saw = (route: string, type: string) => written.set(route, (written.get(route) ?? new Set()).add(type));

const send = (handler: Parameters<typeof call>[0], method: string, url: string, user: string, body?: unknown) =>
  call(handler, { method, url, token: tokenFor(user), sourceIp: IP, ...(body === undefined ? {} : { body }) });

const log = (orgId: string, user: string, query = '', headers: Record<string, string> = {}) =>
  call(listAuditEvents, { url: `/organizations/${orgId}/audit-events${query}`, token: tokenFor(user), headers });

/** Every event of the organization, newest first (as its owner reads them). */
async function eventsOf(orgId: string, owner: string): Promise<any[]> {
  const answer = await log(orgId, owner, '?limit=100');
  expect(answer.status).toBe(200);
  return answer.body.events;
}

/** What a user's change through a route records of its origin. */
const byUser = (user: string, answer: Answer) => ({
  actor: { type: 'user', id: user, client_id: null },
  request_id: answer.headers['x-request-id'],
  source_ip: IP,
});

/** The one event a change wrote (the newest), checked whole, and filed under its route. */
async function onlyNewEvent(route: string, orgId: string, owner: string, before: number, expected: Record<string, unknown>) {
  const events = await eventsOf(orgId, owner);
  expect(events.length).toBe(before + 1);
  expect(events[0]).toEqual({
    id: expect.stringMatching(ID),
    organization_id: orgId,
    occurred_at: expect.stringMatching(ISO),
    ...expected,
  });
  saw(route, expected.type as string);
  return events[0];
}

describe('each change writes its one event, with the actor, the target and exactly what changed', () => {
  it('the organization, its members, alert settings, keys and endpoints; a change of nothing writes none', async () => {
    const { orgId, users } = await workspace({ networks: ['x', 'tiktok'] });
    const { owner } = users;
    const org = `/organizations/${orgId}`;

    // PATCH: the networks as a set (the same two, reordered) are no change; the daily limit is.
    const patched = await send(updateOrganization, 'PATCH', org, owner, { daily_limit: 50, networks: ['tiktok', 'x', 'x'] });
    expect(patched.status).toBe(200);
    await onlyNewEvent('UpdateOrganization', orgId, owner, 0, {
      type: 'organization.updated',
      target: { type: 'organization', id: orgId },
      changes: { daily_limit: { before: null, after: 50 } },
      details: {},
      ...byUser(owner, patched),
    });
    expect((await send(updateOrganization, 'PATCH', org, owner, { daily_limit: 50 })).status).toBe(200);

    // PUT of a non-member, then of a member (its role), then of the same values: added, updated, nothing.
    const newcomer = uniqueId('newcomer_');
    const added = await send(putMember, 'PUT', `${org}/members/${newcomer}`, owner, { role: 'viewer', spending_limit: 9 });
    await onlyNewEvent('PutMember', orgId, owner, 1, {
      type: 'member.added',
      target: { type: 'member', id: newcomer },
      changes: null,
      details: { role: 'viewer', spending_limit: 9, daily_limit: null },
      ...byUser(owner, added),
    });
    const promoted = await send(putMember, 'PUT', `${org}/members/${newcomer}`, owner, { role: 'editor' });
    await onlyNewEvent('PutMember', orgId, owner, 2, {
      type: 'member.updated',
      target: { type: 'member', id: newcomer },
      changes: { role: { before: 'viewer', after: 'editor' } },
      details: {},
      ...byUser(owner, promoted),
    });
    expect((await send(putMember, 'PUT', `${org}/members/${newcomer}`, owner, { role: 'editor', spending_limit: 9 })).status).toBe(200);
    const removed = await send(deleteMember, 'DELETE', `${org}/members/${newcomer}`, owner);
    expect(removed.status).toBe(204);
    await onlyNewEvent('DeleteMember', orgId, owner, 3, {
      type: 'member.removed',
      target: { type: 'member', id: newcomer },
      changes: null,
      details: { role: 'editor', spending_limit: 9, daily_limit: null },
      ...byUser(owner, removed),
    });
    // Refused: the last owner stays, and no event says otherwise.
    expect((await send(deleteMember, 'DELETE', `${org}/members/${owner}`, owner)).status).toBe(409);

    // Alert settings: the defaults sent again are no change.
    expect((await send(putAlertSettings, 'PUT', `${org}/alerts`, owner, { low_balance: null, thresholds: [100, 80] })).status).toBe(200);
    const alerts = await send(putAlertSettings, 'PUT', `${org}/alerts`, owner, { low_balance: 25, thresholds: [80, 100] });
    await onlyNewEvent('PutAlertSettings', orgId, owner, 4, {
      type: 'alerts.updated',
      target: { type: 'organization', id: orgId },
      changes: { low_balance: { before: null, after: 25 } },
      details: {},
      ...byUser(owner, alerts),
    });

    // A key: created (never its token), changed, revoked, revoked again (nothing).
    const created = await send(createKey, 'POST', `${org}/api-keys`, owner, { name: 'ci', role: 'editor', daily_limit: 5 });
    const key = created.body;
    const createdEvent = await onlyNewEvent('CreateApiKey', orgId, owner, 5, {
      type: 'api_key.created',
      target: { type: 'api_key', id: key.id },
      changes: null,
      details: {
        name: 'ci',
        role: 'editor',
        spending_limit: null,
        daily_limit: 5,
        confirm_above: null,
        allowed_ips: null,
        rate_limit: null,
        expires_at: key.expires_at,
        created_via: 'api',
        client_id: null,
      },
      ...byUser(owner, created),
    });
    expect(JSON.stringify(createdEvent)).not.toContain(key.token);
    expect((await send(updateKey, 'PATCH', `${org}/api-keys/${key.id}`, owner, { daily_limit: 5, name: 'ci' })).status).toBe(200);
    const changed = await send(updateKey, 'PATCH', `${org}/api-keys/${key.id}`, owner, { daily_limit: 6, allowed_ips: ['10.0.0.0/8'] });
    await onlyNewEvent('UpdateApiKey', orgId, owner, 6, {
      type: 'api_key.updated',
      target: { type: 'api_key', id: key.id },
      changes: { daily_limit: { before: 5, after: 6 }, allowed_ips: { before: null, after: ['10.0.0.0/8'] } },
      details: {},
      ...byUser(owner, changed),
    });
    const revoked = await send(revokeKey, 'DELETE', `${org}/api-keys/${key.id}`, owner);
    expect((await send(revokeKey, 'DELETE', `${org}/api-keys/${key.id}`, owner)).status).toBe(204);
    await onlyNewEvent('RevokeApiKey', orgId, owner, 7, {
      type: 'api_key.revoked',
      target: { type: 'api_key', id: key.id },
      changes: null,
      details: { name: 'ci', created_via: 'api', client_id: null },
      ...byUser(owner, revoked),
    });

    // An endpoint: its URL and events, never its secret.
    const hook = await send(createWebhook, 'POST', `${org}/webhooks`, owner, { url: 'http://127.0.0.1:9/hook', events: ['job.completed'] });
    const hookEvent = await onlyNewEvent('CreateWebhook', orgId, owner, 8, {
      type: 'webhook.created',
      target: { type: 'webhook', id: hook.body.id },
      changes: null,
      details: { url: 'http://127.0.0.1:9/hook', events: ['job.completed'] },
      ...byUser(owner, hook),
    });
    expect(JSON.stringify(hookEvent)).not.toContain(hook.body.secret);
    const unhooked = await send(deleteWebhook, 'DELETE', `${org}/webhooks/${hook.body.id}`, owner);
    await onlyNewEvent('DeleteWebhook', orgId, owner, 9, {
      type: 'webhook.deleted',
      target: { type: 'webhook', id: hook.body.id },
      changes: null,
      details: { url: 'http://127.0.0.1:9/hook', events: ['job.completed'] },
      ...byUser(owner, unhooked),
    });
  });

  it('a restore (not of a live resource), by an OAuth grant: the key and its client; a reused code revokes it, by the system', async () => {
    const { orgId, users } = await workspace();
    const client = { client_id: `wsc_${randomUUID().replaceAll('-', '')}`, client_name: 'Agent', redirect_uris: ['http://127.0.0.1:7/cb'] };
    const verifier = 'v'.repeat(43);
    const request = {
      client,
      redirect_uri: 'http://127.0.0.1:7/cb',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      state: null,
      resource: 'http://127.0.0.1/mcp',
    } as unknown as Parameters<typeof approve>[0];
    const choice = { organization_id: orgId, role: 'editor' as const, spending_limit: null, daily_limit: null, expires_in_days: 30 };
    const origin = { id: randomUUID(), sourceIp: IP };
    const code = await approve(request, users.owner, choice, new Date(), { nonce: randomUUID(), untilMs: Date.now() + 60_000 }, origin);
    const [grant] = await listApiKeys(orgId);
    await onlyNewEvent('OAuthAuthorize', orgId, users.owner, 0, {
      type: 'api_key.created',
      target: { type: 'api_key', id: grant?.id },
      changes: null,
      details: expect.objectContaining({ name: 'OAuth: Agent', role: 'editor', created_via: 'oauth', client_id: client.client_id }),
      actor: { type: 'user', id: users.owner, client_id: null },
      request_id: origin.id,
      source_ip: IP,
    });
    expect(JSON.stringify(await eventsOf(orgId, users.owner))).not.toContain(codeHashOf(code));

    const asset = await deleted('asset', { orgId, by: users.editor });
    await publishTestSigningKey();
    const token = apiKeyTokenWith(grant?.id ?? '', orgId);
    const restored = await call((await import('../functions/restore-asset.ts')).handler, {
      method: 'POST',
      url: `/assets/${asset.id}/restore`,
      token,
      sourceIp: IP,
    });
    expect(restored.status).toBe(200);
    expect((await restore('asset', asset.id, users.owner)).status).toBe(200);
    await onlyNewEvent('RestoreAsset', orgId, users.owner, 1, {
      type: 'asset.restored',
      target: { type: 'asset', id: asset.id },
      changes: { deleted_at: { before: asset.deleted_at, after: null }, deleted_by_id: { before: users.editor, after: null } },
      details: {},
      actor: { type: 'api_key', id: grant?.id, client_id: client.client_id },
      request_id: restored.headers['x-request-id'],
      source_ip: IP,
    });

    const signer = pemSigner(trustedKey().privateKeyPem);
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      client_id: client.client_id,
      redirect_uri: request.redirect_uri,
      code_verifier: verifier,
    });
    await exchange(form, signer, 'http://127.0.0.1', new Date());
    await expect(exchange(form, signer, 'http://127.0.0.1', new Date())).rejects.toThrow('the code was used before');
    await onlyNewEvent('OAuthToken', orgId, users.owner, 2, {
      type: 'api_key.revoked',
      target: { type: 'api_key', id: grant?.id },
      changes: null,
      details: { name: 'OAuth: Agent', created_via: 'oauth', client_id: client.client_id },
      actor: { type: 'system', id: 'oauth', client_id: null },
      request_id: null,
      source_ip: null,
    });
  });

  it("the admin CLI's changes, by the operator; several keys revoked at once write one event each", async () => {
    const orgId = uniqueId('org_');
    const table = ['--table', process.env.TABLE_NAME!, '--endpoint', process.env.DYNAMODB_ENDPOINT!, '--region', 'us-east-1'];
    const admin = async (...args: string[]) => {
      let err = '';
      const code = await main([...args, ...table], { out: () => {}, err: (text) => (err += text) });
      expect({ args, code, err }).toEqual({ args, code: 0, err: '' });
    };
    const owner = uniqueId('owner_');
    await admin('org', 'create', '--id', orgId, '--networks', 'x', '--credits', '10');
    await admin('member', 'add', '--org', orgId, '--user', owner, '--role', 'owner');
    await admin('org', 'rename', '--org', orgId, '--name', 'Renamed');
    await admin('org', 'set-daily-limit', '--org', orgId, '--limit', '7');
    await admin('org', 'set-daily-limit', '--org', orgId, '--limit', '7');
    await admin('member', 'set-role', '--org', orgId, '--user', owner, '--role', 'owner');
    await admin('credits', 'deduct', '--org', orgId, '--amount', '3', '--reason', 'ticket 12');
    const operator = { type: 'operator', id: expect.any(String), client_id: null };

    const events = (await eventsOf(orgId, owner)).reverse();
    expect(
      events.map(({ type, changes, details, actor, request_id, source_ip }) => ({ type, changes, details, actor, request_id, source_ip })),
    ).toEqual(
      [
        { type: 'organization.created', changes: null, details: { name: orgId, networks: ['x'], spending_limit: null, daily_limit: null } },
        { type: 'member.added', changes: null, details: { role: 'owner', spending_limit: null, daily_limit: null } },
        { type: 'organization.updated', changes: { name: { before: orgId, after: 'Renamed' } }, details: {} },
        { type: 'organization.updated', changes: { daily_limit: { before: null, after: 7 } }, details: {} },
        {
          type: 'credits.deducted',
          changes: null,
          details: { amount: -3, reason: 'ticket 12', billing_event_id: expect.stringMatching(/^evt_/) },
        },
      ].map((event) => ({ ...event, actor: operator, request_id: null, source_ip: null })),
    );
  });
});

describe('invitations: created, resent, revoked and accepted, by owners, operators and the new member; never a token', () => {
  // The email goes through SES's client to the stand-in on a port of this block's own.
  const outboxDir = mkdtempSync(join(tmpdir(), 'audit-outbox-'));
  let ses: LocalSes;
  beforeAll(async () => {
    ses = await startLocalSes(outboxDir);
    process.env.SES_ENDPOINT = ses.endpoint;
    process.env.INVITATION_FROM_ADDRESS = 'invitations@workspace.test';
  });
  afterAll(async () => {
    await ses.close();
    rmSync(outboxDir, { recursive: true, force: true });
  });
  /** The tokens of every link sent to `to`. */
  const tokensTo = (to: string) =>
    readOutbox(outboxDir)
      .filter((message) => message.to === to)
      .map((message) => String(message.accept_url).split('#invitation=')[1]);

  it('each route and CLI command writes its event; an acceptance writes member.added too; a second revocation none', async () => {
    const { orgId, users } = await workspace();
    const { owner } = users;
    const url = `/organizations/${orgId}/invitations`;
    const email = `${uniqueId('ada.')}@example.com`;

    const created = await send(createInvitation, 'POST', url, owner, { email, role: 'editor', spending_limit: 9, expires_in_days: 3 });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const target = { type: 'invitation', id };
    await onlyNewEvent('CreateInvitation', orgId, owner, 0, {
      type: 'invitation.created',
      target,
      changes: null,
      details: { email, role: 'editor', spending_limit: 9, daily_limit: null, expires_at: created.body.expires_at },
      ...byUser(owner, created),
    });

    const resent = await send(resendInvitation, 'POST', `${url}/${id}/resend`, owner);
    expect(resent.status).toBe(200);
    await onlyNewEvent('ResendInvitation', orgId, owner, 1, {
      type: 'invitation.resent',
      target,
      changes: { expires_at: { before: created.body.expires_at, after: resent.body.expires_at } },
      details: { email },
      ...byUser(owner, resent),
    });

    // An expired one (an operator's, backdated) revives: its status changes too.
    const stale = `${uniqueId('old.')}@example.com`;
    const old = await invite(
      orgId,
      null,
      { email: stale, role: 'viewer', expires_in_days: 1 },
      'http://127.0.0.1/console',
      TEST_OPERATOR,
      new Date(Date.now() - 2 * 86_400_000),
    );
    expect(old.status).toBe('expired');
    const revived = await send(resendInvitation, 'POST', `${url}/${old.id}/resend`, owner);
    expect(revived.status).toBe(200);
    await onlyNewEvent('ResendInvitation', orgId, owner, 3, {
      type: 'invitation.resent',
      target: { type: 'invitation', id: old.id },
      changes: { expires_at: { before: old.expires_at, after: revived.body.expires_at }, status: { before: 'expired', after: 'pending' } },
      details: { email: stale },
      ...byUser(owner, revived),
    });

    const revoked = await send(revokeInvitation, 'DELETE', `${url}/${old.id}`, owner);
    expect([revoked.status, (await send(revokeInvitation, 'DELETE', `${url}/${old.id}`, owner)).status]).toEqual([204, 204]);
    await onlyNewEvent('RevokeInvitation', orgId, owner, 4, {
      type: 'invitation.revoked',
      target: { type: 'invitation', id: old.id },
      changes: null,
      details: { email: stale },
      ...byUser(owner, revoked),
    });

    // Accepted by its (resent) link: the invitation's event and the new member's, one transaction, by the member.
    const newcomer = uniqueId('newcomer_');
    const token = tokensTo(email).at(-1);
    const accepted = await call(acceptInvitation, {
      method: 'POST',
      url: '/invitations/accept',
      token: tokenFor(newcomer, { extra: { email, email_verified: true } }),
      body: { token },
      sourceIp: IP,
    });
    expect(accepted.status).toBe(200);
    const events = await eventsOf(orgId, owner);
    expect(events.length).toBe(7);
    const origin = byUser(newcomer, accepted);
    const both = events.slice(0, 2).sort((a, b) => (a.type < b.type ? -1 : 1));
    expect(both).toEqual([
      {
        id: expect.stringMatching(ID),
        organization_id: orgId,
        occurred_at: expect.stringMatching(ISO),
        type: 'invitation.accepted',
        target,
        changes: null,
        details: { email, role: 'editor', spending_limit: 9, daily_limit: null },
        ...origin,
      },
      {
        id: expect.stringMatching(ID),
        organization_id: orgId,
        occurred_at: both[0].occurred_at,
        type: 'member.added',
        target: { type: 'member', id: newcomer },
        changes: null,
        details: { role: 'editor', spending_limit: 9, daily_limit: null },
        ...origin,
      },
    ]);
    saw('AcceptInvitation', 'invitation.accepted');
    saw('AcceptInvitation', 'member.added');

    // The operator's, by the CLI.
    const table = ['--table', process.env.TABLE_NAME!, '--endpoint', process.env.DYNAMODB_ENDPOINT!, '--region', 'us-east-1'];
    const mail = ['--from', 'invitations@workspace.test', '--console-url', 'https://console.test/console'];
    let printed = '';
    const admin = async (...args: string[]) => {
      let err = '';
      const code = await main([...args, ...table], { out: (text) => (printed += text), err: (text) => (err += text) });
      expect({ args, code, err }).toEqual({ args, code: 0, err: '' });
    };
    const grace = `${uniqueId('grace.')}@example.com`;
    await admin('invitation', 'create', '--org', orgId, '--email', grace, '--role', 'viewer', '--daily-limit', '4', ...mail);
    const byCli = JSON.parse(printed);
    await admin('invitation', 'revoke', '--org', orgId, '--invitation', byCli.id);
    await admin('invitation', 'revoke', '--org', orgId, '--invitation', byCli.id);
    const operator = { actor: { type: 'operator', id: expect.any(String), client_id: null }, request_id: null, source_ip: null };
    const all = await eventsOf(orgId, owner);
    expect(
      all.slice(0, 2).map(({ type, target, changes, details, actor, request_id, source_ip }) => ({
        type,
        target,
        changes,
        details,
        actor,
        request_id,
        source_ip,
      })),
    ).toEqual([
      { type: 'invitation.revoked', target: { type: 'invitation', id: byCli.id }, changes: null, details: { email: grace }, ...operator },
      {
        type: 'invitation.created',
        target: { type: 'invitation', id: byCli.id },
        changes: null,
        details: { email: grace, role: 'viewer', spending_limit: null, daily_limit: 4, expires_at: byCli.expires_at },
        ...operator,
      },
    ]);
    expect(all.length).toBe(9);

    // No token of any link, nor its hash, in any event.
    const tokens = [...tokensTo(email), ...tokensTo(stale), ...tokensTo(grace)];
    expect(tokens.length).toBe(5);
    const text = JSON.stringify(all);
    for (const each of tokens) {
      expect(text).not.toContain(each);
      expect(text).not.toContain(createHash('sha256').update(String(each), 'utf8').digest('hex'));
    }
  });
});

describe('auto-recharge and the card: the owner’s settings and card, and a card saved by a setup checkout (the system)', () => {
  let harness: PaymentsHarness;
  beforeAll(async () => {
    harness = await startPayments();
  });
  afterAll(async () => harness.close());

  it('PUT writes the changes of its four settings (none for the current values), cards saved and removed write theirs', async () => {
    const { orgId, users } = await workspace({ credits: 5_000 });
    const { owner } = users;
    const url = `/organizations/${orgId}/auto-recharge`;
    const card = `${url}/payment-method`;
    const put = (body: unknown) => send(putAutoRecharge, 'PUT', url, owner, body);

    const first = await put({ enabled: false, threshold: 10 });
    expect(first.status).toBe(200);
    await onlyNewEvent('PutAutoRecharge', orgId, owner, 0, {
      type: 'auto_recharge.updated',
      target: { type: 'organization', id: orgId },
      changes: { threshold: { before: null, after: 10 } },
      details: {},
      ...byUser(owner, first),
    });
    // The current values, given or kept: nothing.
    expect([(await put({ enabled: false, threshold: 10 })).status, (await put({ enabled: false })).status]).toEqual([200, 200]);

    /** Saves a card on Stripe's setup page; the webhook makes it the organization's. */
    const saveCard = async (number: string, last4: string) => {
      const opened = await send(createPaymentMethod, 'POST', card, owner);
      expect(opened.status).toBe(201);
      expect(await pay(opened.body.checkout_url, number)).toBe(303);
      const shown = await until(
        async () => (await send(getPaymentMethod, 'GET', card, owner)).body.payment_method,
        (method) => method?.last4 === last4,
      );
      expect(shown).toEqual({ brand: 'visa', last4 });
    };
    const system = { actor: { type: 'system', id: 'stripe', client_id: null }, request_id: null, source_ip: null };
    const PM = expect.stringMatching(/^pm_/);

    // Opening the page writes nothing (CreatePaymentMethod); the completed checkout, by the system.
    await saveCard('4242424242424242', '4242');
    const saved = await onlyNewEvent('ReceiveStripeWebhook', orgId, owner, 1, {
      type: 'payment_method.saved',
      target: { type: 'payment_method', id: PM },
      changes: null,
      details: { brand: 'visa', last4: '4242' },
      ...system,
    });

    // Another card replaces it: two cards changed, one event each.
    await saveCard('4000000000000341', '0341');
    const events = await eventsOf(orgId, owner);
    expect(events.length).toBe(4);
    const pair = events.slice(0, 2).sort((a, b) => (a.type < b.type ? -1 : 1));
    expect(pair).toEqual([
      {
        id: expect.stringMatching(ID),
        organization_id: orgId,
        occurred_at: expect.stringMatching(ISO),
        type: 'payment_method.removed',
        target: saved.target,
        changes: null,
        details: { brand: 'visa', last4: '4242' },
        ...system,
      },
      {
        id: expect.stringMatching(ID),
        organization_id: orgId,
        occurred_at: pair[0].occurred_at,
        type: 'payment_method.saved',
        target: { type: 'payment_method', id: PM },
        changes: null,
        details: { brand: 'visa', last4: '0341' },
        ...system,
      },
    ]);
    expect(pair[1].target.id).not.toBe(saved.target.id);
    saw('ReceiveStripeWebhook', 'payment_method.removed');

    const enabled = await put({ enabled: true, threshold: 1_000, credits: 500, monthly_cap: 1_000 });
    expect(enabled.status).toBe(200);
    await onlyNewEvent('PutAutoRecharge', orgId, owner, 4, {
      type: 'auto_recharge.updated',
      target: { type: 'organization', id: orgId },
      changes: {
        enabled: { before: false, after: true },
        threshold: { before: 10, after: 1_000 },
        credits: { before: null, after: 500 },
        monthly_cap: { before: null, after: 1_000 },
      },
      details: {},
      ...byUser(owner, enabled),
    });

    // The owner removes it: its event alone (the disable it brings is the engine's: a notice, no audit event); again, none.
    const removed = await send(deletePaymentMethod, 'DELETE', card, owner);
    expect([removed.status, (await send(deletePaymentMethod, 'DELETE', card, owner)).status]).toEqual([204, 204]);
    await onlyNewEvent('DeletePaymentMethod', orgId, owner, 5, {
      type: 'payment_method.removed',
      target: pair[1].target,
      changes: null,
      details: { brand: 'visa', last4: '0341' },
      ...byUser(owner, removed),
    });
    expect((await send(getAutoRecharge, 'GET', url, owner)).body).toMatchObject({
      enabled: false,
      disabled_reason: 'payment_method_removed',
    });
  });
});

describe('an event that cannot be written', () => {
  // The fault: the event's item is put at the key of an item that is there already (what a
  // colliding id would meet). DynamoDB cancels the whole transaction on its condition.
  const collideAuditPuts = (existing: { PK: string; SK: string }) => {
    const name = `collide-${Math.random()}`;
    db().middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] };
        for (const item of input.TransactItems ?? []) {
          if (String(item.Put?.Item?.PK ?? '').startsWith(AUDIT_PARTITION_PREFIX)) Object.assign(item.Put!.Item!, existing);
        }
        return next(args);
      },
      { step: 'initialize', priority: 'high', name },
    );
    return () => db().middlewareStack.remove(name);
  };
  let undo: (() => void) | undefined;
  afterAll(() => undo?.());

  it('fails its change: 500, and nothing changed (the limit, the member, the key)', async () => {
    const { orgId, users } = await workspace();
    const org = `/organizations/${orgId}`;
    const first = await send(updateOrganization, 'PATCH', org, users.owner, { daily_limit: 1 });
    const [event] = await eventsOf(orgId, users.owner);
    const created = await send(createKey, 'POST', `${org}/api-keys`, users.owner, { name: 'k', role: 'viewer' });
    expect([first.status, created.status]).toEqual([200, 201]);
    const stored = (
      await db().send(
        new (
          await import('@aws-sdk/lib-dynamodb')
        ).QueryCommand({
          TableName: process.env.TABLE_NAME,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': `${AUDIT_PARTITION_PREFIX}${orgId}` },
          ConsistentRead: true,
        }),
      )
    ).Items!.find((item) => item.id === event.id)!;
    undo = collideAuditPuts({ PK: String(stored.PK), SK: String(stored.SK) });

    const answers = [
      await send(updateOrganization, 'PATCH', org, users.owner, { daily_limit: 2 }),
      await send(putMember, 'PUT', `${org}/members/${users.viewer}`, users.owner, { role: 'editor' }),
      await send(revokeKey, 'DELETE', `${org}/api-keys/${created.body.id}`, users.owner),
    ];
    undo();
    undo = undefined;

    expect(answers.map(({ status, body }) => [status, body.code])).toEqual([
      [500, 'internal_error'],
      [500, 'internal_error'],
      [500, 'internal_error'],
    ]);
    expect((await getOrganization(orgId))?.daily_limit).toBe(1);
    expect((await getMembership(orgId, users.viewer))?.role).toBe('viewer');
    expect((await getApiKey(orgId, created.body.id))?.revoked_at).toBeNull();
    expect((await eventsOf(orgId, users.owner)).length).toBe(2);
  });
});

describe('GET /organizations/{organization_id}/audit-events', () => {
  /** An organization with six events written directly, a minute apart: two types, two actors, two targets. */
  async function history() {
    const { orgId, users } = await workspace();
    const base = Date.parse('2025-03-01T12:00:00.000Z');
    const at = (i: number) => new Date(base + i * 60_000);
    for (let i = 0; i < 6; i += 1) {
      const source = i % 2 === 0 ? operatorSource('arn:aws:iam::1:user/ops') : TEST_OPERATOR;
      const put = auditEventPut(
        orgId,
        source,
        { type: i < 3 ? 'member.added' : 'api_key.revoked', target: { type: 'member', id: `t${i % 2}` }, details: { i } },
        at(i),
      );
      await db().send(new (await import('@aws-sdk/lib-dynamodb')).PutCommand(put.Put as never));
    }
    return { orgId, users, at };
  }
  const indexes = (answer: Answer) => answer.body.events.map((event: any) => event.details.i);

  it('lists newest first with every filter applied, and pages with a cursor bound to the organization and every filter', async () => {
    const { orgId, users, at } = await history();
    const owner = users.owner;
    expect(indexes(await log(orgId, owner))).toEqual([5, 4, 3, 2, 1, 0]);
    expect(indexes(await log(orgId, owner, '?type=api_key.revoked,organization.created'))).toEqual([5, 4, 3]);
    expect(indexes(await log(orgId, owner, '?actor_id=arn:aws:iam::1:user/ops'))).toEqual([4, 2, 0]);
    expect(indexes(await log(orgId, owner, '?target_id=t1&type=member.added'))).toEqual([1]);
    const window = `?from=${at(1).toISOString()}&to=${at(4).toISOString()}`;
    expect(indexes(await log(orgId, owner, window))).toEqual([3, 2, 1]);

    const first = await log(orgId, owner, '?actor_id=test-operator&limit=2');
    expect([indexes(first), first.body.has_more]).toEqual([[5, 3], true]);
    const second = await log(orgId, owner, `?actor_id=test-operator&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect([indexes(second), second.body.has_more, second.body.next_cursor]).toEqual([[1], false, null]);
    const moved = await log(orgId, owner, `?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect([moved.status, moved.body.data.issues[0].path]).toEqual([400, ['query', 'cursor']]);
  });

  it('answers the same page as CSV (RFC 4180), with a Link to the next page', async () => {
    const { orgId, users } = await history();
    const answer = await log(orgId, users.owner, '?limit=1&type=api_key.revoked', { accept: 'text/csv' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    const [header, row, end] = answer.raw.split('\r\n');
    expect(header).toBe(
      'id,occurred_at,type,actor_type,actor_id,actor_client_id,target_type,target_id,changes,details,request_id,source_ip',
    );
    expect(row).toMatch(/^aud_[0-9a-f]{44},2025-03-01T12:05:00.000Z,api_key.revoked,operator,test-operator,,member,t1,,"{""i"":5}",,$/);
    expect(end).toBe('');
    expect(answer.headers.link).toMatch(
      new RegExp(`^<https?://[^>]+/organizations/${orgId}/audit-events\\?type=api_key.revoked&limit=1&cursor=[^>]+>; rel="next"$`),
    );
  });

  it.each([
    ['an unknown type', '?type=member.added,member.eaten', 'type'],
    ['21 types', `?type=${Array(21).fill('member.added').join(',')}`, 'type'],
    ['an empty type', '?type=', 'type'],
    ['a repeated parameter', '?actor_id=a&actor_id=b', 'actor_id'],
    ['a timestamp with an offset', '?from=2025-01-01T00:00:00%2B01:00', 'from'],
    ['a reversed window', '?from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z', 'to'],
    ['an empty window', '?from=2025-01-01T00:00:00Z&to=2025-01-01T00:00:00Z', 'to'],
    ['a target id over 255 characters', `?target_id=${'t'.repeat(256)}`, 'target_id'],
  ])('refuses %s: 400 naming it', async (_, query, name) => {
    const { orgId, users } = await workspace();
    const answer = await log(orgId, users.owner, query);
    expect([answer.status, answer.body.code, answer.body.data.issues[0].path]).toEqual([400, 'validation_failed', ['query', name]]);
  });

  it('is for owners with a token of their own: API keys 403 api_key_not_allowed, other members 403, anyone else 404', async () => {
    const { orgId, users } = await workspace();
    const key = await send(createKey, 'POST', `/organizations/${orgId}/api-keys`, users.owner, { name: 'k', role: 'editor' });
    const asKey = await call(listAuditEvents, { url: `/organizations/${orgId}/audit-events`, token: key.body.token });
    const answers = [asKey, await log(orgId, users.editor), await log(orgId, users.viewer), await log(orgId, uniqueId('stranger_'))];
    expect(answers.map(({ status, body }) => [status, body.code])).toEqual([
      [403, 'api_key_not_allowed'],
      [403, 'forbidden'],
      [403, 'forbidden'],
      [404, 'not_found'],
    ]);
  });
});

describe('the route table', () => {
  const changing = routes.filter((route) => route.method !== 'GET');

  it.each(
    changing.map((route) => [route.name, route] as const),
  )('%s declares the audit events it writes, or why none', (_, route: Route) => {
    expect(route.audit).toBeDefined();
    if (route.audit && 'none' in route.audit) expect(route.audit.none.length).toBeGreaterThan(10);
    if (route.audit && 'writes' in route.audit) expect(route.audit.writes.length).toBeGreaterThan(0);
  });

  it.each([
    ['skill', { source: 'custom' as const, name: 'Summarize' }],
    ['conversation', {}],
    ['project', { slug: 'launch' }],
  ] as const)('RestoreX of a %s writes its event once; of a live one, none', async (kind, fields) => {
    const { orgId, users } = await workspace();
    const record = await deleted(kind, { orgId, by: users.owner, ...fields });
    const answer = await restore(kind, record.id, users.owner);
    expect((await restore(kind, record.id, users.owner)).status).toBe(200);
    expect((await getResource(kind, record.id))?.deleted_at).toBeNull();
    const route = `Restore${kind[0]!.toUpperCase()}${kind.slice(1)}`;
    await onlyNewEvent(route, orgId, users.owner, 0, {
      type: `${kind}.restored`,
      target: { type: kind, id: record.id },
      changes: { deleted_at: { before: record.deleted_at, after: null }, deleted_by_id: { before: users.owner, after: null } },
      details: {},
      actor: { type: 'user', id: users.owner, client_id: null },
      request_id: answer.headers['x-request-id'],
      source_ip: '127.0.0.1',
    });
  });
  it('names only types of the log, and each declared event was written here by its route', () => {
    const declared = Object.fromEntries(
      changing.flatMap((route) => (route.audit && 'writes' in route.audit ? [[route.name, [...route.audit.writes].sort()]] : [])),
    );
    for (const types of Object.values(declared)) for (const type of types) expect(AUDIT_EVENT_TYPES).toContain(type as AuditEventType);
    const seen = Object.fromEntries(Object.keys(declared).map((name) => [name, [...(written.get(name) ?? [])].sort()]));
    expect(seen).toEqual(declared);
  });
});
