import * as z from 'zod/mini';
import { comment, cursor, group, lazy, operation, page, post, profile, query, urlOn } from './shapes.ts';

const pageUrl = lazy(() => urlOn(['facebook.com', 'fb.com'], 'a facebook.com page or profile URL, e.g. https://www.facebook.com/nasa'));
const postUrl = lazy(() => urlOn(['facebook.com', 'fb.watch'], 'a facebook.com post, video or reel URL'));
const groupUrl = lazy(() => urlOn(['facebook.com/groups'], 'a facebook.com/groups/ URL, e.g. https://www.facebook.com/groups/123456789'));

export const facebook = [
  operation({
    name: 'facebook_page',
    network: 'facebook',
    description: 'Get a public Facebook page or profile by URL: intro, category, likes, followers, contact details.',
    cost: 1,
    input: () => z.strictObject({ url: pageUrl() }),
    output: profile,
  }),
  operation({
    name: 'facebook_page_posts',
    network: 'facebook',
    description: 'List the public posts of a Facebook page, newest first, a few per page.',
    cost: 1,
    input: () => z.strictObject({ url: pageUrl(), cursor: z.optional(cursor()) }),
    output: () => page(post()),
  }),
  operation({
    name: 'facebook_page_reels',
    network: 'facebook',
    description: 'List the reels of a Facebook page, newest first, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ url: pageUrl(), cursor: z.optional(cursor()) }),
    output: () => page(post()),
  }),
  operation({
    name: 'facebook_post',
    network: 'facebook',
    description: 'Get one public Facebook post or reel by URL: text, media, reactions, comments, shares, views.',
    cost: 1,
    input: () => z.strictObject({ url: postUrl() }),
    output: post,
  }),
  operation({
    name: 'facebook_post_comments',
    network: 'facebook',
    description: 'List the comments on a public Facebook post, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ url: postUrl(), cursor: z.optional(cursor()) }),
    output: () => page(comment()),
  }),
  operation({
    name: 'facebook_group',
    network: 'facebook',
    description: 'Get a Facebook group by URL: description, privacy, member count and recent activity.',
    cost: 1,
    input: () => z.strictObject({ url: groupUrl() }),
    output: group,
  }),
  operation({
    name: 'facebook_group_posts',
    network: 'facebook',
    description: 'List the posts of a public Facebook group, in the chosen order, a few per page.',
    cost: 1,
    input: () =>
      z.strictObject({
        url: groupUrl(),
        sort: z._default(z.enum(['chronological', 'recent-activity', 'top']), 'chronological').check(z.describe('order of the posts')),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
  operation({
    name: 'facebook_search',
    network: 'facebook',
    description: 'Search public Facebook posts or videos by keywords, a page at a time.',
    cost: 1,
    input: () =>
      z.strictObject({
        query: query(),
        type: z._default(z.enum(['posts', 'videos']), 'posts').check(z.describe('what to search for')),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
];
