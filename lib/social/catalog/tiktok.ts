import * as z from 'zod/mini';
import {
  atMost,
  comment,
  count,
  cursor,
  handle,
  lazy,
  list,
  operation,
  page,
  post,
  profile,
  query,
  region,
  trend,
  urlOn,
} from './shapes.ts';

const HASHTAG_RULE = 'must be a hashtag of letters, digits or "_", with or without "#"';
const MUSIC_ID_RULE = 'must be the numeric sound id, e.g. 7016547803243022337';

const account = lazy(() => handle('TikTok'));
const videoUrl = lazy(() => urlOn(['tiktok.com'], 'a tiktok.com video URL, e.g. https://www.tiktok.com/@nasa/video/7301234567890123456'));

export const tiktok = [
  operation({
    name: 'tiktok_profile',
    network: 'tiktok',
    description: 'Get a TikTok account by handle: bio, avatar, followers, following, total likes and video count.',
    cost: 1,
    input: () => z.strictObject({ handle: account() }),
    output: profile,
  }),
  operation({
    name: 'tiktok_user_posts',
    network: 'tiktok',
    description: 'List the videos of a TikTok account, latest or most popular first, a page at a time.',
    cost: 1,
    input: () =>
      z.strictObject({
        handle: account(),
        sort: z._default(z.enum(['latest', 'popular']), 'latest').check(z.describe('order of the videos')),
        region: z.optional(region()),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
  operation({
    name: 'tiktok_post',
    network: 'tiktok',
    description: 'Get one TikTok video by URL: caption, author, sound, views, likes, comments, shares and saves.',
    cost: 1,
    input: () => z.strictObject({ url: videoUrl(), region: z.optional(region()) }),
    output: post,
  }),
  operation({
    name: 'tiktok_post_comments',
    network: 'tiktok',
    description: 'List the comments on a TikTok video, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ url: videoUrl(), cursor: z.optional(cursor()) }),
    output: () => page(comment()),
  }),
  operation({
    name: 'tiktok_search',
    network: 'tiktok',
    description: 'Search TikTok videos by keyword, optionally within a time window; pages may repeat a video.',
    cost: 1,
    input: () =>
      z.strictObject({
        query: query(),
        date_posted: z
          ._default(z.enum(['yesterday', 'this-week', 'this-month', 'last-3-months', 'last-6-months', 'all-time']), 'all-time')
          .check(z.describe('only videos posted in this window')),
        sort: z._default(z.enum(['relevance', 'most-liked', 'date-posted']), 'relevance').check(z.describe('order of the results')),
        region: z.optional(region()),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
  operation({
    name: 'tiktok_hashtag_posts',
    network: 'tiktok',
    description: 'List TikTok videos tagged with a hashtag, a page at a time.',
    cost: 1,
    input: () =>
      z.strictObject({
        hashtag: z.string().check(
          // "#" and 100 letters, each up to 2 UTF-16 units.
          atMost(201, HASHTAG_RULE),
          z.regex(/^#?[\p{L}\p{N}_]{1,100}$/u, HASHTAG_RULE),
          z.describe('hashtag, with or without "#"'),
        ),
        region: z.optional(region()),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
  operation({
    name: 'tiktok_music_posts',
    network: 'tiktok',
    description: 'List TikTok videos that use a sound, by the sound id (the digits at the end of a tiktok.com/music/ URL).',
    cost: 1,
    input: () =>
      z.strictObject({
        music_id: z
          .string()
          .check(
            atMost(30, MUSIC_ID_RULE),
            z.regex(/^[0-9]{5,30}$/, MUSIC_ID_RULE),
            z.describe('numeric sound id, the digits at the end of https://www.tiktok.com/music/<name>-<id>'),
          ),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
  operation({
    name: 'tiktok_trending',
    network: 'tiktok',
    description: 'Get the videos trending on TikTok now, as seen from a country; call again for a fresh batch.',
    cost: 1,
    input: () =>
      z.strictObject({ region: region().check(z.describe('country the feed is fetched from, e.g. US; content is not limited to it')) }),
    output: () => list(post()),
  }),
  operation({
    name: 'tiktok_trend_scan',
    network: 'tiktok',
    description: 'Scan TikTok trend boards (hashtags, sounds, creators, videos) for a country and period, ranked.',
    cost: 5,
    input: () =>
      z.strictObject({
        region: region(),
        period: z._default(z.enum(['7d', '30d', '120d']), '7d').check(z.describe('trend window')),
        kinds: z
          ._default(z.array(z.enum(['hashtag', 'sound', 'creator', 'video'])).check(z.minLength(1), z.maxLength(4)), ['hashtag'])
          .check(z.describe('which boards to scan')),
        new_only: z._default(z.boolean(), false).check(z.describe('only entries new on the board in this period')),
        count: count(50, 20),
        cursor: z.optional(cursor()),
      }),
    output: () => page(trend()),
  }),
];
