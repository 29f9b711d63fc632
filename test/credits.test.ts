/**
 * GET /organizations/{organization_id}/credits: the balance and this month's spend against the
 * limits, exactly as DESIGN.md shapes it, after grants, runs, refunds and limit changes; any
 * member, never 402, one DynamoDB round trip.
 */
import { describe, expect, it } from 'vitest';
import { handler } from '../functions/get-credits.ts';
import { handler as run } from '../functions/run-social-operation.ts';
import { readCreditsOverview } from '../lib/billing/balance.ts';
import { grantCredits } from '../lib/billing/grants.ts';
import { refundRun } from '../lib/billing/paid-run.ts';
import { db } from '../lib/db/client.ts';
import { setMemberSpendingLimit } from '../lib/db/memberships.ts';
import { countRoundTrips } from '../lib/db/round-trips.ts';
import { chargeDirectly } from './support/charges.ts';
import { TEST_OPERATOR, uniqueId, workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { runUrl } from './support/social.ts';
import { tokenFor } from './support/tokens.ts';

const creditsUrl = (orgId: string) => `/organizations/${orgId}/credits`;
const thisMonth = () => {
  const now = new Date();
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
  };
};
const profile = (orgId: string, user: string) =>
  call(run, { method: 'POST', url: runUrl('instagram_profile', orgId), token: tokenFor(user), body: { handle: 'natgeo' } });

describe('GET /organizations/{organization_id}/credits', () => {
  it('shows the balance and the month’s spend after grants, runs, refunds and a limit change', async () => {
    // Prepare: 100 credits, an organization limit of 50; the editor runs twice (1 credit each),
    // the owner runs once and is refunded once, 25 credits are granted, the editor gets a limit.
    const { orgId, users } = await workspace({ credits: 100, spendingLimit: 50 });
    expect((await profile(orgId, users.editor)).status).toBe(200);
    expect((await profile(orgId, users.editor)).status).toBe(200);
    expect((await profile(orgId, users.owner)).status).toBe(200);
    const refunded = await chargeDirectly({
      orgId,
      userId: users.owner,
      operation: 'linkedin_search_people',
      network: 'linkedin',
      cost: 3,
    });
    expect(await refundRun(refunded, 'the upstream call failed')).toBe('refunded');
    await grantCredits(orgId, 25);
    await setMemberSpendingLimit(orgId, users.editor, 20, TEST_OPERATOR);

    // Act
    const asEditor = await call(handler, { url: creditsUrl(orgId), token: tokenFor(users.editor) });
    const asOwner = await call(handler, { url: creditsUrl(orgId), token: tokenFor(users.owner) });

    // Assess: 100 - 3 runs + 25 = 122; the refunded charge counts neither in balance nor spend.
    expect(asEditor.status).toBe(200);
    expect(asEditor.headers['content-type']).toBe('application/json');
    expect(asEditor.body).toEqual({
      organization_id: orgId,
      balance: 122,
      currency: 'credits',
      period: thisMonth(),
      organization: { spending_limit: 50, spent: 3, daily_limit: null, spent_today: 3 },
      member: { role: 'editor', spending_limit: 20, spent: 2, daily_limit: null, spent_today: 2 },
      confirm_above: null,
    });
    expect(asOwner.body).toMatchObject({ balance: 122, member: { role: 'owner', spending_limit: null, spent: 1, spent_today: 1 } });
  });

  it('is readable by a viewer, with limits null when unset and nothing spent', async () => {
    const { orgId, users } = await workspace({ credits: 7 });
    const answer = await call(handler, { url: creditsUrl(orgId), token: tokenFor(users.viewer) });
    expect(answer).toMatchObject({ status: 200 });
    expect(answer.body).toEqual({
      organization_id: orgId,
      balance: 7,
      currency: 'credits',
      period: thisMonth(),
      organization: { spending_limit: null, spent: 0, daily_limit: null, spent_today: 0 },
      member: { role: 'viewer', spending_limit: null, spent: 0, daily_limit: null, spent_today: 0 },
      confirm_above: null,
    });
  });

  it('counts the spend of the month asked for, with that month as the period', async () => {
    const { orgId, users } = await workspace({ credits: 10, spendingLimit: 5 });
    await chargeDirectly({
      orgId,
      userId: users.editor,
      operation: 'instagram_profile',
      network: 'instagram',
      now: new Date('2025-01-31T23:59:59.900Z'),
    });

    const january = await readCreditsOverview({ userId: users.editor }, orgId, new Date('2025-01-15T12:00:00Z'));
    const february = await readCreditsOverview({ userId: users.editor }, orgId, new Date('2025-02-01T00:00:00Z'));

    expect(january).toMatchObject({
      period: { start: '2025-01-01T00:00:00.000Z', end: '2025-02-01T00:00:00.000Z' },
      organization: { spent: 1 },
      member: { spent: 1 },
    });
    expect(february).toMatchObject({
      period: { start: '2025-02-01T00:00:00.000Z', end: '2025-03-01T00:00:00.000Z' },
      organization: { spent: 0 },
      member: { spent: 0 },
    });
  });

  it('is never refused with 402, even with no credits', async () => {
    const { orgId, users } = await workspace({ credits: 0, spendingLimit: 0 });
    const answer = await call(handler, { url: creditsUrl(orgId), token: tokenFor(users.editor) });
    expect(answer.status).toBe(200);
    expect(answer.body.balance).toBe(0);
  });

  it('answers a non-member and an unknown organization with the same 404', async () => {
    const { orgId } = await workspace();
    const stranger = tokenFor(uniqueId('stranger_'));
    const notMember = await call(handler, { url: creditsUrl(orgId), token: stranger });
    const noSuchOrg = await call(handler, { url: creditsUrl(uniqueId('org_')), token: stranger });
    expect(notMember.status).toBe(404);
    expect(withoutRequestId(notMember.body)).toEqual({ code: 'not_found', message: 'no such resource' });
    expect(noSuchOrg.status).toBe(404);
    expect(withoutRequestId(noSuchOrg.body)).toEqual(withoutRequestId(notMember.body));
  });

  it('refuses an organization id without the org_ prefix with 400', async () => {
    const answer = await call(handler, { url: creditsUrl('acme'), token: tokenFor(uniqueId('u_')) });
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues).toEqual([
      {
        path: ['path', 'organization_id'],
        code: 'invalid_format',
        message: 'must start with "org_" followed by 1 to 64 letters, digits, "_" or "-"',
      },
    ]);
  });

  it('takes one DynamoDB round trip: the rate-limit counter, the organization, the membership and both spend counters', async () => {
    const { orgId, users } = await workspace({ credits: 3 });
    const counter = countRoundTrips(db());
    try {
      const answer = await call(handler, { url: creditsUrl(orgId), token: tokenFor(users.owner) });
      expect(answer.status).toBe(200);
      expect(counter.log.sequential).toBe(1);
      expect([...counter.log.commands].sort()).toEqual([
        'GetItemCommand',
        'GetItemCommand',
        'GetItemCommand',
        'GetItemCommand',
        'UpdateItemCommand',
      ]);
    } finally {
      counter.stop();
    }
  });
});
