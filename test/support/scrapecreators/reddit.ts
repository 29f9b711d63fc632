/** Reddit as ScrapeCreators answers it: one payload per path (without the success envelope). */
import type { Fixtures } from './index.ts';

const t3 = (id: string) => ({
  id,
  name: `t3_${id}`,
  title: 'Single-table design in practice',
  selftext: 'How do you model…',
  author: 'dynamo_fan',
  author_fullname: 't2_abc',
  subreddit: 'aws',
  permalink: `/r/aws/comments/${id}/single_table_design/`,
  url: `https://www.reddit.com/r/aws/comments/${id}/single_table_design/`,
  created_utc: 1717000000,
  score: 412,
  num_comments: 57,
  is_self: true,
  is_video: false,
  thumbnail: 'self',
});

export const reddit: Fixtures = {
  '/v1/reddit/search': { posts: [t3('1abcde')], after: 't3_1abcde' },
  '/v1/reddit/subreddit': { posts: [t3('1abcdf'), t3('1abcdg')], after: null },
  '/v1/reddit/post': t3('1abcde'),
  '/v1/reddit/post/comments': {
    post: t3('1abcde'),
    comments: [
      {
        id: 'k1',
        name: 't1_k1',
        author: 'a',
        body: 'Top comment',
        created_utc: 1717000000,
        parent_id: 't3_1abcde',
        score: 10,
        replies: {
          data: {
            children: [
              { kind: 't1', data: { id: 'k2', author: 'b', body: 'Reply', created_utc: 1717000100, parent_id: 't1_k1', score: 2 } },
            ],
          },
        },
      },
    ],
    more: { has_more: true, cursor: 'more-cursor' },
  },
};

/** Variants for branches the defaults above do not reach. */
export const variants = {
  /** A link post with a thumbnail, nested under `post`, with SC's ISO time. */
  linkPost: {
    post: {
      id: '1linkp',
      title: 'DynamoDB now supports …',
      author: 'aws_news',
      url: 'https://aws.amazon.com/blogs/x',
      permalink: '/r/aws/comments/1linkp/dynamodb_now_supports/',
      created_utc: 1717000000,
      created_at_iso: '2024-05-29T16:26:40.000Z',
      ups: 99,
      num_comments: 3,
      is_self: false,
      is_video: false,
      thumbnail: 'https://b.thumbs.redditmedia.com/t.jpg',
    },
  },
  /** Comments as Reddit nests them: `{kind, data}` entries, a "load more" stub, and "" for no replies. */
  listingComments: {
    post: { id: '1abcde' },
    comments: [
      { kind: 't1', data: { id: 'c1', author: 'x', body: 'First', created_utc: 1717000000, parent_id: 't3_1abcde', ups: 5, replies: '' } },
      {
        kind: 't1',
        data: {
          id: 'c2',
          author: 'y',
          body: 'Second',
          created_utc: 1717000050,
          parent_id: 't3_1abcde',
          score: 3,
          replies: { kind: 'Listing', data: { children: [{ kind: 'more', data: { id: 'm1', parent_id: 't1_c2', children: ['c9'] } }] } },
        },
      },
    ],
  },
};
