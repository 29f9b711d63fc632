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
