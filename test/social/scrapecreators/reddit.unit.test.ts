/**
 * Reddit on ScrapeCreators: each operation's query and the exact translation of a vendor-shaped
 * payload (test/support/scrapecreators/reddit.ts), which passes the operation's output schema.
 */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../../lib/social/catalog/names.ts';
import { SCRAPECREATORS_OPERATIONS } from '../../../lib/social/providers/scrapecreators/operations.ts';
import { reddit } from '../../../lib/social/providers/scrapecreators/reddit.ts';
import { variants } from '../../support/scrapecreators/reddit.ts';
import { runMapping } from '../../support/scrapecreators/run.ts';

/** What the stub's `t3(id)` translates to. */
const textPost = (id: string) => ({
  network: 'reddit',
  id,
  url: `https://www.reddit.com/r/aws/comments/${id}/single_table_design/`,
  type: 'text',
  author: {
    id: 't2_abc',
    username: 'dynamo_fan',
    display_name: null,
    avatar_url: null,
    url: 'https://www.reddit.com/user/dynamo_fan',
    verified: null,
  },
  title: 'Single-table design in practice',
  text: 'How do you model…',
  created_at: '2024-05-29T16:26:40.000Z',
  media: [],
  metrics: { views: null, likes: 412, comments: 57, shares: null, saves: null, quotes: null },
  hashtags: [],
  mentions: [],
  music: null,
});

describe('Reddit on ScrapeCreators', () => {
  it('maps exactly the Reddit operations ScrapeCreators serves', () => {
    expect(Object.keys(reddit)).toEqual(
      OPERATION_NAMES.filter((name) => name.startsWith('reddit_') && SCRAPECREATORS_OPERATIONS.has(name)),
    );
  });

  it('reddit_search: a search within a subreddit; "comments" is the vendor’s comment_count, "hour" its day', () => {
    const { path, params, output, issues } = runMapping('reddit_search', {
      input: { query: 'dynamodb single table', subreddit: 'r/aws', sort: 'comments', timeframe: 'hour', cursor: 't3_prev' },
    });
    expect({ path, params }).toEqual({
      path: '/v1/reddit/search',
      params: { query: 'dynamodb single table subreddit:aws', sort: 'comment_count', timeframe: 'day', after: 't3_prev' },
    });
    expect(output).toEqual({ items: [textPost('1abcde')], next_cursor: 't3_1abcde', has_more: true });
    expect(issues).toEqual([]);
  });

  it('reddit_subreddit_posts: a subreddit’s posts; a null after ends the list', () => {
    const { path, params, output, issues } = runMapping('reddit_subreddit_posts');
    expect({ path, params }).toEqual({ path: '/v1/reddit/subreddit', params: { subreddit: 'aws', sort: 'top', timeframe: 'week' } });
    expect(output).toEqual({ items: [textPost('1abcdf'), textPost('1abcdg')], next_cursor: null, has_more: false });
    expect(issues).toEqual([]);
  });

  it('reddit_post: a text post at top level', () => {
    const { path, params, output, issues } = runMapping('reddit_post');
    expect({ path, params }).toEqual({
      path: '/v1/reddit/post',
      params: { url: 'https://www.reddit.com/r/aws/comments/1abcde/single_table_design/' },
    });
    expect(output).toEqual(textPost('1abcde'));
    expect(issues).toEqual([]);
  });

  it('reddit_post: a link post nested under `post`', () => {
    const { path, params, output, issues } = runMapping('reddit_post', { payload: variants.linkPost });
    expect({ path, params }).toEqual({
      path: '/v1/reddit/post',
      params: { url: 'https://www.reddit.com/r/aws/comments/1abcde/single_table_design/' },
    });
    expect(output).toEqual({
      network: 'reddit',
      id: '1linkp',
      url: 'https://www.reddit.com/r/aws/comments/1linkp/dynamodb_now_supports/',
      type: 'link',
      author: {
        id: null,
        username: 'aws_news',
        display_name: null,
        avatar_url: null,
        url: 'https://www.reddit.com/user/aws_news',
        verified: null,
      },
      title: 'DynamoDB now supports …',
      text: null,
      created_at: '2024-05-29T16:26:40.000Z',
      media: [
        {
          type: 'image',
          url: 'https://b.thumbs.redditmedia.com/t.jpg',
          thumbnail_url: null,
          width: null,
          height: null,
          duration_seconds: null,
        },
      ],
      metrics: { views: null, likes: 99, comments: 3, shares: null, saves: null, quotes: null },
      hashtags: [],
      mentions: [],
      music: null,
    });
    expect(issues).toEqual([]);
  });

  it('reddit_post_comments: nested comments flattened, each with its parent', () => {
    const { path, params, output, issues } = runMapping('reddit_post_comments');
    expect({ path, params }).toEqual({
      path: '/v1/reddit/post/comments',
      params: { url: 'https://www.reddit.com/r/aws/comments/1abcde/single_table_design/' },
    });
    expect(output).toEqual({
      items: [
        {
          network: 'reddit',
          id: 'k1',
          post_id: '1abcde',
          parent_id: null,
          author: { id: null, username: 'a', display_name: null, avatar_url: null, url: 'https://www.reddit.com/user/a', verified: null },
          text: 'Top comment',
          created_at: '2024-05-29T16:26:40.000Z',
          likes: 10,
          reply_count: null,
        },
        {
          network: 'reddit',
          id: 'k2',
          post_id: '1abcde',
          parent_id: 'k1',
          author: { id: null, username: 'b', display_name: null, avatar_url: null, url: 'https://www.reddit.com/user/b', verified: null },
          text: 'Reply',
          created_at: '2024-05-29T16:28:20.000Z',
          likes: 2,
          reply_count: null,
        },
      ],
      next_cursor: 'more-cursor',
      has_more: true,
    });
    expect(issues).toEqual([]);
  });

  it('reddit_post_comments: `{kind, data}` entries; "load more" stubs and "" replies skipped; no `more`, no next page', () => {
    const { path, params, output, issues } = runMapping('reddit_post_comments', { payload: variants.listingComments });
    expect({ path, params }).toEqual({
      path: '/v1/reddit/post/comments',
      params: { url: 'https://www.reddit.com/r/aws/comments/1abcde/single_table_design/' },
    });
    expect(output).toEqual({
      items: [
        {
          network: 'reddit',
          id: 'c1',
          post_id: '1abcde',
          parent_id: null,
          author: { id: null, username: 'x', display_name: null, avatar_url: null, url: 'https://www.reddit.com/user/x', verified: null },
          text: 'First',
          created_at: '2024-05-29T16:26:40.000Z',
          likes: 5,
          reply_count: null,
        },
        {
          network: 'reddit',
          id: 'c2',
          post_id: '1abcde',
          parent_id: null,
          author: { id: null, username: 'y', display_name: null, avatar_url: null, url: 'https://www.reddit.com/user/y', verified: null },
          text: 'Second',
          created_at: '2024-05-29T16:27:30.000Z',
          likes: 3,
          reply_count: null,
        },
      ],
      next_cursor: null,
      has_more: false,
    });
    expect(issues).toEqual([]);
  });
});
