import * as z from 'zod/mini';
import { atMost, comment, cursor, lazy, operation, page, post, query, urlOn } from './shapes.ts';

const SUBREDDIT = /^(r\/)?[A-Za-z0-9_]{2,21}$/;
const SUBREDDIT_RULE = 'must be a subreddit name, with or without "r/"';

const postUrl = lazy(() => urlOn(['reddit.com', 'redd.it'], 'a reddit.com post URL, e.g. https://www.reddit.com/r/aws/comments/1abcde/…'));
const timeframe = lazy(() =>
  z._default(z.enum(['hour', 'day', 'week', 'month', 'year', 'all']), 'all').check(z.describe('time window for "top" ordering')),
);

export const reddit = [
  operation({
    name: 'reddit_search',
    network: 'reddit',
    description: 'Search Reddit posts by keywords, optionally within one subreddit, in the chosen order.',
    cost: 1,
    input: () =>
      z.strictObject({
        query: query(),
        subreddit: z
          .optional(z.string().check(atMost(23, SUBREDDIT_RULE), z.regex(SUBREDDIT, SUBREDDIT_RULE)))
          .check(z.describe('restrict the search to this subreddit')),
        sort: z._default(z.enum(['relevance', 'new', 'top', 'comments']), 'relevance'),
        timeframe: timeframe(),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
  operation({
    name: 'reddit_subreddit_posts',
    network: 'reddit',
    description: 'List the posts of a subreddit (hot, new, top, rising or best), a page at a time.',
    cost: 1,
    input: () =>
      z.strictObject({
        subreddit: z
          .string()
          .check(atMost(23, SUBREDDIT_RULE), z.regex(SUBREDDIT, SUBREDDIT_RULE), z.describe('subreddit name, with or without "r/"')),
        sort: z._default(z.enum(['hot', 'new', 'top', 'rising', 'best']), 'hot'),
        timeframe: timeframe(),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
  operation({
    name: 'reddit_post',
    network: 'reddit',
    description: 'Get one Reddit post by URL: title, body, author, subreddit, score and comment count.',
    cost: 1,
    input: () => z.strictObject({ url: postUrl() }),
    output: post,
  }),
  operation({
    name: 'reddit_post_comments',
    network: 'reddit',
    description: 'List the comments on a Reddit post (replies flattened, with parent_id), a page at a time.',
    cost: 1,
    input: () => z.strictObject({ url: postUrl(), cursor: z.optional(cursor()) }),
    output: () => page(comment()),
  }),
];
