/**
 * The deployed configuration of three providers against their stubs on 127.0.0.1
 * (ScrapeCreators, then TikHub, then Facebook Scraper3 for facebook_search): TikHub's
 * operations on its fixtures, failover when the primary fails (charged once, refunded when both
 * fail), the breakers, the 503, and the status page, with the health counted by the table stream
 * as deployed. Windows and breakers are short through their settings, never by sleeping; the
 * 200-run drill runs in full under `npm run test:long` (a sample everyday).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployedProviders } from '../support/deployed-providers.ts';
import { atDepth } from '../support/depth.ts';
import { vendorError } from '../support/scrapecreators-stub.ts';

const providers = await startDeployedProviders();
const { sc, tikhub, fbs3 } = providers;
Object.assign(process.env, {
  ...providers.environment,
  PROVIDER_TIMEOUT_MS: '400',
  HEALTH_BUCKET_SECONDS: '1',
  HEALTH_BREAKER_WINDOW_SECONDS: '60',
  HEALTH_BREAKER_MIN_FAILURES: '5',
  HEALTH_BREAKER_OPEN_SECONDS: '30',
  HEALTH_REFRESH_SECONDS: '0',
});
const run = await import('../../functions/run-social-operation.ts');
const status = await import('../../functions/get-social-status.ts');
const quote = await import('../../functions/quote-social-operation.ts');
const list = await import('../../functions/list-social-operations.ts');
const { runSocialOperation } = await import('../../lib/social/run.ts');
const { socialStatus } = await import('../../lib/social/health/status.ts');
const { forgetHealth } = await import('../../lib/social/health/view.ts');
const { getOrganization } = await import('../../lib/db/organizations.ts');
const { startTableStream } = await import('../support/table-stream.ts');
const { workspace } = await import('../support/fixtures.ts');
const { call } = await import('../support/http.ts');
const { tokenFor } = await import('../support/tokens.ts');
const { eventsOf, runUrl, VALID_INPUTS } = await import('../support/social.ts');

const stream = await startTableStream();
afterAll(async () => {
  await stream.stop();
  await providers.close();
});
beforeAll(() => forgetHealth());

const runAs = (orgId: string, user: string, operation: string, body: unknown = VALID_INPUTS[operation]) =>
  call(run.handler, { method: 'POST', url: runUrl(operation, orgId), token: tokenFor(user), body });

const operationOf = (page: Awaited<ReturnType<typeof socialStatus>>, name: string) =>
  page.operations.find((entry) => entry.operation === name);

describe('TikHub on its fixtures, through the run path', () => {
  // Which operations TikHub serves: test/social/tikhub.unit.test.ts.
  // What TikHub's endpoints take: followers (not following), reposters (not quoters), a named country.
  const INPUTS: Record<string, unknown> = {
    x_user_connections: { handle: 'nasa', kind: 'followers' },
    x_tweet_engagers: { url: 'https://x.com/nasa/status/1834567890123456789', type: 'reposters' },
    x_trends: { region: 'US' },
  };

  it.each([
    'x_search',
    'x_post_comments',
    'x_user_connections',
    'x_tweet_engagers',
    'x_trends',
  ])('%s: 200 from TikHub, the output schema passed, one credit', async (operation) => {
    const { orgId, users } = await workspace({ credits: 5 });
    const answer = await runAs(orgId, users.editor, operation, INPUTS[operation] ?? VALID_INPUTS[operation]);
    expect(answer.status).toBe(200);
    expect(answer.headers['social-provider']).toBe('TikHub');
    expect(answer.headers['credits-charged']).toBe('1');
    expect(answer.body.items.length).toBeGreaterThan(0);
  });

  it('reads the trends as documented: names, ranks and "8.27M posts" as a count', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const answer = await runAs(orgId, users.editor, 'x_trends', { region: 'US', count: 2 });
    expect(tikhub.requests.at(-1)).toEqual({ path: '/api/v1/twitter/web/fetch_trending', query: { country: 'UnitedStates' } });
    expect(answer.body.items).toEqual([
      {
        network: 'x',
        kind: 'topic',
        name: '#Artemis',
        url: 'https://x.com/search?q=%23Artemis',
        rank: 1,
        rank_change: null,
        is_new: null,
        post_count: 8_270_000,
        view_count: null,
      },
      {
        network: 'x',
        kind: 'topic',
        name: 'Liftoff',
        url: 'https://x.com/search?q=Liftoff',
        rank: 2,
        rank_change: null,
        is_new: null,
        post_count: 12_500,
        view_count: null,
      },
    ]);
  });

  it('an answer of another shape is a failure, refunded: never half-read', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    tikhub.always({ kind: 'garbage' });
    try {
      const answer = await runAs(orgId, users.editor, 'x_trends', { region: 'US', count: 2 });
      expect([answer.status, answer.body.code]).toEqual([500, 'upstream_failed']);
      expect((await getOrganization(orgId))?.credits).toBe(5);
    } finally {
      tikhub.always({ kind: 'fixture' });
    }
  });
});

describe('Facebook Scraper3 through the run path: facebook_search, and facebook_post as failover', () => {
  it('200 from Facebook Scraper3, saying so, one credit; its failure is refunded (no provider to fail over to)', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const answer = await runAs(orgId, users.editor, 'facebook_search', { query: 'artemis', type: 'videos' });
    expect([answer.status, answer.headers['social-provider'], answer.headers['credits-charged']]).toEqual([200, 'Facebook Scraper3', '1']);
    expect(answer.body.items.map((item: { id: string }) => item.id)).toEqual(['859693417025820', '2209384756']);

    fbs3.always({ kind: 'status', status: 429, body: '{"message":"Too many requests"}' });
    try {
      const failed = await runAs(orgId, users.editor, 'facebook_search', { query: 'artemis' });
      expect([failed.status, failed.body.code]).toEqual([500, 'upstream_failed']);
    } finally {
      fbs3.always({ kind: 'fixture' });
    }
    expect((await getOrganization(orgId))?.credits).toBe(4);
  });

  it("facebook_post_comments: each page's cursor names its provider, and the next page goes back to it alone", async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const url = 'https://www.facebook.com/nasa/posts/1431426125696772';
    // ScrapeCreators answers the first page of one walk: its cursor is tagged with it.
    const onSc = await runAs(orgId, users.editor, 'facebook_post_comments', { url });
    expect([onSc.status, onSc.headers['social-provider']]).toEqual([200, 'ScrapeCreators']);
    expect(onSc.body.next_cursor).toMatch(/^~http~./);
    // It fails on another walk's first page: Facebook Scraper3 answers, and its cursor says so.
    sc.next({ kind: 'status', status: 500, body: vendorError(500, 'server_error', 'down') });
    const onFbs3 = await runAs(orgId, users.editor, 'facebook_post_comments', { url });
    expect([onFbs3.status, onFbs3.headers['social-provider']]).toEqual([200, 'Facebook Scraper3']);
    expect(onFbs3.body.next_cursor).toBe('~facebook_scraper3~1431426125696772:MTcyNjEwMDYwMDoy');
    // That walk's next page goes to Facebook Scraper3 alone, with its own cursor, although ScrapeCreators works again.
    const scCalls = sc.requests.length;
    const next = await runAs(orgId, users.editor, 'facebook_post_comments', { url, cursor: onFbs3.body.next_cursor });
    expect([next.status, next.headers['social-provider']]).toEqual([200, 'Facebook Scraper3']);
    expect(fbs3.requests.at(-1)).toEqual({ path: '/post/comments', query: { post_id: '1431426125696772', cursor: 'MTcyNjEwMDYwMDoy' } });
    expect(sc.requests.length).toBe(scCalls);
    expect((await getOrganization(orgId))?.credits).toBe(2);
  });

  it("a walk's provider failing: its pages are refunded, not failed over; its breaker open, 503 and nothing charged", async () => {
    forgetHealth();
    const { orgId, users } = await workspace({ credits: 10 });
    const cursor = '~facebook_scraper3~1431426125696772:MTcyNjEwMDYwMDoy';
    const scCalls = sc.requests.length;
    fbs3.always({ kind: 'status', status: 503, body: '{"message":"down"}' });
    try {
      for (let i = 0; i < 5; i += 1) {
        const failed = await runAs(orgId, users.editor, 'facebook_post_comments', {
          url: 'https://www.facebook.com/nasa/posts/1431426125696772',
          cursor,
        });
        expect([failed.status, failed.body.code]).toEqual([500, 'upstream_failed']);
      }
      const skipped = await runAs(orgId, users.editor, 'facebook_post_comments', {
        url: 'https://www.facebook.com/nasa/posts/1431426125696772',
        cursor,
      });
      expect([skipped.status, skipped.body.code]).toEqual([503, 'operation_unavailable']);
      expect(skipped.body.data).toMatchObject({ operation: 'facebook_post_comments', providers: ['Facebook Scraper3'] });
      // A quote says the same of that walk's next page, and that a new walk would run (on ScrapeCreators).
      const quoteOf = (body: unknown) =>
        call(quote.handler, {
          method: 'POST',
          url: `/social/facebook_post_comments/quote?organization_id=${orgId}`,
          token: tokenFor(users.editor),
          body,
        });
      const url = 'https://www.facebook.com/nasa/posts/1431426125696772';
      expect((await quoteOf({ url, cursor })).body).toMatchObject({ allowed: false, refusal: { code: 'operation_unavailable' } });
      expect((await quoteOf({ url })).body).toMatchObject({ allowed: true });
    } finally {
      fbs3.always({ kind: 'fixture' });
      forgetHealth();
    }
    // ScrapeCreators was never handed the other vendor's cursor.
    expect(sc.requests.length).toBe(scCalls);
    expect((await getOrganization(orgId))?.credits).toBe(10);
    expect((await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged')).toHaveLength(5);
  });

  it("facebook_post: ScrapeCreators' failure fails over to it, one charge", async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    sc.next({ kind: 'status', status: 502, body: vendorError(502, 'bad_gateway', 'down') });
    const answer = await runAs(orgId, users.editor, 'facebook_post', { url: 'https://www.facebook.com/nasa/posts/1431426125696772' });
    expect([answer.status, answer.headers['social-provider'], answer.headers['credits-charged']]).toEqual([200, 'Facebook Scraper3', '1']);
    expect(fbs3.requests.at(-1)).toEqual({ path: '/post', query: { post_id: '1431426125696772' } });
    expect((await getOrganization(orgId))?.credits).toBe(4);
  });
});

describe('failover between ScrapeCreators and TikHub', () => {
  it('answers from the first provider while it works, saying which', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const answer = await runAs(orgId, users.editor, 'x_profile', { handle: 'nasa' });
    expect([answer.status, answer.headers['social-provider']]).toEqual([200, 'ScrapeCreators']);
  });

  it.each([
    ['a 500', { kind: 'status', status: 500, body: vendorError(500, 'server_error', 'boom') }],
    ['a 429', { kind: 'status', status: 429, body: vendorError(429, 'rate_limited', 'slow down') }],
    ['a body that is not JSON', { kind: 'status', status: 200, body: '<html>' }],
    ['no answer (the timeout)', { kind: 'hang' }],
  ] as const)('fails over on %s: one charge, one result, from TikHub, within the deadline', async (_case, behaviour) => {
    const { orgId, users } = await workspace({ credits: 5 });
    sc.next(behaviour);
    const startedAt = Date.now();
    const answer = await runAs(orgId, users.editor, 'x_profile', { handle: 'nasa' });
    expect([answer.status, answer.headers['social-provider'], answer.headers['credits-charged']]).toEqual([200, 'TikHub', '1']);
    expect(Date.now() - startedAt).toBeLessThan(2 * 400 + 3_000);
    expect((await eventsOf(orgId)).map((event) => event.type)).toEqual(['credits.granted', 'social_operation.charged']);
  });

  it('"not found" from the first provider is the answer: no failover, refunded as today', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const before = tikhub.requests.length;
    sc.next({ kind: 'status', status: 404, body: vendorError(404, 'not_found', 'no such account') });
    const answer = await runAs(orgId, users.editor, 'x_profile', { handle: 'nasa' });
    expect([answer.status, answer.body.code]).toEqual([404, 'not_found']);
    expect(tikhub.requests.length).toBe(before);
    expect((await getOrganization(orgId))?.credits).toBe(5);
  });

  it('both failing: 500 upstream_failed, charged once and refunded once', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    sc.next({ kind: 'status', status: 503, body: vendorError(503, 'unavailable', 'down') });
    tikhub.always({ kind: 'status', status: 502, body: '{"code":502,"message":"bad gateway"}' });
    try {
      const answer = await runAs(orgId, users.editor, 'x_profile', { handle: 'nasa' });
      expect([answer.status, answer.body.code]).toEqual([500, 'upstream_failed']);
    } finally {
      tikhub.always({ kind: 'fixture' });
    }
    expect((await eventsOf(orgId)).map((event) => event.type)).toEqual([
      'credits.granted',
      'social_operation.charged',
      'social_operation.refunded',
    ]);
    expect((await getOrganization(orgId))?.credits).toBe(5);
  });
});

describe('the primary down for x_profile: the drill', () => {
  const RUNS = atDepth(12, 200);

  it(
    `${RUNS} runs: ≥ 99 % succeed through TikHub, each failed run refunded, the status says so, then it recovers`,
    async () => {
      forgetHealth();
      // One more for the probe that closes the breaker.
      const { orgId, users } = await workspace({ credits: RUNS + 1 });
      sc.always({ kind: 'status', status: 500, body: vendorError(500, 'server_error', 'down') });
      const scCallsBefore = sc.requests.length;
      let served = 0;
      let failed = 0;
      for (let i = 0; i < RUNS; i += 1) {
        const answer = await runAs(orgId, users.editor, 'x_profile', { handle: 'nasa' });
        if (answer.status === 200 && answer.headers['social-provider'] === 'TikHub') served += 1;
        else failed += 1;
      }
      expect(served / RUNS).toBeGreaterThanOrEqual(0.99);
      // The breaker opened by its 5th failure (or was open already from the cases above): ScrapeCreators was not called again.
      expect(sc.requests.length - scCallsBefore).toBeLessThanOrEqual(5);
      const events = await eventsOf(orgId);
      expect(events.filter((event) => event.type === 'social_operation.charged')).toHaveLength(RUNS);
      expect(events.filter((event) => event.type === 'social_operation.refunded')).toHaveLength(failed);
      expect((await getOrganization(orgId))?.credits).toBe(RUNS + 1 - served);

      // The stream counts the runs; the page says partial_outage (TikHub serves it), within the same minute.
      await stream.catchUp();
      status.forgetStatusPage();
      const page = await call(status.handler, { url: '/social/status' });
      expect(page.headers['cache-control']).toBe('public, max-age=30');
      expect(page.body.operations).toHaveLength(52);
      const xProfile = page.body.operations.find((entry: { operation: string }) => entry.operation === 'x_profile');
      expect(xProfile.status).toBe('partial_outage');
      expect(xProfile.providers.map((provider: { name: string }) => provider.name)).toEqual(['ScrapeCreators', 'TikHub']);
      expect(xProfile.providers[0].status).toBe('major_outage');
      // TikHub answered every run of the drill (the cases above made it fail once or twice).
      expect(xProfile.providers[1].status).not.toBe('major_outage');
      expect(xProfile.providers[1].success_rate_1h).toBeGreaterThan(0.9);
      expect(xProfile.providers[1].p50_ms).toBeGreaterThan(0);
      expect(Date.now() - Date.parse(xProfile.since)).toBeLessThan(60_000);
      // The worst served operation is a partial outage: Statuspage's `major`.
      expect(page.body.indicator).toBe('major');
      // The catalog with include=health says the same word, and which provider serves each first.
      const listing = await call(list.handler, {
        url: `/social/operations?organization_id=${orgId}&include=unavailable,health`,
        token: tokenFor(users.viewer),
      });
      const listed = new Map(listing.body.operations.map((entry: { name: string }) => [entry.name, entry]));
      expect(listed.get('x_profile')).toMatchObject({ available: true, provider: 'ScrapeCreators', status: 'partial_outage' });
      expect(listed.get('x_search')).toMatchObject({ available: true, provider: 'TikHub' });
      // All 52 served by the three.
      expect([...listed.values()].filter((entry) => !(entry as { available: boolean }).available)).toEqual([]);
      expect(listed.get('facebook_search')).toMatchObject({ available: true, provider: 'Facebook Scraper3' });
      expect(listing.body.provider.name).toBe('ScrapeCreators + TikHub + Facebook Scraper3');

      // Recovery: ScrapeCreators answers again; past the open period a run probes it and closes the breaker.
      sc.always({ kind: 'fixture' });
      const later = Date.now() + 31_000;
      const probe = await runSocialOperation({
        caller: { userId: users.editor },
        orgId,
        operationName: 'x_profile',
        input: { handle: 'nasa' },
        now: () => later,
      });
      expect(probe.provider).toBe('ScrapeCreators');
      await stream.catchUp();
      const after = operationOf(await socialStatus(later), 'x_profile');
      expect(after?.status).not.toMatch(/outage/);
      expect(after?.providers[0]?.status).not.toBe('major_outage');
    },
    atDepth(20_000, 120_000),
  );

  it('every provider skipped: 503 operation_unavailable with Retry-After, nothing charged', async () => {
    forgetHealth();
    const { orgId, users } = await workspace({ credits: 10 });
    tikhub.always({ kind: 'status', status: 500, body: '{"code":500,"message":"down"}' });
    try {
      for (let i = 0; i < 5; i += 1) expect((await runAs(orgId, users.editor, 'x_trends')).body.code).toBe('upstream_failed');
      const answer = await runAs(orgId, users.editor, 'x_trends');
      expect([answer.status, answer.body.code]).toEqual([503, 'operation_unavailable']);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      expect(answer.body.data).toMatchObject({ operation: 'x_trends', providers: ['TikHub'] });
    } finally {
      tikhub.always({ kind: 'fixture' });
    }
    const events = await eventsOf(orgId);
    expect(events.filter((event) => event.type === 'social_operation.charged')).toHaveLength(5);
    expect((await getOrganization(orgId))?.credits).toBe(10);
  });
});
