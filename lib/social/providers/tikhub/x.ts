/**
 * X on TikHub (`/api/v1/twitter/web/…`, TikHub's Twitter-Web-API): the endpoints its official
 * SDK calls (github.com/TikHubIO/TikHub-API-Python-SDK, tikhub/api/v1/endpoints/twitter/web),
 * their answers in TikHub's envelope `{code, message, data}` (social-operations.md, "TikHub").
 *
 * The reference documents `fetch_trending`'s answer (`data.trends[]{name, description,
 * context}`) and the envelope. The search's and the comments' are read as two public clients of
 * the API read them, which agree (typed models of its Twitter answers, and a client of them):
 * - `fetch_search_timeline`: `data.timeline[]`, whose items of a `type` other than `tweet` are
 *   not tweets (skipped), each tweet `{tweet_id, text, created_at, favorites, retweets, replies,
 *   quotes, bookmarks, views, user_info{rest_id, screen_name, name, avatar, blue_verified}}`, and
 *   `data.next_cursor`;
 * - `fetch_post_comments`: `data.thread[]` of the same items, a comment's id in `id` (or
 *   `tweet_id`), its author in `author` (or `user_info`; avatar `image`), its likes in `likes`
 *   (or `favorites`), its text in `display_text` (or `text`), and `data.next_cursor`.
 * The user lists: `data.followers` with `more_users` (a public client), the reposters as `retweets`
 * (a client) or `users` (another's notes). The profile: a flat user whose fields a public client
 * reads (`name`, `desc`, `avatar`, `blue_verified`, `sub_count`, `location`, `website`), its
 * handle as `screen_name` or `profile`; its other fields, and the listed users', as the fixtures
 * (test/support/tikhub/) assume. An answer of another shape is refused (the run fails over or is
 * refunded), never half-read: docs/social-operations.md, "TikHub", says what to check.
 */
import * as z from 'zod/mini';
import { PROFILE_URL } from '../../mention.ts';
import { author, comment, page, post, profile } from '../scrapecreators/output.ts';
import { bareHandle, int, str } from '../scrapecreators/read.ts';
import { id, count as num, text } from '../scrapecreators/vendor-shapes.ts';
import { call, type TikHubMapping } from './mapping.ts';

/** A user of the profile and the user lists: its handle as `screen_name`, or `profile` (as a public client reads the profile). */
const userShape = () =>
  z.object({
    rest_id: id(),
    screen_name: text(),
    profile: text(),
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

/** A user inside a tweet or a comment: all of it optional. */
const embeddedUser = () =>
  z.object({
    rest_id: id(),
    screen_name: text(),
    name: text(),
    avatar: text(),
    image: text(),
    blue_verified: z.nullish(z.boolean()),
  });
type EmbeddedUser = z.output<ReturnType<typeof embeddedUser>>;

/** A tweet of the search, or a comment of a thread: it has an id. */
const tweetShape = () =>
  z
    .object({
      type: text(),
      tweet_id: id(),
      id: id(),
      screen_name: text(),
      text: text(),
      display_text: text(),
      created_at: text(),
      favorites: num(),
      likes: num(),
      retweets: num(),
      replies: num(),
      quotes: num(),
      bookmarks: num(),
      views: num(),
      user_info: z.nullish(embeddedUser()),
      author: z.nullish(embeddedUser()),
    })
    .check(z.refine((tweet) => str(tweet.tweet_id ?? tweet.id) !== null, { error: 'a tweet without an id' }));
type Tweet = z.output<ReturnType<typeof tweetShape>>;

/** An item of a timeline that says it is no tweet (a user, a cursor module): skipped. */
const notATweet = () => z.object({ type: z.string().check(z.refine((type) => type !== 'tweet')) });

const tweetIdOfItem = (tweet: Tweet): string => str(tweet.tweet_id ?? tweet.id) as string;

const xAuthor = (user: User | EmbeddedUser | null | undefined, screenName?: string | null) => {
  const handle = user?.screen_name ?? (user && 'profile' in user ? user.profile : undefined) ?? screenName;
  return author({
    id: user?.rest_id,
    username: handle,
    display_name: user?.name,
    avatar_url: user?.avatar ?? (user && 'image' in user ? user.image : undefined),
    url: handle ? PROFILE_URL.x(handle) : null,
    verified: user?.blue_verified,
  });
};

const xPost = (tweet: Tweet) => {
  const handle = tweet.user_info?.screen_name ?? tweet.screen_name;
  const tweetId = tweetIdOfItem(tweet);
  return post({
    network: 'x',
    id: tweetId,
    url: handle ? `https://x.com/${handle}/status/${tweetId}` : null,
    type: 'text',
    author: xAuthor(tweet.user_info, tweet.screen_name),
    text: tweet.text,
    created_at: tweet.created_at,
    metrics: {
      views: int(tweet.views),
      likes: int(tweet.favorites ?? tweet.likes),
      comments: int(tweet.replies),
      shares: int(tweet.retweets),
      saves: int(tweet.bookmarks),
      quotes: int(tweet.quotes),
    },
  });
};

const handleOf = (user: User, asked?: string): string | null => user.screen_name ?? user.profile ?? asked ?? null;

const xProfile = (user: User, asked?: string) => {
  const handle = handleOf(user, asked);
  return profile('x', {
    id: user.rest_id,
    username: handle,
    display_name: user.name,
    bio: user.desc,
    avatar_url: user.avatar,
    url: handle ? PROFILE_URL.x(handle) : null,
    external_url: user.website,
    verified: user.blue_verified,
    location: user.location,
    created_at: user.created_at,
    followers: user.sub_count,
    following: user.friends,
    posts_count: user.statuses_count,
  });
};

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

/** A timeline's tweet: an item that says it is one, or says nothing of its type. */
const timelineTweet = () =>
  tweetShape().check(z.refine((tweet) => tweet.type === undefined || tweet.type === null || tweet.type === 'tweet'));

const timeline = () => z.object({ timeline: z.array(z.union([timelineTweet(), notATweet()])), next_cursor: text() });
type Timeline = z.output<ReturnType<typeof timeline>>;
const isTweet = (item: Timeline['timeline'][number]): item is Tweet => 'tweet_id' in item || 'id' in item;

const thread = () => z.object({ thread: z.array(tweetShape()), next_cursor: text() });

export const x: Readonly<Record<string, TikHubMapping>> = {
  x_search: call({
    path: '/api/v1/twitter/web/fetch_search_timeline',
    params: (input) => ({
      keyword: String(input.query),
      search_type: input.sort === 'top' ? 'Top' : 'Latest',
      cursor: str(input.cursor) ?? undefined,
    }),
    response: timeline,
    translate: (data: Timeline, input) => page(data.timeline.filter(isTweet).slice(0, Number(input.count)).map(xPost), data.next_cursor),
  }),
  x_profile: call({
    path: '/api/v1/twitter/web/fetch_user_profile',
    params: (input) => ({ screen_name: bareHandle(input.handle) }),
    response: userShape,
    translate: (data: User, input) => xProfile(data, bareHandle(input.handle)),
  }),
  x_post_comments: call({
    path: '/api/v1/twitter/web/fetch_post_comments',
    params: (input) => ({ tweet_id: tweetIdOf(input.url), cursor: str(input.cursor) ?? undefined }),
    response: thread,
    translate: (data: z.output<ReturnType<typeof thread>>, input) =>
      page(
        data.thread.map((reply) =>
          comment('x', {
            id: tweetIdOfItem(reply),
            post_id: tweetIdOf(input.url),
            parent_id: tweetIdOf(input.url),
            author: xAuthor(reply.author ?? reply.user_info, reply.screen_name),
            text: reply.display_text ?? reply.text ?? '',
            created_at: reply.created_at,
            likes: reply.likes ?? reply.favorites,
            reply_count: reply.replies,
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
    // `more_users` says whether a next page exists, as a public client reads it.
    response: () => z.object({ followers: z.array(userShape()), next_cursor: text(), more_users: z.nullish(z.boolean()) }),
    translate: (data: { followers: User[]; next_cursor?: string | null; more_users?: boolean | null }, input) =>
      page(
        data.followers.slice(0, Number(input.count)).map((user) => xProfile(user)),
        data.next_cursor,
        data.more_users ?? undefined,
      ),
  }),
  // Its users come as `retweets` (a public client) or `users` (another's notes): either is read.
  x_tweet_engagers: call({
    unsupported: (input) => (input.type === 'reposters' ? undefined : 'TikHub lists reposters only'),
    path: '/api/v1/twitter/web/fetch_retweet_user_list',
    params: (input) => ({ tweet_id: tweetIdOf(input.url), cursor: str(input.cursor) ?? undefined }),
    response: () =>
      z
        .object({ retweets: z.nullish(z.array(userShape())), users: z.nullish(z.array(userShape())), next_cursor: text() })
        .check(z.refine((data) => Array.isArray(data.retweets) || Array.isArray(data.users), { error: 'no list of users' })),
    translate: (data: { retweets?: User[] | null; users?: User[] | null; next_cursor?: string | null }, input) =>
      page(
        (data.retweets ?? data.users ?? [])
          .slice(0, Number(input.count))
          .map((user) => ({ engagement: 'repost', user: xAuthor(user), post: null })),
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
