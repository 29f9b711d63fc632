/**
 * GET /me, and an organization's settings: read by members (GET), changed by owners (PATCH),
 * taking effect at once on runs and the listing; a non-member's 404 is the unknown
 * organization's, byte for byte apart from the request id.
 */
import { describe, expect, it } from 'vitest';
import { handler as getMe } from '../../functions/get-me.ts';
import { handler as getOrganization } from '../../functions/get-organization.ts';
import { handler as listOperations } from '../../functions/list-social-operations.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { handler as updateOrganization } from '../../functions/update-organization.ts';
import { db } from '../../lib/db/client.ts';
import { addMembership } from '../../lib/db/memberships.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { chargeDirectly } from '../support/charges.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const settingsUrl = (orgId: string) => `/organizations/${orgId}`;
const patch = (orgId: string, user: string, body: unknown) =>
  call(updateOrganization, { method: 'PATCH', url: settingsUrl(orgId), token: tokenFor(user), body });

describe('GET /me', () => {
  it('lists every organization of the caller with its role, its limits and its spend there, ordered by id, in two round trips', async () => {
    // Prepare: a user in two organizations, with different roles and limits, who spent in one.
    const a = await workspace();
    const b = await workspace({ credits: 10 });
    const user = uniqueId('user_');
    await addMembership({ orgId: b.orgId, userId: user, role: 'editor', spendingLimit: 50, dailyLimit: 5 });
    await addMembership({ orgId: a.orgId, userId: user, role: 'viewer' });
    await chargeDirectly({ orgId: b.orgId, userId: user, cost: 2 });
    const counter = countRoundTrips(db());

    // Act
    const answer = await call(getMe, { url: '/me', token: tokenFor(user) }).finally(() => counter.stop());

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      user_id: user,
      token_kind: 'user',
      api_key_id: null,
      email: null,
      organizations: [
        { organization_id: a.orgId, role: 'viewer', spending_limit: null, spent: 0, daily_limit: null, spent_today: 0 },
        { organization_id: b.orgId, role: 'editor', spending_limit: 50, spent: 2, daily_limit: 5, spent_today: 2 },
      ].sort((x, y) => (x.organization_id < y.organization_id ? -1 : 1)),
      invitations: [],
    });
    // The memberships, then their spend counters.
    expect(counter.log.sequential).toBe(2);
  });

  it('answers a user of no organization with an empty list, and no token with 401', async () => {
    const lonely = await call(getMe, { url: '/me', token: tokenFor(uniqueId('user_')) });
    const anonymous = await call(getMe, { url: '/me' });
    expect(lonely.body.organizations).toEqual([]);
    expect(anonymous.status).toBe(401);
  });
});

describe('GET /organizations/{organization_id}', () => {
  it.each(['owner', 'editor', 'viewer'] as const)('shows the settings to a %s', async (role) => {
    const { orgId, users } = await workspace({ networks: ['x', 'tiktok'], spendingLimit: 40 });
    const answer = await call(getOrganization, { url: settingsUrl(orgId), token: tokenFor(users[role]) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      organization_id: orgId,
      networks: ['x', 'tiktok'],
      spending_limit: 40,
      spent: 0,
      daily_limit: null,
      spent_today: 0,
      confirm_above: null,
      created_at: expect.any(String),
    });
  });

  it("answers a non-member with the unknown organization's 404, byte for byte apart from the request id", async () => {
    const { orgId } = await workspace();
    const stranger = tokenFor(uniqueId('stranger_'));
    const member = await call(getOrganization, { url: settingsUrl(orgId), token: stranger });
    const unknown = await call(getOrganization, { url: settingsUrl('org_never_was'), token: stranger });
    expect(member.status).toBe(404);
    expect(member.raw.replace(member.headers['x-request-id']!, '')).toBe(unknown.raw.replace(unknown.headers['x-request-id']!, ''));
  });
});

describe('PATCH /organizations/{organization_id}', () => {
  it('lets an owner set the spending limit, and the next run is held to it', async () => {
    const { orgId, users } = await workspace({ credits: 10 });

    const changed = await patch(orgId, users.owner, { spending_limit: 0 });
    const run = await call(runOperation, {
      method: 'POST',
      url: runUrl('tiktok_profile', orgId),
      token: tokenFor(users.editor),
      body: { handle: 'nasa' },
    });
    const cleared = await patch(orgId, users.owner, { spending_limit: null });
    const again = await call(runOperation, {
      method: 'POST',
      url: runUrl('tiktok_profile', orgId),
      token: tokenFor(users.editor),
      body: { handle: 'nasa' },
    });

    expect(changed).toMatchObject({ status: 200, body: { organization_id: orgId, spending_limit: 0 } });
    expect(run).toMatchObject({
      status: 402,
      body: { code: 'spending_limit_exceeded', data: { scope: 'organization', spending_limit: 0 } },
    });
    expect(cleared.body.spending_limit).toBeNull();
    expect(again.status).toBe(200);
    // The consent threshold of MCP calls (docs/mcp.md): set, then cleared; REST runs are not held to it.
    expect((await patch(orgId, users.owner, { confirm_above: 2 })).body.confirm_above).toBe(2);
    expect((await patch(orgId, users.owner, { confirm_above: null })).body.confirm_above).toBeNull();
  });

  it('lets an owner change the networks, and the listing follows at once', async () => {
    const { orgId, users } = await workspace();

    const changed = await patch(orgId, users.owner, { networks: ['reddit', 'reddit'] });
    const listed = await call(listOperations, { url: `/social/operations?organization_id=${orgId}`, token: tokenFor(users.viewer) });

    expect(changed.body.networks).toEqual(['reddit']);
    const networks = new Set(listed.body.operations.map((operation: { network?: string }) => operation.network ?? 'none'));
    expect(networks).toEqual(new Set(['reddit', 'none']));
  });

  it('refuses editors and viewers (403) and non-members (404), changing nothing', async () => {
    const { orgId, users } = await workspace({ spendingLimit: 5 });
    const answers = await Promise.all([
      patch(orgId, users.editor, { spending_limit: 1 }),
      patch(orgId, users.viewer, { spending_limit: 1 }),
      patch(orgId, uniqueId('stranger_'), { spending_limit: 1 }),
    ]);
    expect(answers.map((answer) => [answer.status, answer.body.code])).toEqual([
      [403, 'forbidden'],
      [403, 'forbidden'],
      [404, 'not_found'],
    ]);
    expect((await call(getOrganization, { url: settingsUrl(orgId), token: tokenFor(users.owner) })).body.spending_limit).toBe(5);
  });

  it.each([
    [{}, ['body'], 'must change spending_limit, daily_limit, confirm_above or networks (one or more)'],
    [{ spending_limit: -1 }, ['body', 'spending_limit'], 'must be a whole number of credits, 0 or more, or null for none'],
    [{ spending_limit: 1.5 }, ['body', 'spending_limit'], undefined],
    [{ networks: [] }, ['body', 'networks'], 'must name at least one network'],
    [{ networks: ['myspace'] }, ['body', 'networks', 0], undefined],
    [{ name: 'Acme' }, ['body'], undefined],
  ])('refuses %j with 400 naming %j', async (body, path, message) => {
    const { orgId, users } = await workspace();
    const answer = await patch(orgId, users.owner, body);
    expect(answer.status).toBe(400);
    expect(withoutRequestId(answer.body)).toMatchObject({ code: 'validation_failed' });
    expect(answer.body.data.issues[0].path).toEqual(path);
    if (message) expect(answer.body.data.issues[0].message).toBe(message);
  });
});
