/**
 * Invitations by email (docs/invitations.md), through the real handlers on DynamoDB Local: an
 * owner invites, lists, resends and revokes; the invitee accepts with the verified address the
 * email went to; `GET /me` shows what is pending. The email goes through SES's client to the local
 * stand-in (lib/local/ses-outbox.ts), served here on a port of this file's own, and is read back
 * from its outbox as `npm start`'s would be. The races (two acceptances, acceptance against
 * revocation and resend, creations against the limits) are sampled (test/support/depth.ts).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as acceptInvitation } from '../../functions/accept-invitation.ts';
import { handler as createApiKey } from '../../functions/create-api-key.ts';
import { handler as createInvitation } from '../../functions/create-invitation.ts';
import { handler as deleteMember } from '../../functions/delete-member.ts';
import { handler as getMe } from '../../functions/get-me.ts';
import { handler as listInvitations } from '../../functions/list-invitations.ts';
import { handler as listMembers } from '../../functions/list-members.ts';
import { handler as putMember } from '../../functions/put-member.ts';
import { handler as resendInvitation } from '../../functions/resend-invitation.ts';
import { handler as revokeInvitation } from '../../functions/revoke-invitation.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { invitationKey, invitationSlotsKey, orgKey } from '../../lib/db/keys.ts';
import { getMembership } from '../../lib/db/memberships.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { answerSendEmail, isSendEmailCall, type OutboxMessage } from '../../lib/local/ses-outbox.ts';
import { invite } from '../../lib/workspace/invite.ts';
import { atDepth } from '../support/depth.ts';
import { TEST_OPERATOR, uniqueId, workspace } from '../support/fixtures.ts';
import { type Answer, call, withoutRequestId } from '../support/http.ts';
import { tokenFor } from '../support/tokens.ts';

// ---------------------------------------------------------------- the outbox, behind SES's API

const outboxDir = mkdtempSync(join(tmpdir(), 'invitations-outbox-'));
/** Addresses SES refuses here (MessageRejected), as it would an unverified recipient in its sandbox. */
const REFUSED = 'refused.example.com';
let ses: Server;

beforeAll(async () => {
  ses = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (!isSendEmailCall(request.method, request.url ?? '', '')) return response.writeHead(404).end();
      const answer = body.includes(REFUSED)
        ? { status: 400, body: { message: 'Email address is not verified.' }, headers: { 'x-amzn-ErrorType': 'MessageRejected' } }
        : answerSendEmail(body, outboxDir);
      response.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((listening) => ses.listen(0, '127.0.0.1', listening));
  process.env.SES_ENDPOINT = `http://127.0.0.1:${(ses.address() as AddressInfo).port}`;
  process.env.INVITATION_FROM_ADDRESS = 'invitations@workspace.test';
});
afterAll(async () => {
  await new Promise((closed) => ses.close(closed));
  rmSync(outboxDir, { recursive: true, force: true });
});

/** The messages sent to `to`, oldest first. */
const outboxOf = (to: string): OutboxMessage[] =>
  readdirSync(outboxDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(outboxDir, name), 'utf8')) as OutboxMessage)
    .filter((message) => message.to === to)
    .sort((a, b) => (a.sent_at < b.sent_at ? -1 : a.sent_at > b.sent_at ? 1 : 0));
/** The token of the last link sent to `to`. */
const lastToken = (to: string): string => {
  const url = outboxOf(to).at(-1)?.accept_url ?? '';
  return url.slice(url.indexOf('#invitation=') + '#invitation='.length);
};

// ---------------------------------------------------------------- calls

const address = (name = 'ada') => `${uniqueId(`${name}.`)}+team@example.com`;
/** A user's token carrying a verified address (or the claims given). */
const personToken = (sub: string, email: string | undefined, verified: unknown = true) =>
  tokenFor(sub, { extra: email === undefined ? {} : { email, email_verified: verified } });
const invitationsUrl = (orgId: string, query = '') => `/organizations/${orgId}/invitations${query}`;

const create = (orgId: string, token: string, body: unknown) =>
  call(createInvitation, { method: 'POST', url: invitationsUrl(orgId), token, body });
const list = (orgId: string, token: string, query = '') => call(listInvitations, { url: invitationsUrl(orgId, query), token });
const resend = (orgId: string, token: string, id: string) =>
  call(resendInvitation, { method: 'POST', url: `${invitationsUrl(orgId)}/${id}/resend`, token });
const revoke = (orgId: string, token: string, id: string) =>
  call(revokeInvitation, { method: 'DELETE', url: `${invitationsUrl(orgId)}/${id}`, token });
const accept = (token: string, body: unknown) => call(acceptInvitation, { method: 'POST', url: '/invitations/accept', token, body });

/** A fresh workspace with one invitation (its answer, the address and the link's token). */
async function invited(options: { role?: string; spending_limit?: number | null; daily_limit?: number | null } = {}) {
  const ws = await workspace();
  const email = address();
  const created = await create(ws.orgId, tokenFor(ws.users.owner), { email, role: options.role ?? 'editor', ...options });
  expect(created.status).toBe(201);
  return { ...ws, email, invitation: created.body as Record<string, any>, token: lastToken(email), owner: tokenFor(ws.users.owner) };
}

const invitationItem = async (orgId: string, id: string) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: invitationKey(orgId, id), ConsistentRead: true }))).Item;

const NOT_FOUND = { code: 'not_found', message: 'no such resource' };
const issuePaths = (answer: Answer) => (answer.body.data?.issues ?? []).map((issue: { path: string[] }) => issue.path.join('.'));

// ---------------------------------------------------------------- creating

describe('POST /organizations/{organization_id}/invitations', () => {
  it('invites a trimmed, lower-cased address: 201 the invitation, one email with a console link, the token stored only as its hash', async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const email = `${uniqueId('Ada.Lovelace')}+Team@Example.COM`;
    const before = Date.now();

    // Act
    const answer = await create(orgId, tokenFor(users.owner), {
      email: `  ${email}\t`,
      role: 'viewer',
      spending_limit: 500,
      daily_limit: 50,
      expires_in_days: 3,
    });

    // Assess
    expect(answer.status).toBe(201);
    const { body } = answer;
    expect(body).toEqual({
      id: expect.stringMatching(/^inv_[0-9a-f]{32}$/),
      organization_id: orgId,
      email: email.toLowerCase(),
      role: 'viewer',
      spending_limit: 500,
      daily_limit: 50,
      status: 'pending',
      invited_by: users.owner,
      created_at: expect.any(String),
      expires_at: new Date(Date.parse(body.created_at) + 3 * 86_400_000).toISOString(),
      accepted_at: null,
    });
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const [message, ...more] = outboxOf(email.toLowerCase());
    expect(more).toEqual([]);
    expect(message).toMatchObject({ invitation_id: body.id, organization_id: orgId, to: email.toLowerCase() });
    expect(message?.subject).toContain(orgId);
    expect(message?.text).toContain('as a viewer');
    expect(message?.text).toContain('500 credits a month, 50 credits a day');
    expect(message?.text).toContain(body.expires_at);
    const token = lastToken(email.toLowerCase());
    expect(message?.accept_url).toBe(`http://127.0.0.1/console#invitation=${token}`);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
    // Nowhere but the email: not in the answer, not in the table (only its SHA-256 is).
    expect(answer.raw).not.toContain(token);
    const item = await invitationItem(orgId, body.id);
    expect(item?.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(item)).not.toContain(token);
  });

  it.each([
    ['no @', { email: 'ada.example.com' }, 'body.email'],
    ['two @', { email: 'ada@lovelace@example.com' }, 'body.email'],
    ['one label', { email: 'ada@localhost' }, 'body.email'],
    ['an empty label', { email: 'ada@example..com' }, 'body.email'],
    ['a space inside', { email: 'ada lovelace@example.com' }, 'body.email'],
    ['a control character', { email: 'ada\u0007@example.com' }, 'body.email'],
    ['65 characters before @', { email: `${'a'.repeat(65)}@example.com` }, 'body.email'],
    ['255 characters', { email: `ada@${'b'.repeat(240)}.example.com` }, 'body.email'],
    ['not a string', { email: 42 }, 'body.email'],
    ['a role of none', { role: 'admin' }, 'body.role'],
    ['a negative limit', { spending_limit: -1 }, 'body.spending_limit'],
    ['a fractional daily limit', { daily_limit: 1.5 }, 'body.daily_limit'],
    ['0 days', { expires_in_days: 0 }, 'body.expires_in_days'],
    ['31 days', { expires_in_days: 31 }, 'body.expires_in_days'],
  ])('refuses %s: 400 naming the field, nothing sent', async (_case, change, field) => {
    const { orgId, users } = await sharedWorkspace();
    const answer = await create(orgId, tokenFor(users.owner), { email: 'ada@example.com', role: 'editor', ...change });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    expect(issuePaths(answer)).toEqual([field]);
  });

  it('keeps dots and + tags, and takes 64 characters before @ and 254 in all', async () => {
    const { orgId, users } = await sharedWorkspace();
    const longest = `${'a'.repeat(64)}@${'b'.repeat(184)}.test`;
    expect(longest.length).toBe(254);
    for (const email of ['a.b.c+tag+more@sub.example.co.uk', longest]) {
      const answer = await create(orgId, tokenFor(users.owner), { email, role: 'viewer' });
      expect(answer.status, email).toBe(201);
      expect(answer.body.email).toBe(email);
    }
  });

  it('is for owners with a user token: editors and viewers 403, non-members 404, API keys 403 api_key_not_allowed', async () => {
    const { orgId, users } = await sharedWorkspace();
    const body = { email: address(), role: 'viewer' };
    const key = await call(createApiKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: tokenFor(users.owner),
      body: { name: 'k', role: 'editor' },
    });
    const answers = await Promise.all([
      create(orgId, tokenFor(users.editor), body),
      create(orgId, tokenFor(users.viewer), body),
      create(orgId, tokenFor(uniqueId('stranger_')), body),
      create(orgId, key.body.token, body),
    ]);
    expect(answers.map((answer) => [answer.status, answer.body.code])).toEqual([
      [403, 'forbidden'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [403, 'api_key_not_allowed'],
    ]);
    expect(outboxOf(body.email)).toEqual([]);
  });

  it('refuses a second invitation to a pending address (409 invitation_pending naming it), never replacing it; an expired one does not count', async () => {
    const { orgId, email, invitation, owner } = await invited();
    const again = await create(orgId, owner, { email: email.toUpperCase(), role: 'owner' });
    expect(again.status).toBe(409);
    expect(withoutRequestId(again.body)).toEqual({
      code: 'invitation_pending',
      message: `a pending invitation to this address exists (${invitation.id}): resend or revoke it`,
      data: { invitation_id: invitation.id },
    });
    expect(outboxOf(email)).toHaveLength(1);

    const stale = await workspace();
    const old = await invite(
      stale.orgId,
      null,
      { email, role: 'viewer', expires_in_days: 1 },
      'http://console.test/console',
      TEST_OPERATOR,
      new Date(Date.now() - 2 * 86_400_000),
    );
    expect(old.status).toBe('expired');
    expect((await create(stale.orgId, tokenFor(stale.users.owner), { email, role: 'viewer' })).status).toBe(201);
  });

  it('holds 50 pending invitations at most, exactly, however many are asked at once (expired ones do not count)', async () => {
    // Prepare: 47 live pending invitations and 5 expired ones, as the creations would have left them.
    const { orgId, users } = await workspace();
    const nowMs = Date.now();
    const pending = Object.fromEntries([
      ...Array.from({ length: 47 }, (_, i) => [`inv_live${i}`, { email: `live${i}@example.com`, until_ms: nowMs + 86_400_000 }]),
      ...Array.from({ length: 5 }, (_, i) => [`inv_gone${i}`, { email: `gone${i}@example.com`, until_ms: nowMs - 1000 }]),
    ]);
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: invitationSlotsKey(orgId),
        UpdateExpression: 'SET pending = :pending, version = :one',
        ExpressionAttributeValues: { ':pending': pending, ':one': 1 },
      }),
    );

    // Act: five creations at once, for three places.
    const racers = atDepth(5, 8);
    const answers = await Promise.all(
      Array.from({ length: racers }, () => create(orgId, tokenFor(users.owner), { email: address('racer'), role: 'viewer' })),
    );

    // Assess
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => [answer.status, answer.body.code, answer.body.data])).toEqual(
      refused.map(() => [409, 'invitation_limit_reached', { max_pending: 50 }]),
    );
  });

  it('gives two creations for one address at once one invitation: 201 and 409 invitation_pending', async () => {
    const { orgId, users } = await sharedWorkspace();
    const email = address('twice');
    const answers = await Promise.all([1, 2].map(() => create(orgId, tokenFor(users.owner), { email, role: 'viewer' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    const won = answers.find((answer) => answer.status === 201);
    expect(answers.find((answer) => answer.status === 409)?.body.data).toEqual({ invitation_id: won?.body.id });
  });

  it('answers 500 upstream_failed naming the invitation when SES refuses its email; the invitation stands and a resend sends it', async () => {
    const { orgId, users } = await sharedWorkspace();
    const email = `${uniqueId('x')}@${REFUSED}`;
    const answer = await create(orgId, tokenFor(users.owner), { email, role: 'viewer' });
    expect(answer.status).toBe(500);
    expect(answer.body.code).toBe('upstream_failed');
    const id = answer.body.data.invitation_id;
    expect(id).toMatch(/^inv_/);
    expect((await invitationItem(orgId, id))?.status).toBe('pending');
    expect((await resend(orgId, tokenFor(users.owner), id)).status).toBe(500);
  });
});

/** One workspace for the cases that only read it or add to it independently. */
let shared: Promise<Awaited<ReturnType<typeof workspace>>> | undefined;
const sharedWorkspace = () => (shared ??= workspace());

// ---------------------------------------------------------------- accepting

describe('POST /invitations/accept', () => {
  it('makes the verified invitee a member with exactly the role and limits, the address recorded, in one step', async () => {
    // Prepare
    const { orgId, email, invitation, token, owner } = await invited({ role: 'owner', spending_limit: 70, daily_limit: 7 });
    const invitee = uniqueId('invitee_');

    // Act: the address as the identity provider may carry it (case, spaces), verified as a federated user's "true".
    const answer = await accept(personToken(invitee, ` ${email.toUpperCase()} `, 'true'), { token });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      organization_id: orgId,
      invitation_id: invitation.id,
      user_id: invitee,
      role: 'owner',
      spending_limit: 70,
      daily_limit: 7,
    });
    expect(await getMembership(orgId, invitee)).toMatchObject({ role: 'owner', spending_limit: 70, daily_limit: 7, email });
    const org = await db().send(new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: true }));
    expect(org.Item?.owner_count).toBe(2);
    const listed = await list(orgId, owner, '?status=accepted');
    expect(listed.body.invitations).toEqual([{ ...invitation, status: 'accepted', accepted_at: expect.any(String) }]);
    const members = await call(listMembers, { url: `/organizations/${orgId}/members`, token: owner });
    expect(members.body.members.find((member: { user_id: string }) => member.user_id === invitee)?.email).toBe(email);
    // The address is a member's now: no second invitation to it.
    const again = await create(orgId, owner, { email, role: 'viewer' });
    expect([again.status, again.body.code]).toEqual([409, 'already_member']);
  });

  it('answers an unknown, used, revoked and expired token alike: 404, one body', async () => {
    const used = await invited();
    expect((await accept(personToken(uniqueId('u_'), used.email), { token: used.token })).status).toBe(200);
    const revoked = await invited();
    expect((await revoke(revoked.orgId, revoked.owner, revoked.invitation.id)).status).toBe(204);
    const stale = await workspace();
    const staleEmail = address();
    await invite(
      stale.orgId,
      null,
      { email: staleEmail, role: 'viewer', expires_in_days: 1 },
      'http://127.0.0.1/console',
      TEST_OPERATOR,
      new Date(Date.now() - 86_400_000 - 1000),
    );

    const answers = await Promise.all([
      accept(personToken(uniqueId('u_'), used.email), { token: 'A'.repeat(43) }),
      accept(personToken(uniqueId('u_'), used.email), { token: used.token }),
      accept(personToken(uniqueId('u_'), revoked.email), { token: revoked.token }),
      accept(personToken(uniqueId('u_'), staleEmail), { token: lastToken(staleEmail) }),
    ]);
    expect(answers.map((answer) => [answer.status, withoutRequestId(answer.body)])).toEqual(answers.map(() => [404, NOT_FOUND]));
  });

  it('needs the verified address the invitation went to: 403 email_not_verified, 403 email_mismatch not showing it', async () => {
    const { orgId, email, invitation, token, owner } = await invited();
    const answers = await Promise.all([
      accept(personToken(uniqueId('u_'), undefined), { token }),
      accept(personToken(uniqueId('u_'), email, false), { token }),
      accept(personToken(uniqueId('u_'), email, 'false'), { token }),
      accept(personToken(uniqueId('u_'), `other.${email}`), { token }),
    ]);
    expect(answers.map((answer) => [answer.status, answer.body.code])).toEqual([
      [403, 'email_not_verified'],
      [403, 'email_not_verified'],
      [403, 'email_not_verified'],
      [403, 'email_mismatch'],
    ]);
    expect(answers[3]?.raw).not.toContain(email);
    // Still pending: the right person accepts after.
    expect((await list(orgId, owner, '?status=pending')).body.invitations.map((each: { id: string }) => each.id)).toEqual([invitation.id]);
    expect((await accept(personToken(uniqueId('u_'), email), { token })).status).toBe(200);
  });

  it('refuses a member already (409 already_member) and leaves the invitation pending', async () => {
    const { orgId, users, email, invitation, token, owner } = await invited();
    const answer = await accept(personToken(users.viewer, email), { token });
    expect([answer.status, answer.body.code]).toEqual([409, 'already_member']);
    expect((await invitationItem(orgId, invitation.id))?.status).toBe('pending');
    expect((await getMembership(orgId, users.viewer))?.role).toBe('viewer');
    expect((await list(orgId, owner, '?status=pending')).body.invitations).toHaveLength(1);
  });

  it('accepts by invitation_id for the address it went to only; 404 for anyone else or without a verified address', async () => {
    const { orgId, email, invitation } = await invited({ role: 'viewer' });
    const answers = await Promise.all([
      accept(personToken(uniqueId('u_'), `other.${email}`), { invitation_id: invitation.id }),
      accept(personToken(uniqueId('u_'), undefined), { invitation_id: invitation.id }),
      accept(personToken(uniqueId('u_'), email), { invitation_id: `inv_${'0'.repeat(32)}` }),
    ]);
    expect(answers.map((answer) => [answer.status, withoutRequestId(answer.body)])).toEqual(answers.map(() => [404, NOT_FOUND]));
    const invitee = uniqueId('u_');
    const accepted = await accept(personToken(invitee, email), { invitation_id: invitation.id });
    expect(accepted.status).toBe(200);
    expect((await getMembership(orgId, invitee))?.role).toBe('viewer');
  });

  it('refuses API keys (403 api_key_not_allowed) and a body without exactly one of token and invitation_id (400)', async () => {
    const { orgId, users, token } = await invited();
    const key = await call(createApiKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: tokenFor(users.owner),
      body: { name: 'k', role: 'viewer' },
    });
    const [byKey, both, neither, long, badId] = await Promise.all([
      accept(key.body.token, { token }),
      accept(personToken(uniqueId('u_'), 'a@b.c'), { token, invitation_id: `inv_${'0'.repeat(32)}` }),
      accept(personToken(uniqueId('u_'), 'a@b.c'), {}),
      accept(personToken(uniqueId('u_'), 'a@b.c'), { token: 'x'.repeat(513) }),
      accept(personToken(uniqueId('u_'), 'a@b.c'), { invitation_id: 'inv_nope' }),
    ]);
    expect([byKey?.status, byKey?.body.code]).toEqual([403, 'api_key_not_allowed']);
    expect([both, neither, long, badId].map((answer) => [answer?.status, issuePaths(answer as Answer)])).toEqual([
      [400, ['body']],
      [400, ['body']],
      [400, ['body.token']],
      [400, ['body.invitation_id']],
    ]);
  });

  it("cannot grant a role above its inviter's: an owner invitation whose inviter was demoted answers 404", async () => {
    const { orgId, users, email, token } = await invited({ role: 'owner' });
    const second = uniqueId('owner2_');
    expect(
      (
        await call(putMember, {
          method: 'PUT',
          url: `/organizations/${orgId}/members/${second}`,
          token: tokenFor(users.owner),
          body: { role: 'owner' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(putMember, {
          method: 'PUT',
          url: `/organizations/${orgId}/members/${users.owner}`,
          token: tokenFor(second),
          body: { role: 'editor' },
        })
      ).status,
    ).toBe(200);
    const invitee = uniqueId('u_');
    const answer = await accept(personToken(invitee, email), { token });
    expect([answer.status, withoutRequestId(answer.body)]).toEqual([404, NOT_FOUND]);
    expect(await getMembership(orgId, invitee)).toBeNull();
  });

  it('gives two acceptances of one token at once one membership: one 200, one 404', async () => {
    for (let round = 0; round < atDepth(2, 8); round += 1) {
      const { orgId, email, token } = await invited();
      const people = [uniqueId('u_'), uniqueId('u_')];
      const answers = await Promise.all(people.map((person) => accept(personToken(person, email), { token })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404]);
      const members = await Promise.all(people.map((person) => getMembership(orgId, person)));
      expect(members.filter(Boolean)).toHaveLength(1);
    }
  });

  it('settles an acceptance racing a revocation or a resend wholly one way', async () => {
    for (let round = 0; round < atDepth(2, 8); round += 1) {
      const racer = round % 2 === 0 ? 'revoke' : 'resend';
      const { orgId, email, invitation, token, owner } = await invited();
      const invitee = uniqueId('u_');
      const [accepted, other] = await Promise.all([
        accept(personToken(invitee, email), { token }),
        racer === 'revoke' ? revoke(orgId, owner, invitation.id) : resend(orgId, owner, invitation.id),
      ]);
      const member = await getMembership(orgId, invitee);
      const stored = await invitationItem(orgId, invitation.id);
      if (accepted.status === 200) {
        expect([other.status, other.body.code]).toEqual([409, 'invitation_not_pending']);
        expect(member?.role).toBe('editor');
        expect(stored?.status).toBe('accepted');
      } else {
        expect([accepted.status, other.status]).toEqual([404, racer === 'revoke' ? 204 : 200]);
        expect(member).toBeNull();
        expect(stored?.status).toBe(racer === 'revoke' ? 'revoked' : 'pending');
      }
    }
  });

  it('frees the address when the member is removed: it may be invited again', async () => {
    const { orgId, email, token, owner } = await invited();
    const invitee = uniqueId('u_');
    expect((await accept(personToken(invitee, email), { token })).status).toBe(200);
    expect((await call(deleteMember, { method: 'DELETE', url: `/organizations/${orgId}/members/${invitee}`, token: owner })).status).toBe(
      204,
    );
    expect((await create(orgId, owner, { email, role: 'viewer' })).status).toBe(201);
  });
});

// ---------------------------------------------------------------- listing, resending, revoking

describe('GET, resend and DELETE …/invitations', () => {
  it('lists newest first, by status, paged; 400 naming status; owners only', async () => {
    // Prepare: three invitations, one accepted, one revoked.
    const { orgId, users } = await workspace();
    const owner = tokenFor(users.owner);
    const emails = [address('a'), address('b'), address('c')];
    const ids: string[] = [];
    for (const email of emails) ids.push((await create(orgId, owner, { email, role: 'viewer' })).body.id);
    const [first = '', second = '', third = ''] = ids;
    await accept(personToken(uniqueId('u_'), emails[0]), { token: lastToken(emails[0] ?? '') });
    await revoke(orgId, owner, second);

    // Act
    const all = await list(orgId, owner);
    const page1 = await list(orgId, owner, '?limit=2');
    const page2 = await list(orgId, owner, `?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
    const byStatus = await Promise.all(
      ['pending', 'accepted', 'revoked', 'expired'].map((status) => list(orgId, owner, `?status=${status}`)),
    );
    const bad = await list(orgId, owner, '?status=sent');
    const refused = await Promise.all([list(orgId, tokenFor(users.editor)), list(orgId, tokenFor(uniqueId('x_')))]);

    // Assess
    expect(all.body.invitations.map((each: { id: string; status: string }) => [each.id, each.status])).toEqual([
      [third, 'pending'],
      [second, 'revoked'],
      [first, 'accepted'],
    ]);
    expect([...page1.body.invitations, ...page2.body.invitations].map((each: { id: string }) => each.id)).toEqual([third, second, first]);
    expect([page1.body.has_more, page2.body.has_more, page2.body.next_cursor]).toEqual([true, false, null]);
    expect(byStatus.map((answer) => answer.body.invitations.map((each: { id: string }) => each.id))).toEqual([
      [third],
      [first],
      [second],
      [],
    ]);
    expect([bad.status, issuePaths(bad)]).toEqual([400, ['query.status']]);
    expect(refused.map((answer) => answer.status)).toEqual([403, 404]);
  });

  it('resends: a new token (the old one dead at once), a new expiry, one more email; revoked and accepted 409', async () => {
    const { orgId, email, invitation, token, owner } = await invited();

    const answer = await resend(orgId, owner, invitation.id);

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...invitation, expires_at: expect.any(String) });
    expect(Date.parse(answer.body.expires_at)).toBeGreaterThanOrEqual(Date.parse(invitation.expires_at));
    expect(outboxOf(email)).toHaveLength(2);
    const fresh = lastToken(email);
    expect(fresh).not.toBe(token);
    expect((await accept(personToken(uniqueId('u_'), email), { token })).status).toBe(404);
    expect((await accept(personToken(uniqueId('u_'), email), { token: fresh })).status).toBe(200);
    const accepted = await resend(orgId, owner, invitation.id);
    expect([accepted.status, accepted.body.code]).toEqual([409, 'invitation_not_pending']);

    const other = await invited();
    await revoke(other.orgId, other.owner, other.invitation.id);
    const revoked = await resend(other.orgId, other.owner, other.invitation.id);
    expect([revoked.status, revoked.body.code]).toEqual([409, 'invitation_not_pending']);
  });

  it('revives an expired invitation on resend, refused like a creation when the address has a pending one', async () => {
    const { orgId, users } = await workspace();
    const owner = tokenFor(users.owner);
    const email = address();
    const old = await invite(
      orgId,
      null,
      { email, role: 'viewer', expires_in_days: 2 },
      'http://127.0.0.1/console',
      TEST_OPERATOR,
      new Date(Date.now() - 3 * 86_400_000),
    );
    expect((await list(orgId, owner, '?status=expired')).body.invitations.map((each: { id: string }) => each.id)).toEqual([old.id]);

    const revived = await resend(orgId, owner, old.id);
    expect([revived.status, revived.body.status]).toEqual([200, 'pending']);
    expect(Date.parse(revived.body.expires_at) - Date.now()).toBeGreaterThan(2 * 86_400_000 - 60_000);

    const other = address();
    const expired = await invite(
      orgId,
      null,
      { email: other, role: 'viewer', expires_in_days: 1 },
      'http://127.0.0.1/console',
      TEST_OPERATOR,
      new Date(Date.now() - 2 * 86_400_000),
    );
    const newer = await create(orgId, owner, { email: other, role: 'editor' });
    const refused = await resend(orgId, owner, expired.id);
    expect([refused.status, refused.body.data]).toEqual([409, { invitation_id: newer.body.id }]);
  });

  it("revokes: 204, again 204, the token dead; an accepted one 409; unknown or another organization's 404", async () => {
    const { orgId, email, invitation, token, owner } = await invited();
    const elsewhere = await workspace();

    const first = await revoke(orgId, owner, invitation.id);
    const again = await revoke(orgId, owner, invitation.id);
    const unknown = await revoke(orgId, owner, `inv_${'f'.repeat(32)}`);
    const foreign = await revoke(elsewhere.orgId, tokenFor(elsewhere.users.owner), invitation.id);

    expect([first.status, first.raw, again.status]).toEqual([204, '', 204]);
    expect([unknown.status, foreign.status]).toEqual([404, 404]);
    expect((await accept(personToken(uniqueId('u_'), email), { token })).status).toBe(404);
    expect((await list(orgId, owner)).body.invitations[0]).toMatchObject({ id: invitation.id, status: 'revoked' });

    const done = await invited();
    await accept(personToken(uniqueId('u_'), done.email), { token: done.token });
    const acceptedRevoke = await revoke(done.orgId, done.owner, done.invitation.id);
    expect([acceptedRevoke.status, acceptedRevoke.body.code]).toEqual([409, 'invitation_not_pending']);
  });
});

// ---------------------------------------------------------------- GET /me

describe('GET /me', () => {
  it('shows the verified address and its pending invitations, read beside the memberships (no added round trip)', async () => {
    // Prepare: two invitations to one address, one of them revoked, and a membership elsewhere.
    const email = address();
    const [a, b] = await Promise.all([workspace(), workspace()]);
    const first = await create(a.orgId, tokenFor(a.users.owner), { email, role: 'viewer', daily_limit: 3 });
    const second = await create(b.orgId, tokenFor(b.users.owner), { email, role: 'owner' });
    await revoke(a.orgId, tokenFor(a.users.owner), first.body.id);
    const third = await create(a.orgId, tokenFor(a.users.owner), { email, role: 'editor', spending_limit: 9 });
    const counter = countRoundTrips(db());

    // Act
    const me = await call(getMe, { url: '/me', token: personToken(a.users.viewer, email.toUpperCase()) }).finally(() => counter.stop());

    // Assess
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
    expect(me.body.invitations).toEqual([
      {
        id: third.body.id,
        organization_id: a.orgId,
        organization_name: a.orgId,
        role: 'editor',
        spending_limit: 9,
        daily_limit: null,
        invited_by: a.users.owner,
        expires_at: third.body.expires_at,
      },
      {
        id: second.body.id,
        organization_id: b.orgId,
        organization_name: b.orgId,
        role: 'owner',
        spending_limit: null,
        daily_limit: null,
        invited_by: b.users.owner,
        expires_at: second.body.expires_at,
      },
    ]);
    // The memberships and the invitations together, then the spend counters.
    expect(counter.log.sequential).toBe(2);
    const unverified = await call(getMe, { url: '/me', token: personToken(uniqueId('u_'), email, false) });
    expect([unverified.body.email, unverified.body.invitations]).toEqual([null, []]);
  });
});

// ---------------------------------------------------------------- nothing stored but hashes

describe('the invitation items', () => {
  it('hold no token: only the SHA-256 of the live one, gone once accepted', async () => {
    const { orgId, email, invitation, token } = await invited();
    await accept(personToken(uniqueId('u_'), email), { token });
    const items = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': orgKey(orgId).PK },
        ConsistentRead: true,
      }),
    );
    expect(JSON.stringify(items.Items)).not.toContain(token);
    expect((await invitationItem(orgId, invitation.id))?.token_hash).toBeUndefined();
  });
});
