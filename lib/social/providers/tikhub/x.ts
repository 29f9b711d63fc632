/**
 * X on TikHub (`/api/v1/twitter/web/…`, TikHub's Twitter-Web-API): the endpoints its official
 * SDK calls (github.com/TikHubIO/TikHub-API-Python-SDK, tikhub/api/v1/endpoints/twitter/web),
 * their answers in TikHub's envelope `{code, message, data}` (social-operations.md, "TikHub").
 *
 * The reference is thin on answers: it documents `fetch_trending`'s (`data.trends[]{name,
 * description, context}`) and the envelope; the others are read as the flat tweet and user
 * objects of the fixtures (test/support/tikhub/), which follow TikHub's published examples as far
 * as they go. An answer of another shape is refused (the run fails over or is refunded), never
 * half-read: docs/social-operations.md, "TikHub", says what to check with a live key.
 */
import * as z from 'zod/mini';
import { PROFILE_URL } from '../../mention.ts';
import { author, comment, page, post, profile } from '../scrapecreators/output.ts';
import { bareHandle, int, str } from '../scrapecreators/read.ts';
import { id, count as num, text } from '../scrapecreators/vendor-shapes.ts';
import { call, type TikHubMapping } from './mapping.ts';

const userShape = () =>
  z.object({
    rest_id: id(),
    screen_name: z.string(),
    name: text(),
    avatar: text(),
    desc: text(),
    blue_verified: z.nullish(z.boolean()),
    sub_count: num(),
    friends: num(),
    statuses_count: num(),
    location: text(),
    created_at: text(),
    website: text(),
  });
type User = z.output<ReturnType<typeof userShape>>;

const tweetShape = () =>
  z.object({
    tweet_id: z.union([z.string(), z.number()]),
    screen_name: text(),
    text: text(),
    created_at: text(),
    favorites: num(),
    retweets: num(),
    replies: num(),
    quotes: num(),
    bookmarks: num(),
    views: num(),
    user_info: z.nullish(userShape()),
  });
type Tweet = z.output<ReturnType<typeof tweetShape>>;

const xAuthor = (user: User | null | undefined, screenName?: string | null) =>
  author({
    id: user?.rest_id,
    username: user?.screen_name ?? screenName,
    display_name: user?.name,
    avatar_url: user?.avatar,
    url: (user?.screen_name ?? screenName) ? PROFILE_URL.x(String(user?.screen_name ?? screenName)) : null,
    verified: user?.blue_verified,
  });

const xPost = (tweet: Tweet) => {
  const handle = tweet.user_info?.screen_name ?? tweet.screen_name;
  return post({
    network: 'x',
    id: tweet.tweet_id,
    url: handle ? `https://x.com/${handle}/status/${tweet.tweet_id}` : null,
    type: 'text',
    author: xAuthor(tweet.user_info, tweet.screen_name),
    text: tweet.text,
    created_at: tweet.created_at,
    metrics: {
      views: int(tweet.views),
      likes: int(tweet.favorites),
      comments: int(tweet.replies),
      shares: int(tweet.retweets),
      saves: int(tweet.bookmarks),
      quotes: int(tweet.quotes),
    },
  });
};

const xProfile = (user: User) =>
  profile('x', {
    id: user.rest_id,
    username: user.screen_name,
    display_name: user.name,
    bio: user.desc,
    avatar_url: user.avatar,
    url: PROFILE_URL.x(user.screen_name),
    external_url: user.website,
    verified: user.blue_verified,
    location: user.location,
    created_at: user.created_at,
    followers: user.sub_count,
    following: user.friends,
    posts_count: user.statuses_count,
  });

/** The post id at the end of an x.com or twitter.com status URL (the catalog's schema checked the host). */
export const tweetIdOf = (url: unknown): string => {
  const match = /\/status(?:es)?\/([0-9]{1,25})/.exec(String(url));
  if (!match) throw new Error('the post URL has no status id');
  return match[1] as string;
};

/** "8.27M posts" → 8270000; anything else null. */
export function postCountOf(description: unknown): number | null {
  const match = /^([0-9][0-9,.]*)\s*([KMB])?\s+posts?$/i.exec(String(description ?? '').trim());
  if (!match) return null;
  const value = Number((match[1] as string).replaceAll(',', '')) * ({ K: 1e3, M: 1e6, B: 1e9 }[(match[2] ?? '').toUpperCase()] ?? 1);
  return Number.isFinite(value) ? Math.round(value) : null;
}

/** ISO region → the country names `fetch_trending` takes (its SDK's default: UnitedStates); others are not served. */
export const TREND_COUNTRIES: Readonly<Record<string, string>> = {
  US: 'UnitedStates',
  GB: 'UnitedKingdom',
  CA: 'Canada',
  AU: 'Australia',
  IN: 'India',
  JP: 'Japan',
  DE: 'Germany',
  FR: 'France',
  BR: 'Brazil',
  MX: 'Mexico',
  ES: 'Spain',
  WW: 'Worldwide',
};

const timeline = () => z.object({ timeline: z.array(tweetShape()), next_cursor: text() });

export const x: Readonly<Record<string, TikHubMapping>> = {
  x_search: call({
    path: '/api/v1/twitter/web/fetch_search_timeline',
    params: (input) => ({
      keyword: String(input.query),
      search_type: input.sort === 'top' ? 'Top' : 'Latest',
      cursor: str(input.cursor) ?? undefined,
    }),
    response: timeline,
    translate: (data: z.output<ReturnType<typeof timeline>>, input) =>
      page(data.timeline.slice(0, Number(input.count)).map(xPost), data.next_cursor),
  }),
  x_profile: call({
    path: '/api/v1/twitter/web/fetch_user_profile',
    params: (input) => ({ screen_name: bareHandle(input.handle) }),
    response: userShape,
    translate: (data: User) => xProfile(data),
  }),
  x_post_comments: call({
    path: '/api/v1/twitter/web/fetch_post_comments',
    params: (input) => ({ tweet_id: tweetIdOf(input.url), cursor: str(input.cursor) ?? undefined }),
    response: timeline,
    translate: (data: z.output<ReturnType<typeof timeline>>, input) =>
      page(
        data.timeline.map((tweet) =>
          comment('x', {
            id: tweet.tweet_id,
            post_id: tweetIdOf(input.url),
            parent_id: tweetIdOf(input.url),
            author: xAuthor(tweet.user_info, tweet.screen_name),
            text: tweet.text ?? '',
            created_at: tweet.created_at,
            likes: tweet.favorites,
            reply_count: tweet.replies,
          }),
        ),
        data.next_cursor,
      ),
  }),
  // `kind: following` would be `fetch_user_followings`, whose answer the reference does not show.
  x_user_connections: call({
    unsupported: (input) => (input.kind === 'followers' ? undefined : 'TikHub lists followers only'),
    path: '/api/v1/twitter/web/fetch_user_followers',
    params: (input) => ({ screen_name: bareHandle(input.handle), cursor: str(input.cursor) ?? undefined }),
    response: () => z.object({ followers: z.array(userShape()), next_cursor: text() }),
    translate: (data: { followers: User[]; next_cursor?: string | null }, input) =>
      page(data.followers.slice(0, Number(input.count)).map(xProfile), data.next_cursor),
  }),
  x_tweet_engagers: call({
    unsupported: (input) => (input.type === 'reposters' ? undefined : 'TikHub lists reposters only'),
    path: '/api/v1/twitter/web/fetch_retweet_user_list',
    params: (input) => ({ tweet_id: tweetIdOf(input.url), cursor: str(input.cursor) ?? undefined }),
    response: () => z.object({ retweeters: z.array(userShape()), next_cursor: text() }),
    translate: (data: { retweeters: User[]; next_cursor?: string | null }, input) =>
      page(
        data.retweeters.slice(0, Number(input.count)).map((user) => ({ engagement: 'repost', user: xAuthor(user), post: null })),
        data.next_cursor,
      ),
  }),
  x_trends: call({
    unsupported: (input) => (TREND_COUNTRIES[String(input.region)] ? undefined : `TikHub has no trend board for ${String(input.region)}`),
    path: '/api/v1/twitter/web/fetch_trending',
    params: (input) => {
      const country = TREND_COUNTRIES[String(input.region)];
      if (!country) throw new Error(`TikHub has no trend board named for region ${String(input.region)}`);
      return { country };
    },
    response: () => z.object({ trends: z.array(z.object({ name: z.string(), description: text(), context: text() })) }),
    translate: (data: { trends: { name: string; description?: string | null }[] }, input) => ({
      items: data.trends.slice(0, Number(input.count)).map((trend, index) => ({
        network: 'x',
        kind: 'topic',
        name: trend.name,
        url: `https://x.com/search?q=${encodeURIComponent(trend.name)}`,
        rank: index + 1,
        rank_change: null,
        is_new: null,
        post_count: postCountOf(trend.description),
        view_count: null,
      })),
    }),
  }),
};
