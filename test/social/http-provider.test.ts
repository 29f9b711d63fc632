import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../lib/db/client.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { CATALOG, OPERATION_NAMES } from '../../lib/social/catalog/index.ts';
import { MAPPINGS } from '../../lib/social/providers/scrapecreators/index.ts';
import { type ScrapeCreatorsStub, STUB_KEY, startScrapeCreatorsStub, vendorError } from '../support/scrapecreators-stub.ts';

const stub: ScrapeCreatorsStub = await startScrapeCreatorsStub();
Object.assign(process.env, {
  SOCIAL_PROVIDER: 'http',
  SCRAPECREATORS_BASE_URL: stub.baseUrl,
  SCRAPECREATORS_API_KEY: STUB_KEY,
  PROVIDER_TIMEOUT_MS: '300',
});
const run = await import('../../functions/run-social-operation.ts');
const list = await import('../../functions/list-social-operations.ts');
const quote = await import('../../functions/quote-social-operation.ts');
const createJob = await import('../../functions/create-social-job.ts');
const { workspace } = await import('../support/fixtures.ts');
const { call, withoutRequestId } = await import('../support/http.ts');
const { countRoundTrips } = await import('../../lib/db/round-trips.ts');
const { tokenFor } = await import('../support/tokens.ts');
const { eventsOf, runUrl, VALID_INPUTS } = await import('../support/social.ts');

const SERVED = OPERATION_NAMES.filter((name) => name === 'resolve_mention' || name in MAPPINGS);
const UNSERVED = OPERATION_NAMES.filter((name) => !SERVED.includes(name));

const runAs = (orgId: string, user: string, operation: string, body: unknown = VALID_INPUTS[operation]) =>
  call(run.handler, { method: 'POST', url: runUrl(operation, orgId), token: tokenFor(user), body });

beforeAll(() => {
  stub.requests.length = 0;
});
afterAll(() => stub.close());

describe('the http provider (ScrapeCreators) against a stub on 127.0.0.1', () => {
  it('serves 41 of the 52 operations; the rest are the ones ScrapeCreators has no endpoint for', () => {
    expect(SERVED).toHaveLength(41);
    expect(UNSERVED).toEqual([
      'instagram_user_stories',
      'tiktok_trend_scan',
      'linkedin_user_posts',
      'linkedin_search_people',
      'youtube_trending',
      'facebook_search',
      'x_search',
      'x_post_comments',
      'x_user_connections',
      'x_tweet_engagers',
      'x_trends',
    ]);
  });

  it('lists only the served operations, naming the provider', async () => {
    const { orgId, users } = await workspace();
    const answer = await call(list.handler, { url: `/social/operations?organization_id=${orgId}`, token: tokenFor(users.viewer) });
    expect(answer.body.provider).toEqual({ name: 'ScrapeCreators', sample_data: false });
    expect(answer.body.operations.map((operation: { name: string }) => operation.name)).toEqual(SERVED);
    expect(answer.body.operations.every((operation: { available: boolean }) => operation.available)).toBe(true);
  });

  it('with include=unavailable lists the others too, in catalog order, each available: false', async () => {
    const { orgId, users } = await workspace();
    const answer = await call(list.handler, {
      url: `/social/operations?organization_id=${orgId}&include=unavailable`,
      token: tokenFor(users.viewer),
    });
    expect(answer.status).toBe(200);
    const listed = answer.body.operations as { name: string; available: boolean; cost: number }[];
    expect(listed.map((operation) => operation.name)).toEqual(OPERATION_NAMES);
    expect(listed.filter((operation) => !operation.available).map((operation) => operation.name)).toEqual(UNSERVED);
    // Otherwise the same descriptor: a client reads its schemas and cost before choosing.
    expect(listed.find((operation) => operation.name === 'x_search')).toMatchObject({
      name: 'x_search',
      network: 'x',
      cost: 1,
      provider: null,
    });
    expect(listed.find((operation) => operation.name === 'x_profile')).toMatchObject({ available: true, provider: 'ScrapeCreators' });
  });

  it('with include=unavailable still leaves out the networks the organization turned off', async () => {
    const { orgId, users } = await workspace({ networks: ['x'] });
    const answer = await call(list.handler, {
      url: `/social/operations?organization_id=${orgId}&include=unavailable`,
      token: tokenFor(users.viewer),
    });
    const listed = answer.body.operations as { name: string; available: boolean }[];
    expect(listed.map((operation) => [operation.name, operation.available])).toEqual(
      OPERATION_NAMES.filter((name) => name.startsWith('x_') || name === 'resolve_mention').map((name) => [name, SERVED.includes(name)]),
    );
  });

  it('refuses an operation it does not serve with 403 operation_not_enabled, uncharged', async () => {
    const { orgId, users } = await workspace({ credits: 3 });
    const answer = await runAs(orgId, users.editor, 'x_search');
    expect(answer.status).toBe(403);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'operation_not_enabled',
      message:
        "operation x_search is not served by ScrapeCreators, this deployment's social data provider; GET /social/operations?include=unavailable marks each operation's availability (available: false)",
    });
    expect((await getOrganization(orgId))!.credits).toBe(3);
  });

  it('says the same to a quote (its refusal) and to a job (403, no job)', async () => {
    const { orgId, users } = await workspace({ credits: 3 });
    const refusal = {
      code: 'operation_not_enabled',
      message:
        "operation x_trends is not served by ScrapeCreators, this deployment's social data provider; GET /social/operations?include=unavailable marks each operation's availability (available: false)",
    };
    const quoted = await call(quote.handler, {
      method: 'POST',
      url: `/social/x_trends/quote?organization_id=${orgId}`,
      token: tokenFor(users.editor),
      body: VALID_INPUTS.x_trends,
    });
    expect(quoted.status).toBe(200);
    expect(quoted.body).toMatchObject({ allowed: false, refusal: { ...refusal, data: {} } });
    const job = await call(createJob.handler, {
      method: 'POST',
      url: `/social/x_trends/jobs?organization_id=${orgId}`,
      token: tokenFor(users.editor),
      body: { inputs: [VALID_INPUTS.x_trends] },
    });
    expect(job.status).toBe(403);
    expect(withoutRequestId(job.body)).toEqual(refusal);
  });

  describe.each(SERVED.filter((name) => name !== 'resolve_mention').map((name) => [name]))('%s', (name) => {
    it('calls its endpoint with the API key and translates the answer into the output schema', async () => {
      const { orgId, users } = await workspace({ credits: 3 });
      const before = stub.requests.length;
      const answer = await runAs(orgId, users.editor, name);
      expect(answer.status).toBe(200);
      expect(CATALOG.get(name)!.output.safeParse(answer.body).success).toBe(true);
      const sent = stub.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.path).toBe(MAPPINGS[name]!.path);
      expect(sent[0]!.apiKey).toBe(STUB_KEY);
    });
  });

  it('translates an Instagram profile into the shared profile shape', async () => {
    const { orgId, users } = await workspace({ credits: 3 });
    const answer = await runAs(orgId, users.editor, 'instagram_profile', { handle: '@nasa' });
    expect(stub.requests.at(-1)!.query).toEqual({ handle: 'nasa' });
    expect(answer.body).toEqual({
      network: 'instagram',
      id: '528817151',
      username: 'nasa',
      display_name: 'NASA',
      bio: 'Exploring the universe',
      avatar_url: 'https://scontent.cdninstagram.com/hd.jpg',
      url: 'https://www.instagram.com/nasa/',
      external_url: 'https://nasa.gov',
      verified: true,
      private: false,
      category: 'Government organization',
      location: null,
      created_at: null,
      followers: 97000000,
      following: 80,
      posts_count: 4300,
      likes_count: null,
    });
  });

  it('translates a TikTok page: vendor cursor in and out, times in ISO 8601, string ids', async () => {
    const { orgId, users } = await workspace({ credits: 3 });
    const answer = await runAs(orgId, users.editor, 'tiktok_user_posts', { handle: 'nasa', sort: 'popular', cursor: '1717000000000' });
    expect(stub.requests.at(-1)!.query).toEqual({ handle: 'nasa', sort_by: 'popular', max_cursor: '1717000000000' });
    expect(answer.body.next_cursor).toBe('1716000000000');
    expect(answer.body.has_more).toBe(true);
    expect(answer.body.items[0]).toMatchObject({
      id: '7301234567890123456',
      created_at: '2024-05-29T16:26:40.000Z',
      hashtags: ['space'],
      mentions: ['nasa'],
      metrics: { views: 120000, likes: 5400, comments: 210, shares: 88, saves: 40, quotes: null },
      music: { id: '7016547803243022337' },
      media: [{ type: 'video', duration_seconds: 15.3 }],
    });
  });

  it('flattens nested Reddit comments and keeps each parent', async () => {
    const { orgId, users } = await workspace({ credits: 3 });
    const answer = await runAs(orgId, users.editor, 'reddit_post_comments');
    expect(answer.body.items.map((c: { id: string; parent_id: string | null }) => [c.id, c.parent_id])).toEqual([
      ['k1', null],
      ['k2', 'k1'],
    ]);
    expect(answer.body).toMatchObject({ next_cursor: 'more-cursor', has_more: true });
  });

  it('carries both of Facebook reels’ paging values in one cursor', async () => {
    const { orgId, users } = await workspace({ credits: 3 });
    const first = await runAs(orgId, users.editor, 'facebook_page_reels');
    await runAs(orgId, users.editor, 'facebook_page_reels', { url: 'https://www.facebook.com/nasa', cursor: first.body.next_cursor });
    expect(stub.requests.at(-1)!.query).toEqual({ url: 'https://www.facebook.com/nasa', next_page_id: 'page-2', cursor: 'reel-cursor' });
  });

  it('resolve_mention with verify looks the account up on its network', async () => {
    const { orgId, users } = await workspace({ credits: 3 });
    const answer = await runAs(orgId, users.editor, 'resolve_mention', { mention: 'https://x.com/NASA', verify: true });
    expect(stub.requests.at(-1)!.path).toBe('/v1/twitter/profile');
    expect(answer.body).toEqual({
      input: 'https://x.com/NASA',
      match: { network: 'x', kind: 'user', handle: 'nasa', url: 'https://x.com/nasa' },
      status: 'found',
      id: '11348282',
      display_name: 'NASA',
      avatar_url: 'https://pbs.twimg.com/p.jpg',
      verified: true,
      candidates: [],
    });
  });

  describe('upstream failures are refunded', () => {
    it.each([
      [
        'answers 500 with its error body',
        () => stub.next({ kind: 'status', status: 500, body: vendorError(500, 'internal', 'Upstream error') }),
      ],
      [
        'answers 402 (our vendor account is out of credits)',
        () => stub.next({ kind: 'status', status: 402, body: vendorError(402, 'payment_required', 'Out of credits') }),
      ],
      ['answers 429', () => stub.next({ kind: 'status', status: 429, body: vendorError(429, 'rate_limited', 'Slow down') })],
      ['hangs past the timeout', () => stub.next({ kind: 'hang' })],
      // An account without id or username: the translation leaves them empty, which the output schema refuses.
      ['returns output that breaks the schema', () => stub.next({ kind: 'payload', payload: { data: { user: { full_name: 'NASA' } } } })],
      ['returns a shape the translation cannot read', () => stub.next({ kind: 'payload', payload: { items: [] } })],
      ['returns a body that is not JSON', () => stub.next({ kind: 'status', status: 200, body: '<html>oops</html>' })],
      [
        'says success: false',
        () => stub.next({ kind: 'status', status: 200, body: vendorError(403, 'forbidden', 'This video is age restricted') }),
      ],
    ])('when the vendor %s: 500 upstream_failed, balance back, charge and refund events, no retry', async (_case, arrange) => {
      // Prepare
      const { orgId, users } = await workspace({ credits: 5 });
      arrange();
      const before = stub.requests.length;

      // Act
      const answer = await runAs(orgId, users.editor, 'instagram_profile');

      // Assess
      expect(answer.status).toBe(500);
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'upstream_failed',
        message: 'the social data provider failed; the charge was refunded, retry with backoff',
      });
      expect(stub.requests.length - before).toBe(1);
      expect((await getOrganization(orgId))!.credits).toBe(5);
      expect((await eventsOf(orgId)).map((event) => [event.type, event.amount])).toEqual([
        ['credits.granted', 5],
        ['social_operation.charged', -1],
        ['social_operation.refunded', 1],
      ]);
    });

    it('a highlight without an id is refused (refunded), not given the id "undefined"', async () => {
      const { orgId, users } = await workspace({ credits: 5 });
      stub.next({ kind: 'payload', payload: { highlights: [{ title: 'Space', media_count: 3 }] } });
      const answer = await runAs(orgId, users.editor, 'instagram_user_highlights');
      expect(answer.status).toBe(500);
      expect(answer.body.code).toBe('upstream_failed');
      expect((await getOrganization(orgId))!.credits).toBe(5);
    });

    it('a 404 from the vendor is a 404 to the caller, refunded', async () => {
      const { orgId, users } = await workspace({ credits: 5 });
      stub.next({ kind: 'status', status: 404, body: vendorError(404, 'not_found', 'User not found') });
      const answer = await runAs(orgId, users.editor, 'tiktok_profile', { handle: 'no_such_user_zz' });
      expect(answer.status).toBe(404);
      expect(withoutRequestId(answer.body)).toEqual({ code: 'not_found', message: 'not found on tiktok, or not public' });
      expect((await getOrganization(orgId))!.credits).toBe(5);
      expect((await eventsOf(orgId)).map((event) => event.type)).toEqual([
        'credits.granted',
        'social_operation.charged',
        'social_operation.refunded',
      ]);
    });
  });

  it('takes two sequential DynamoDB round trips before the vendor is called', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const counter = countRoundTrips(db());
    const seen: number[] = [];
    stub.onRequest = () => seen.push(counter.log.sequential);
    try {
      const answer = await runAs(orgId, users.editor, 'x_profile');
      expect(answer.status).toBe(200);
      expect(seen).toEqual([2]);
    } finally {
      stub.onRequest = undefined;
      counter.stop();
    }
  });
});
