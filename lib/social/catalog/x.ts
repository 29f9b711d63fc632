import * as z from 'zod/mini';
import { atMost, author, comment, count, cursor, handle, lazy, list, operation, page, post, profile, trend, urlOn } from './shapes.ts';

const TRENDS_REGION_RULE = 'must be an ISO 3166-1 alpha-2 country code in capitals, or WW for worldwide';

const account = lazy(() => handle('X'));
const postUrl = lazy(() => urlOn(['x.com', 'twitter.com'], 'an x.com post URL, e.g. https://x.com/nasa/status/1834567890123456789'));

export const x = [
  operation({
    name: 'x_search',
    network: 'x',
    description: 'Search recent X posts; the query takes X operators such as from:, lang: and -is:retweet.',
    cost: 1,
    input: () =>
      z.strictObject({
        query: z.string().check(z.trim(), z.minLength(1), z.maxLength(512), z.describe('search query, X search operators allowed')),
        sort: z._default(z.enum(['latest', 'top']), 'latest').check(z.describe('order of the results')),
        count: count(100, 20),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
  operation({
    name: 'x_profile',
    network: 'x',
    description: 'Get an X account by handle: bio, location, followers, following and post counts.',
    cost: 1,
    input: () => z.strictObject({ handle: account() }),
    output: profile,
  }),
  operation({
    name: 'x_user_posts',
    network: 'x',
    description: 'List the posts of an X account, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ handle: account(), count: count(100, 20), cursor: z.optional(cursor()) }),
    output: () => page(post()),
  }),
  operation({
    name: 'x_post',
    network: 'x',
    description: 'Get one X post by URL: text, author, media, views, likes, reposts, replies and quotes.',
    cost: 1,
    input: () => z.strictObject({ url: postUrl() }),
    output: post,
  }),
  operation({
    name: 'x_post_comments',
    network: 'x',
    description: 'List the replies to an X post, most relevant or latest first, a page at a time.',
    cost: 1,
    input: () =>
      z.strictObject({
        url: postUrl(),
        sort: z._default(z.enum(['relevance', 'latest']), 'relevance'),
        cursor: z.optional(cursor()),
      }),
    output: () => page(comment()),
  }),
  operation({
    name: 'x_user_connections',
    network: 'x',
    description: 'List the followers of an X account, or the accounts it follows, a page at a time.',
    cost: 1,
    input: () =>
      z.strictObject({
        handle: account(),
        kind: z._default(z.enum(['followers', 'following']), 'followers').check(z.describe('which side of the relationship')),
        count: count(100, 50),
        cursor: z.optional(cursor()),
      }),
    output: () => page(profile()),
  }),
  operation({
    name: 'x_tweet_engagers',
    network: 'x',
    description: 'List the accounts that reposted, quoted, replied to or liked an X post (likes are often hidden).',
    cost: 1,
    input: () =>
      z.strictObject({
        url: postUrl(),
        type: z._default(z.enum(['reposters', 'quoters', 'repliers', 'likers']), 'reposters').check(z.describe('which engagement to list')),
        count: count(100, 50),
        cursor: z.optional(cursor()),
      }),
    output: () =>
      page(
        z.object({
          engagement: z.enum(['repost', 'quote', 'reply', 'like']),
          user: author(),
          /** The quote or reply itself; null for reposts and likes. */
          post: z.nullable(post()),
        }),
      ),
  }),
  operation({
    name: 'x_trends',
    network: 'x',
    description: 'Get the topics trending on X in a country, or worldwide with region WW.',
    cost: 1,
    input: () =>
      z.strictObject({
        region: z
          .string()
          .check(
            atMost(2, TRENDS_REGION_RULE),
            z.regex(/^[A-Z]{2}$/, TRENDS_REGION_RULE),
            z.describe('ISO 3166-1 alpha-2 country code, or WW for worldwide'),
          ),
        count: count(50, 20),
      }),
    output: () => list(z.extend(trend(), { network: z.enum(['x']) })),
  }),
];
