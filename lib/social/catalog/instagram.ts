import * as z from 'zod/mini';
import { atMost, comment, cursor, handle, highlight, lazy, list, operation, page, post, profile, story, urlOn } from './shapes.ts';

const HIGHLIGHT_ID_RULE = 'must be a highlight id from instagram_user_highlights, e.g. 17912345678901234';

const account = lazy(() => handle('Instagram'));
const postUrl = lazy(() => urlOn(['instagram.com'], 'an instagram.com post or reel URL, e.g. https://www.instagram.com/p/C8xYz12AbCd/'));

export const instagram = [
  operation({
    name: 'instagram_profile',
    network: 'instagram',
    description: 'Get an Instagram account by handle: bio, avatar, follower, following and post counts.',
    cost: 1,
    input: () => z.strictObject({ handle: account() }),
    output: profile,
  }),
  operation({
    name: 'instagram_user_posts',
    network: 'instagram',
    description: 'List the posts and reels of an Instagram account, newest first, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ handle: account(), cursor: z.optional(cursor()) }),
    output: () => page(post()),
  }),
  operation({
    name: 'instagram_user_reels',
    network: 'instagram',
    description: 'List the reels of an Instagram account (pinned reels excluded), newest first.',
    cost: 1,
    input: () => z.strictObject({ handle: account(), cursor: z.optional(cursor()) }),
    output: () => page(post()),
  }),
  operation({
    name: 'instagram_user_stories',
    network: 'instagram',
    description: 'Get the stories an Instagram account has live now (stories expire after 24 hours).',
    cost: 1,
    input: () => z.strictObject({ handle: account() }),
    output: () => list(story()),
  }),
  operation({
    name: 'instagram_user_highlights',
    network: 'instagram',
    description: 'List the story highlights pinned to an Instagram profile; pass an id to instagram_highlight_stories.',
    cost: 1,
    input: () => z.strictObject({ handle: account() }),
    output: () => list(highlight()),
  }),
  operation({
    name: 'instagram_highlight_stories',
    network: 'instagram',
    description: 'Get the stories saved in one Instagram highlight, by the id from instagram_user_highlights.',
    cost: 1,
    input: () =>
      z.strictObject({
        highlight_id: z
          .string()
          .check(
            atMost(40, HIGHLIGHT_ID_RULE),
            z.regex(/^(highlight:)?[0-9]{1,30}$/, HIGHLIGHT_ID_RULE),
            z.describe('highlight id from instagram_user_highlights'),
          ),
      }),
    output: () => z.extend(highlight(), { items: z.array(story()) }),
  }),
  operation({
    name: 'instagram_post',
    network: 'instagram',
    description: 'Get one Instagram post or reel by URL: caption, media, likes, comments and views.',
    cost: 1,
    input: () => z.strictObject({ url: postUrl() }),
    output: post,
  }),
  operation({
    name: 'instagram_post_comments',
    network: 'instagram',
    description: 'List the comments on an Instagram post or reel, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ url: postUrl(), cursor: z.optional(cursor()) }),
    output: () => page(comment()),
  }),
];
