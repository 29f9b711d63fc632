/**
 * The `tikhub` provider's mappings on the fixtures of its answers, against the TikHub stub on
 * 127.0.0.1 (no database): each operation it serves is asked for, its request is what TikHub's
 * reference documents, and its output passes the catalog's output schema. What the run path does
 * with it (charge, failover, breakers) is test/social/failover.test.ts's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOG, OPERATION_NAMES } from '../../lib/social/catalog/index.ts';
import { TIKHUB_MAPPINGS, TIKHUB_OPERATIONS, tikhubProvider } from '../../lib/social/providers/tikhub/index.ts';
import { UpstreamError } from '../../lib/social/providers/types.ts';
import { envelope, TIKHUB_FIXTURES } from '../support/tikhub/fixtures.ts';
import { startTikHubStub, TIKHUB_STUB_KEY } from '../support/tikhub-stub.ts';

const stub = await startTikHubStub();
afterAll(() => stub.close());
const provider = tikhubProvider({ baseUrl: stub.baseUrl, apiKey: async () => TIKHUB_STUB_KEY });

/** Runs an operation on TikHub as the run path does: the input validated and defaulted by the catalog first. */
async function runOn(operation: string, body: Record<string, unknown>) {
  const definition = CATALOG.get(operation);
  if (!definition) throw new Error(`no operation ${operation}`);
  const input = definition.input.parse(body) as Record<string, unknown>;
  stub.requests.length = 0;
  const output = await provider.run({ operation: definition, input, signal: AbortSignal.timeout(5000) });
  const checked = definition.output.safeParse(output);
  if (!checked.success) throw new Error(`${operation}: ${JSON.stringify(checked.error.issues.slice(0, 3))}`);
  return {
    output: output as { items: Record<string, unknown>[]; next_cursor?: string | null; has_more?: boolean },
    requests: [...stub.requests],
  };
}

// What each operation takes on TikHub (its endpoints' options), and a request per operation.
const INPUTS: Record<string, Record<string, unknown>> = {
  x_search: { query: 'artemis' },
  x_profile: { handle: 'nasa' },
  x_post_comments: { url: 'https://x.com/nasa/status/1834567890123456789' },
  x_user_connections: { handle: 'nasa', kind: 'followers' },
  x_tweet_engagers: { url: 'https://x.com/nasa/status/1834567890123456789', type: 'reposters' },
  x_trends: { region: 'US' },
  instagram_user_stories: { handle: 'nasa' },
  tiktok_trend_scan: { region: 'GB', kinds: ['hashtag', 'sound', 'creator', 'video'], count: 8 },
  linkedin_user_posts: { url: 'https://www.linkedin.com/in/satyanadella' },
  linkedin_search_people: { query: 'satya nadella', title: 'CEO' },
  youtube_trending: { region: 'JP', count: 5 },
};

describe('TikHub: what it serves', () => {
  it('the operations ScrapeCreators lacks but facebook_search (TikHub has no Facebook API), and x_profile', () => {
    expect(OPERATION_NAMES.filter((name) => TIKHUB_OPERATIONS.has(name))).toEqual([
      'instagram_user_stories',
      'tiktok_trend_scan',
      'linkedin_user_posts',
      'linkedin_search_people',
      'youtube_trending',
      'x_search',
      'x_profile',
      'x_post_comments',
      'x_user_connections',
      'x_tweet_engagers',
      'x_trends',
    ]);
  });

  it('every path a mapping calls has a fixture the stub serves', () => {
    const paths = Object.values(TIKHUB_MAPPINGS).flatMap((mapping) => mapping.paths);
    expect(paths.filter((path) => !(path in TIKHUB_FIXTURES))).toEqual([]);
  });

  it.each([...TIKHUB_OPERATIONS])('%s: answers on its fixture, the catalog output schema passed', async (operation) => {
    const { output, requests } = await runOn(operation, INPUTS[operation] ?? {});
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((request) => TIKHUB_MAPPINGS[operation]?.paths.includes(request.path))).toBe(true);
    if ('items' in output) expect(output.items.length).toBeGreaterThan(0);
  });
});

describe('TikHub: tiktok_trend_scan on the TikTok-Ads boards', () => {
  it('asks each board once for its share of count, GB as the reference names it (UK), and ranks the boards together', async () => {
    const { output, requests } = await runOn('tiktok_trend_scan', {
      region: 'GB',
      period: '30d',
      kinds: ['hashtag', 'sound'],
      new_only: true,
      count: 10,
    });
    expect(requests.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      {
        path: '/api/v1/tiktok/ads/get_hashtag_list',
        query: { page: '1', limit: '5', period: '30', country_code: 'UK', sort_by: 'popular', filter_by: 'new_on_board' },
      },
      {
        path: '/api/v1/tiktok/ads/get_sound_rank_list',
        query: { period: '30', page: '1', limit: '5', rank_type: 'popular', new_on_board: 'true', country_code: 'UK' },
      },
    ]);
    expect(output).toEqual({
      items: [
        {
          network: 'tiktok',
          kind: 'hashtag',
          name: 'summer',
          url: 'https://www.tiktok.com/tag/summer',
          rank: 1,
          rank_change: null,
          is_new: true,
          post_count: 45678,
          view_count: 123456789,
        },
        {
          network: 'tiktok',
          kind: 'sound',
          name: 'There She Goes',
          url: 'https://www.tiktok.com/music/x-7424014547218565904',
          rank: 1,
          rank_change: null,
          is_new: true,
          post_count: null,
          view_count: null,
        },
        {
          network: 'tiktok',
          kind: 'hashtag',
          name: 'beach',
          url: 'https://www.tiktok.com/tag/beach',
          rank: 2,
          rank_change: null,
          is_new: true,
          post_count: 12000,
          view_count: 9800000,
        },
      ],
      next_cursor: '2',
      has_more: true,
    });
  });

  it('the next page is page 2 of each board; creators and videos are ranked by position', async () => {
    const { output, requests } = await runOn('tiktok_trend_scan', { region: 'US', kinds: ['creator', 'video'], count: 4, cursor: '2' });
    expect(requests.map((request) => [request.path, request.query.page, request.query.limit])).toEqual(
      expect.arrayContaining([
        ['/api/v1/tiktok/ads/get_creator_list', '2', '2'],
        ['/api/v1/tiktok/ads/get_popular_trends', '2', '2'],
      ]),
    );
    expect(output.items.map((item) => [item.kind, item.name, item.rank])).toEqual([
      ['creator', 'Fernanda', 3],
      ['video', "We've lowered MSRP on Rogue and Pathfinder", 3],
    ]);
    expect([output.next_cursor, output.has_more]).toEqual([null, false]);
  });

  it.each([
    [{ kinds: ['creator'], new_only: true }, 'TikHub filters new entries on the hashtag and sound boards only'],
    [{ kinds: ['video'], period: '120d' }, "TikHub's popular videos cover 7 or 30 days"],
    [{ kinds: ['hashtag'], cursor: 'abc' }, 'the cursor is not a TikHub trend page'],
  ])('an input its boards cannot take is not sent: %j', async (input, message) => {
    await expect(runOn('tiktok_trend_scan', { region: 'US', ...input })).rejects.toMatchObject({
      message,
      detail: { code: 'unsupported_input' },
    });
    expect(stub.requests).toEqual([]);
  });
});

describe("TikHub: X's search and comments, as its public clients read them", () => {
  it("x_search: the timeline's tweets, its other items skipped; an item that says it is a tweet but has no id refused", async () => {
    const { output, requests } = await runOn('x_search', { query: 'artemis' });
    expect(requests).toEqual([{ path: '/api/v1/twitter/web/fetch_search_timeline', query: { keyword: 'artemis', search_type: 'Latest' } }]);
    expect(output.items.map((item) => [item.id, item.url])).toEqual([
      ['1834567890123456789', 'https://x.com/NASA/status/1834567890123456789'],
      ['1834567890123456790', 'https://x.com/fan1/status/1834567890123456790'],
    ]);
    stub.always({
      kind: 'status',
      status: 200,
      body: JSON.stringify(envelope({ timeline: [{ type: 'tweet', text: 'no id' }], next_cursor: null })),
    });
    try {
      await expect(runOn('x_search', { query: 'artemis' })).rejects.toThrow(
        "TikHub's answer to x_search is not the shape read: timeline.0",
      );
    } finally {
      stub.always({ kind: 'fixture' });
    }
  });

  it('x_tweet_engagers: the reposters as `retweets` or as `users`; x_user_connections: `more_users` false ends the walk', async () => {
    const url = 'https://x.com/nasa/status/1834567890123456789';
    const asRetweets = await runOn('x_tweet_engagers', { url, type: 'reposters' });
    expect(asRetweets.output.items.map((item) => (item.user as { username: string }).username)).toEqual(['fan3']);
    const fan = (TIKHUB_FIXTURES['/api/v1/twitter/web/fetch_retweet_user_list'] as { retweets: unknown[] }).retweets;
    stub.always({ kind: 'status', status: 200, body: JSON.stringify(envelope({ users: fan, next_cursor: 'c2' })) });
    try {
      const asUsers = await runOn('x_tweet_engagers', { url, type: 'reposters' });
      expect([asUsers.output.items.length, asUsers.output.next_cursor]).toEqual([1, 'c2']);
      stub.always({ kind: 'status', status: 200, body: JSON.stringify(envelope({ next_cursor: 'c2' })) });
      await expect(runOn('x_tweet_engagers', { url, type: 'reposters' })).rejects.toThrow(
        "TikHub's answer to x_tweet_engagers is not the shape read",
      );
      stub.always({
        kind: 'status',
        status: 200,
        body: JSON.stringify(envelope({ followers: fan, next_cursor: 'c3', more_users: false })),
      });
      const last = await runOn('x_user_connections', { handle: 'nasa', kind: 'followers' });
      expect([last.output.next_cursor, last.output.has_more]).toEqual([null, false]);
    } finally {
      stub.always({ kind: 'fixture' });
    }
  });

  it('x_profile: the handle as `screen_name`, or as `profile` (as a public client reads the profile), or the one asked', async () => {
    const { screen_name: _handle, ...rest } = TIKHUB_FIXTURES['/api/v1/twitter/web/fetch_user_profile'] as Record<string, unknown>;
    for (const [body, username] of [
      [{ ...rest, profile: 'NASA' }, 'NASA'],
      [rest, 'nasa'],
    ] as const) {
      stub.always({ kind: 'status', status: 200, body: JSON.stringify(envelope(body)) });
      try {
        const profile = (await runOn('x_profile', { handle: '@nasa' })).output as unknown as Record<string, unknown>;
        expect([profile.username, profile.url, profile.followers]).toEqual([username, `https://x.com/${username}`, 88_000_000]);
      } finally {
        stub.always({ kind: 'fixture' });
      }
    }
  });

  it('x_post_comments: data.thread, each reply by its id, author, likes and display text', async () => {
    const { output } = await runOn('x_post_comments', { url: 'https://x.com/nasa/status/1834567890123456789' });
    expect(output.items).toEqual([
      {
        network: 'x',
        id: '1834567890123456791',
        post_id: '1834567890123456789',
        parent_id: '1834567890123456789',
        author: {
          id: '22000002',
          username: 'fan2',
          display_name: 'Fan 2',
          avatar_url: 'https://pbs.twimg.com/f.jpg',
          url: 'https://x.com/fan2',
          verified: false,
        },
        text: 'Reply 2',
        created_at: '2024-09-12T00:10:00.000Z',
        likes: 42,
        reply_count: 2,
      },
      expect.objectContaining({ id: '1834567890123456792', likes: 43 }),
    ]);
  });
});

describe('TikHub: the other operations, read as documented or as assumed', () => {
  it('instagram_user_stories: each story, its media, and its expiry 24 hours after it was posted', async () => {
    const { output, requests } = await runOn('instagram_user_stories', { handle: '@nasa' });
    expect(requests).toEqual([{ path: '/api/v1/instagram/v3/get_user_stories', query: { username: 'nasa' } }]);
    expect(
      output.items.map((story) => [story.id, story.type, (story.media as { type: string }[])[0]?.type, story.created_at, story.expires_at]),
    ).toEqual([
      ['3456789012345678901', 'story', 'image', '2024-11-28T13:20:00.000Z', '2024-11-29T13:20:00.000Z'],
      ['3456789012345678902', 'story', 'video', '2024-11-28T14:20:00.000Z', '2024-11-29T14:20:00.000Z'],
    ]);
    expect(output.items[0]?.url).toBe('https://www.instagram.com/stories/nasa/3456789012345678901/');
  });

  it('linkedin_user_posts: the urn from the profile, then the posts; the next page skips the profile', async () => {
    const first = await runOn('linkedin_user_posts', { url: 'https://www.linkedin.com/in/satyanadella/' });
    expect(first.requests).toEqual([
      { path: '/api/v1/linkedin/web/get_user_profile', query: { username: 'satyanadella' } },
      { path: '/api/v1/linkedin/web/get_user_posts', query: { urn: 'ACoAAAEkwwAB9KEc2TrQgOLEQ-vzRyZeCDyc6DQ', page: '1' } },
    ]);
    expect(first.output.next_cursor).toBe('ACoAAAEkwwAB9KEc2TrQgOLEQ-vzRyZeCDyc6DQ|2');
    const next = await runOn('linkedin_user_posts', { url: 'https://www.linkedin.com/in/satyanadella', cursor: first.output.next_cursor });
    expect(next.requests).toEqual([
      { path: '/api/v1/linkedin/web/get_user_posts', query: { urn: 'ACoAAAEkwwAB9KEc2TrQgOLEQ-vzRyZeCDyc6DQ', page: '2' } },
    ]);
  });

  it("linkedin_user_posts: a profile's full urn (urn:li:…:<id>) is sent as its id, as get_user_posts' example takes it", async () => {
    const profile = TIKHUB_FIXTURES['/api/v1/linkedin/web/get_user_profile'] as { urn: string };
    const bare = profile.urn;
    profile.urn = `urn:li:fsd_profile:${bare}`;
    try {
      const { requests } = await runOn('linkedin_user_posts', { url: 'https://www.linkedin.com/in/satyanadella' });
      expect(requests[1]?.query.urn).toBe(bare);
    } finally {
      profile.urn = bare;
    }
  });

  it('linkedin_search_people: keywords, title and company; a location by name is not sent (TikHub takes a geo id)', async () => {
    const { output, requests } = await runOn('linkedin_search_people', { query: 'satya', title: 'CEO', company: 'Microsoft' });
    expect(requests).toEqual([
      { path: '/api/v1/linkedin/web/search_people', query: { name: 'satya', title: 'CEO', company: 'Microsoft', page: '1' } },
    ]);
    expect(output.items[0]).toMatchObject({
      username: 'satyanadella',
      display_name: 'Satya Nadella',
      bio: 'Chairman and CEO at Microsoft',
    });
    await expect(runOn('linkedin_search_people', { query: 'satya', location: 'Berlin' })).rejects.toBeInstanceOf(UpstreamError);
  });

  it('youtube_trending: the Now section of a country; Shorts and pages are not sent', async () => {
    const { requests } = await runOn('youtube_trending', { region: 'JP' });
    expect(requests).toEqual([
      { path: '/api/v1/youtube/web/get_trending_videos', query: { language_code: 'en', country_code: 'jp', section: 'Now' } },
    ]);
    await expect(runOn('youtube_trending', { region: 'JP', type: 'shorts' })).rejects.toMatchObject({
      detail: { code: 'unsupported_input' },
    });
  });

  it('an answer of another shape is refused, never half-read', async () => {
    stub.always({ kind: 'garbage' });
    try {
      for (const operation of ['tiktok_trend_scan', 'instagram_user_stories', 'linkedin_user_posts', 'youtube_trending'])
        await expect(runOn(operation, INPUTS[operation] ?? {})).rejects.toThrow(`TikHub's answer to ${operation} is not the shape read`);
    } finally {
      stub.always({ kind: 'fixture' });
    }
  });
});
