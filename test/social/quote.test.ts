/**
 * POST /social/{operation}/quote: what a run would cost and answer now, with the run's own
 * rules, in one round trip; never charged, never calling the provider, never 402.
 */
import { describe, expect, it, vi } from 'vitest';
import { handler as quoteHandler } from '../../functions/quote-social-operation.ts';
import { handler as runHandler } from '../../functions/run-social-operation.ts';
import { db } from '../../lib/db/client.ts';
import { setMemberSpendingLimit } from '../../lib/db/memberships.ts';
import { getOrganization, setNetworks } from '../../lib/db/organizations.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { resetHealthSettings } from '../../lib/social/health/settings.ts';
import { forgetHealth, noteAttempts } from '../../lib/social/health/view.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const quote = (orgId: string, user: string, operation = 'tiktok_profile', body: unknown = { handle: 'nasa' }, headers = {}) =>
  call(quoteHandler, { method: 'POST', url: `/social/${operation}/quote?organization_id=${orgId}`, token: tokenFor(user), body, headers });
const run = (orgId: string, user: string, operation = 'tiktok_profile', body: unknown = { handle: 'nasa' }) =>
  call(runHandler, { method: 'POST', url: runUrl(operation, orgId), token: tokenFor(user), body });

describe('POST /social/{operation}/quote', () => {
  it('says what a run would cost and that it would run, in one round trip, charging nothing and calling no provider', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 7 });
    const spy = vi.spyOn(sampleProvider, 'run');
    const counter = countRoundTrips(db());

    // Act
    const answer = await quote(orgId, users.editor, 'linkedin_search_people', { query: 'nasa engineers' }).finally(() => counter.stop());

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ operation: 'linkedin_search_people', cost: 3, balance: 7, allowed: true, refusal: null, cached: false });
    expect(counter.log.sequential).toBe(1);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    expect((await getOrganization(orgId))?.credits).toBe(7);
    expect((await eventsOf(orgId)).map((event) => event.type)).toEqual(['credits.granted']);
  });

  it('answers 200 with the refusal a run would answer: a viewer, a disabled network', async () => {
    const { orgId, users } = await workspace({ credits: 7 });
    const viewer = await quote(orgId, users.viewer);
    const viewerRun = await run(orgId, users.viewer);
    await setNetworks(orgId, ['x'], TEST_OPERATOR);
    const disabled = await quote(orgId, users.editor);
    const disabledRun = await run(orgId, users.editor);

    expect(viewer.body).toMatchObject({ allowed: false, cost: 1, balance: 7 });
    expect(viewer.body.refusal).toEqual({ ...withoutRequestId(viewerRun.body), data: viewerRun.body.data ?? {} });
    expect(disabled.body).toMatchObject({ allowed: false });
    expect(disabled.body.refusal).toEqual({ ...withoutRequestId(disabledRun.body), data: disabledRun.body.data ?? {} });
  });

  it('answers 200 (never 402) with the 402 a run would answer: the balance, then a limit partly spent', async () => {
    // Prepare: no credits; then credits, an organization limit of 2 already spent by two runs.
    const broke = await workspace({ credits: 0 });
    const limited = await workspace({ credits: 10, spendingLimit: 2 });
    await run(limited.orgId, limited.users.editor);
    await run(limited.orgId, limited.users.editor);

    // Act
    const noCredits = await quote(broke.orgId, broke.users.editor);
    const noCreditsRun = await run(broke.orgId, broke.users.editor);
    const overLimit = await quote(limited.orgId, limited.users.editor);
    const overLimitRun = await run(limited.orgId, limited.users.editor);

    // Assess
    expect(noCredits.status).toBe(200);
    expect(noCreditsRun.status).toBe(402);
    expect(noCredits.body).toEqual({
      operation: 'tiktok_profile',
      cost: 1,
      balance: 0,
      allowed: false,
      refusal: withoutRequestId(noCreditsRun.body),
      cached: false,
    });
    expect(overLimitRun.status).toBe(402);
    expect(overLimit.body.refusal).toEqual(withoutRequestId(overLimitRun.body));
    expect(overLimit.body.refusal.data).toMatchObject({ scope: 'organization', spending_limit: 2, spent: 2, cost: 1 });
  });

  it("reports a member's limit with its scope", async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    await setMemberSpendingLimit(orgId, users.editor, 1, TEST_OPERATOR);
    await run(orgId, users.editor);
    const answer = await quote(orgId, users.editor);
    expect(answer.body.refusal).toMatchObject({ code: 'spending_limit_exceeded', data: { scope: 'member', spending_limit: 1, spent: 1 } });
  });

  it('quotes the cached cost when a cached result would answer (Cache-Control: max-age), even with no credits', async () => {
    const { orgId, users } = await workspace({ credits: 1 });
    await run(orgId, users.editor);
    const cached = await quote(orgId, users.editor, 'tiktok_profile', { handle: 'nasa' }, { 'cache-control': 'max-age=3600' });
    const fresh = await quote(orgId, users.editor);
    expect(cached.body).toEqual({ operation: 'tiktok_profile', cost: 0, balance: 0, allowed: true, refusal: null, cached: true });
    expect(fresh.body).toMatchObject({ cost: 1, allowed: false, refusal: { code: 'insufficient_credits' }, cached: false });
    // The refusal is the run's body: it names where an owner buys credits, as the run's does.
    expect(fresh.body.refusal.data.billing_url).toBe(`http://127.0.0.1/console?organization_id=${orgId}#billing`);
  });

  it("reports the run's 503 operation_unavailable while every provider's breaker is open, in one round trip; a cached result still answers", async () => {
    // Prepare: this instance saw the sample provider fail on tiktok_profile, enough to trip its breaker
    // whatever this file's earlier runs of it counted.
    const { orgId, users } = await workspace({ credits: 5 });
    await run(orgId, users.editor);
    const before = process.env.HEALTH_BREAKER_MIN_FAILURES;
    process.env.HEALTH_BREAKER_MIN_FAILURES = '1';
    resetHealthSettings();
    try {
      noteAttempts(
        'tiktok_profile',
        Array.from({ length: 100 }, () => ({ provider: 'sample', ok: false, ms: 5 })),
        Date.now(),
      );
      const counter = countRoundTrips(db());

      // Act
      const quoted = await quote(orgId, users.editor).finally(() => counter.stop());
      const cached = await quote(orgId, users.editor, 'tiktok_profile', { handle: 'nasa' }, { 'cache-control': 'max-age=3600' });
      const ran = await run(orgId, users.editor);

      // Assess: the run's own 503 body, read from the breakers this instance keeps, and nothing charged by either.
      expect(ran.status).toBe(503);
      expect(quoted.body).toMatchObject({ operation: 'tiktok_profile', cost: 1, balance: 4, allowed: false, cached: false });
      expect(quoted.body.refusal).toEqual({
        code: 'operation_unavailable',
        message: ran.body.message,
        data: { operation: 'tiktok_profile', providers: ['sample'], retry_after: expect.any(Number) },
      });
      expect(quoted.body.refusal.data.retry_after).toBeLessThanOrEqual(ran.body.data.retry_after);
      expect(counter.log.sequential).toBe(1);
      expect(cached.body).toMatchObject({ cost: 0, allowed: true, refusal: null, cached: true });
      expect((await getOrganization(orgId))?.credits).toBe(4);
    } finally {
      process.env.HEALTH_BREAKER_MIN_FAILURES = before;
      resetHealthSettings();
      forgetHealth();
    }
  });

  it('refuses what a run refuses before reading: invalid input (400, same issues), an unknown operation (404), a non-member (403)', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const stranger = 'user_stranger_quote';
    const pairs = [
      [
        await quote(orgId, users.editor, 'tiktok_profile', { handle: '' }),
        await run(orgId, users.editor, 'tiktok_profile', { handle: '' }),
      ],
      [await quote(orgId, users.editor, 'tiktok_profil'), await run(orgId, users.editor, 'tiktok_profil')],
      [await quote(orgId, stranger), await run(orgId, stranger)],
    ];
    expect(pairs.map(([quoted]) => quoted?.status)).toEqual([400, 404, 403]);
    for (const [quoted, ran] of pairs) expect(withoutRequestId(quoted?.body)).toEqual(withoutRequestId(ran?.body));
    expect((await getOrganization(orgId))?.credits).toBe(5);
  });

  it('refuses a Cache-Control that is not max-age=<0-86400> with 400 naming the header', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const answer = await quote(orgId, users.editor, 'tiktok_profile', { handle: 'nasa' }, { 'cache-control': 'max-age=90000' });
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues).toEqual([expect.objectContaining({ path: ['header', 'cache-control'] })]);
  });
});
