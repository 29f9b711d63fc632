/**
 * The `facebook_scraper3` provider on fixtures of its answers, against its stub on 127.0.0.1 (no
 * database): facebook_search for posts and videos, its request (RapidAPI's headers, the query and
 * cursor), its output through the catalog's schema, and every failure an `UpstreamError` the run
 * path refunds or fails over on (test/social/failover.test.ts runs it through the run path).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../lib/social/catalog/index.ts';
import { compactCount, facebookScraper3Provider, postLookupId } from '../../lib/social/providers/facebook-scraper3.ts';
import { UpstreamError } from '../../lib/social/providers/types.ts';
import { FACEBOOK_SCRAPER3_STUB_KEY, startFacebookScraper3Stub } from '../support/facebook-scraper3-stub.ts';

const stub = await startFacebookScraper3Stub();
afterAll(() => stub.close());
const providerWith = (key: string) => facebookScraper3Provider({ baseUrl: stub.baseUrl, apiKey: async () => key });
const provider = providerWith(FACEBOOK_SCRAPER3_STUB_KEY);
const search = CATALOG.get('facebook_search')!;

/** A run as the run path makes it: the input validated and defaulted by the catalog, the output checked by it. */
async function runOn(operation: string, body: Record<string, unknown>, on = provider) {
  const definition = CATALOG.get(operation)!;
  const input = definition.input.parse(body) as Record<string, unknown>;
  stub.requests.length = 0;
  const output = await on.run({ operation: definition, input, signal: AbortSignal.timeout(2000) });
  const checked = definition.output.safeParse(output);
  if (!checked.success) throw new Error(JSON.stringify(checked.error.issues.slice(0, 3)));
  return { output: checked.data as Record<string, unknown>, requests: [...stub.requests] };
}

const searchFor = async (body: Record<string, unknown>, on = provider) => {
  const { output, requests } = await runOn('facebook_search', body, on);
  return { output: output as { items: Record<string, unknown>[]; next_cursor: string | null; has_more: boolean }, requests };
};

describe('Facebook Scraper3: facebook_search', () => {
  it('posts: GET /search/posts with the query; each row a post with its author, media and counts; the cursor passed on', async () => {
    const { output, requests } = await searchFor({ query: 'artemis crew' });
    expect(requests).toEqual([{ path: '/search/posts', query: { query: 'artemis crew' } }]);
    expect(output.items.map((item) => [item.id, item.type])).toEqual([
      ['1431426125696772', 'image'],
      ['859693417025820', 'video'],
      ['1134687898785891', 'text'],
    ]);
    expect(output.items[0]).toEqual({
      network: 'facebook',
      id: '1431426125696772',
      url: 'https://www.facebook.com/NatGeoMuseum/posts/pfbid02MmmxmHinoAbb2Aidf7TZHH1fSR4w8UmPYUXKT86HgHFAHryrD54bW5113ZPQ2gzYl',
      type: 'image',
      author: {
        id: '100064881934421',
        username: null,
        display_name: 'National Geographic Museum',
        avatar_url: 'https://scontent.xx.fbcdn.net/v/natgeo.jpg',
        url: 'https://www.facebook.com/NatGeoMuseum',
        verified: null,
      },
      title: null,
      text: 'Meet the #artemis crew at the museum this weekend with @NASA',
      created_at: '2024-09-12T00:08:39.000Z',
      media: [
        {
          type: 'image',
          url: 'https://scontent.xx.fbcdn.net/v/crew.jpg',
          thumbnail_url: null,
          width: 1080,
          height: 720,
          duration_seconds: null,
        },
      ],
      metrics: { views: null, likes: 1250, comments: 42, shares: 88, saves: null, quotes: null },
      hashtags: ['artemis'],
      mentions: ['NASA'],
      music: null,
    });
    expect(output.items[1]?.media).toEqual([
      {
        type: 'video',
        url: 'https://video.xx.fbcdn.net/v/liftoff.mp4',
        thumbnail_url: 'https://scontent.xx.fbcdn.net/v/liftoff-thumb.jpg',
        width: null,
        height: null,
        duration_seconds: null,
      },
    ]);
    expect([output.next_cursor, output.has_more]).toEqual(['AbqJc2VhcmNoX3Bvc3RzX3BhZ2VfMg', true]);

    const next = await searchFor({ query: 'artemis crew', cursor: output.next_cursor });
    expect(next.requests).toEqual([{ path: '/search/posts', query: { query: 'artemis crew', cursor: 'AbqJc2VhcmNoX3Bvc3RzX3BhZ2VfMg' } }]);
  });

  it('videos: GET /search/videos; views read from "1.2M views", no date (the answer gives only "3 days ago"); the last page', async () => {
    const { output, requests } = await searchFor({ query: 'artemis', type: 'videos' });
    expect(requests).toEqual([{ path: '/search/videos', query: { query: 'artemis' } }]);
    expect(
      output.items.map((item) => [item.id, item.type, item.title, item.created_at, (item.metrics as { views: number }).views]),
    ).toEqual([
      ['859693417025820', 'video', 'Artemis II rollout', null, 1_200_000],
      ['2209384756', 'video', 'Launch watch party', null, 950],
    ]);
    expect(output.items[0]?.author).toMatchObject({ display_name: 'NASA', verified: true });
    expect([output.next_cursor, output.has_more]).toEqual([null, false]);
  });

  it.each([
    ['1.2K views', 1200],
    ['3M', 3_000_000],
    ['1,234 views', 1234],
    ['2.5b views', 2_500_000_000],
    [56, 56],
    ['No views', null],
    [-1, null],
    [null, null],
  ])('reads a count of %j as %j', (value, expected) => {
    expect(compactCount(value)).toBe(expected);
  });
});

describe("Facebook Scraper3: facebook_post, ScrapeCreators' failover", () => {
  it('GET /post with the id of the URL: a pfbid token or a number, as the live API looks them up', async () => {
    const { output, requests } = await runOn('facebook_post', {
      url: 'https://www.facebook.com/NatGeoMuseum/posts/pfbid02MmmxmHinoAbb2Aidf7TZHH1fSR4w8UmPYUXKT86HgHFAHryrD54bW5113ZPQ2gzYl',
    });
    expect(requests).toEqual([
      { path: '/post', query: { post_id: 'pfbid02MmmxmHinoAbb2Aidf7TZHH1fSR4w8UmPYUXKT86HgHFAHryrD54bW5113ZPQ2gzYl' } },
    ]);
    expect(output).toMatchObject({
      network: 'facebook',
      id: '1431426125696772',
      type: 'image',
      metrics: { likes: 1250, comments: 42, shares: 88 },
    });
  });

  it.each([
    ['https://www.facebook.com/nasa/posts/1431426125696772', '1431426125696772'],
    ['https://www.facebook.com/groups/spacefans/posts/1134687898785891/', '1134687898785891'],
    ['https://www.facebook.com/permalink.php?story_fbid=859693417025820&id=54971236771', '859693417025820'],
    ['https://www.facebook.com/story.php?story_fbid=pfbid0abc&id=1', 'pfbid0abc'],
    ['https://www.facebook.com/nasa/videos/859693417025820', undefined],
    ['https://www.facebook.com/reel/2209384756', undefined],
    ['https://fb.watch/abcDEF/', undefined],
    ['https://www.facebook.com/nasa/posts/not-an-id', undefined],
  ])('the id of %s is %s', (url, id) => {
    expect(postLookupId(url)).toBe(id);
  });

  it('a URL that names no id it takes is not sent: the next provider, its health untouched', async () => {
    await expect(runOn('facebook_post', { url: 'https://www.facebook.com/nasa/videos/859693417025820' })).rejects.toMatchObject({
      detail: { code: 'unsupported_input' },
    });
    expect(stub.requests).toEqual([]);
  });
});

describe("Facebook Scraper3: facebook_post_comments, ScrapeCreators' failover", () => {
  it("a post's number from its URL: GET /post/comments; each comment with its post, parent, counts and author; the cursor carries the post", async () => {
    const { output, requests } = await runOn('facebook_post_comments', { url: 'https://www.facebook.com/nasa/posts/1431426125696772' });
    expect(requests).toEqual([{ path: '/post/comments', query: { post_id: '1431426125696772' } }]);
    expect(output).toEqual({
      items: [
        {
          network: 'facebook',
          id: '1431426125696772_10001',
          post_id: '1431426125696772',
          parent_id: null,
          author: {
            id: '100000002',
            username: null,
            display_name: 'Grace Orbit',
            avatar_url: 'https://scontent.xx.fbcdn.net/v/grace.jpg',
            url: 'https://www.facebook.com/grace.orbit',
            verified: null,
          },
          text: 'See you there!',
          created_at: '2024-09-12T00:13:20.000Z',
          likes: 12,
          reply_count: 1,
        },
        expect.objectContaining({ id: '1431426125696772_10002', parent_id: 'Y29tbWVudDoxNDMxNDI2MTI1Njk2NzcyXzEwMDAx', likes: 3 }),
      ],
      next_cursor: '1431426125696772:MTcyNjEwMDYwMDoy',
      has_more: true,
    });

    const next = await runOn('facebook_post_comments', {
      url: 'https://www.facebook.com/nasa/posts/1431426125696772',
      cursor: '1431426125696772:MTcyNjEwMDYwMDoy',
    });
    expect(next.requests).toEqual([{ path: '/post/comments', query: { post_id: '1431426125696772', cursor: 'MTcyNjEwMDYwMDoy' } }]);
  });

  it('a pfbid URL: the post looked up first (its number), on the first page only', async () => {
    const { requests } = await runOn('facebook_post_comments', { url: 'https://www.facebook.com/nasa/posts/pfbid0abc' });
    expect(requests).toEqual([
      { path: '/post', query: { post_id: 'pfbid0abc' } },
      { path: '/post/comments', query: { post_id: '1431426125696772' } },
    ]);
  });

  it.each([
    [
      { url: 'https://www.facebook.com/nasa/videos/859693417025820' },
      'Facebook Scraper3 looks a post up by the id in its URL, and this URL names none it takes',
    ],
    [
      { url: 'https://www.facebook.com/nasa/posts/1431426125696772', cursor: 'QVFIUjNhbm90aGVyIHZlbmRvcg' },
      "this page's cursor is not Facebook Scraper3's",
    ],
  ])("%j is not sent (another provider's cursor, or no post id): unsupported_input", async (input, message) => {
    await expect(runOn('facebook_post_comments', input)).rejects.toMatchObject({ message, detail: { code: 'unsupported_input' } });
    expect(stub.requests).toEqual([]);
  });
});

describe('Facebook Scraper3: failures are UpstreamErrors (refunded, or failed over), never half-read', () => {
  it.each([
    [
      {
        kind: 'status',
        status: 429,
        body: '{"message":"You have exceeded the rate limit per second for your plan, BASIC, by the API provider"}',
      },
      'Facebook Scraper3 answered 429: You have exceeded the rate limit per second for your plan, BASIC, by the API provider',
    ],
    [{ kind: 'status', status: 502, body: '<html>Bad gateway</html>' }, 'Facebook Scraper3 answered 502 with a body that is not JSON'],
    [
      { kind: 'status', status: 200, body: '{"error":"query failed"}' },
      "Facebook Scraper3's answer to facebook_search is not the shape read: results",
    ],
    [{ kind: 'garbage' }, "Facebook Scraper3's answer to facebook_search is not the shape read: results"],
    [
      { kind: 'status', status: 200, body: '{"results":[{"message":"no id"}],"cursor":null}' },
      "Facebook Scraper3's answer to facebook_search is not the shape read: results.0.post_id",
    ],
  ] as const)('%j', async (behaviour, message) => {
    stub.always(behaviour);
    try {
      const failed = await searchFor({ query: 'artemis' }).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(UpstreamError);
      expect((failed as Error).message).toBe(message);
    } finally {
      stub.always({ kind: 'fixture' });
    }
  });

  it('a key RapidAPI does not know: 401 with its message', async () => {
    await expect(searchFor({ query: 'artemis' }, providerWith('wrong'))).rejects.toThrow(
      'Facebook Scraper3 answered 401: Invalid API key. Go to https://docs.rapidapi.com/docs/keys for more info.',
    );
  });

  it("a call that outlives the run's deadline is aborted", async () => {
    stub.always({ kind: 'hang' });
    try {
      const input = search.input.parse({ query: 'artemis' }) as Record<string, unknown>;
      await expect(provider.run({ operation: search, input, signal: AbortSignal.timeout(100) })).rejects.toThrow(
        'the provider call was aborted (timeout)',
      );
    } finally {
      stub.always({ kind: 'fixture' });
    }
  });

  it('a lookup answered in another shape is refused', async () => {
    stub.always({ kind: 'status', status: 200, body: '{"results":null}' });
    try {
      await expect(runOn('facebook_post', { url: 'https://www.facebook.com/nasa/posts/1431426125696772' })).rejects.toThrow(
        "Facebook Scraper3's answer to facebook_post is not the shape read: results",
      );
    } finally {
      stub.always({ kind: 'fixture' });
    }
  });

  it('an operation it does not serve is refused before any call', async () => {
    stub.requests.length = 0;
    const other = CATALOG.get('facebook_page')!;
    await expect(
      provider.run({ operation: other, input: { url: 'https://www.facebook.com/nasa' }, signal: AbortSignal.timeout(100) }),
    ).rejects.toThrow('operation facebook_page is not served by Facebook Scraper3');
    expect(stub.requests).toEqual([]);
  });
});
