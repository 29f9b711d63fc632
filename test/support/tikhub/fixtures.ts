/**
 * TikHub answers, one per path the adapter calls, in its envelope `{code, message, data}`: the
 * trends' body as social-operations.md documents it (`data.trends[]{name, description, context}`),
 * the others the flat tweet and user objects the adapter reads (lib/social/providers/tikhub/x.ts
 * says which parts of the reference are thin).
 */
const user = (n: number) => ({
  rest_id: String(11348282 + n),
  screen_name: n === 0 ? 'NASA' : `fan${n}`,
  name: n === 0 ? 'NASA' : `Fan ${n}`,
  avatar: 'https://pbs.twimg.com/p.jpg',
  desc: 'Exploring the universe',
  blue_verified: n === 0,
  sub_count: 88_000_000 - n,
  friends: 180,
  statuses_count: 72_000,
  location: 'Pale Blue Dot',
  created_at: 'Wed Dec 19 20:20:32 +0000 2007',
  website: 'https://t.co/x',
});

const tweet = (id: string, n = 0) => ({
  tweet_id: id,
  screen_name: 'NASA',
  text: n === 0 ? 'We have liftoff #Artemis' : `Reply ${n}`,
  created_at: 'Thu Sep 12 00:08:39 +0000 2024',
  favorites: 5000,
  retweets: 800,
  replies: 300,
  quotes: 50,
  bookmarks: 70,
  views: '99000',
  user_info: user(n),
});

export const TIKHUB_FIXTURES: Record<string, unknown> = {
  '/api/v1/twitter/web/fetch_search_timeline': {
    timeline: [tweet('1834567890123456789'), tweet('1834567890123456790', 1)],
    next_cursor: 'DAACCgAB',
  },
  '/api/v1/twitter/web/fetch_user_profile': user(0),
  '/api/v1/twitter/web/fetch_post_comments': { timeline: [tweet('1834567890123456791', 2)], next_cursor: null },
  '/api/v1/twitter/web/fetch_user_followers': { followers: [user(1), user(2)], next_cursor: 'cursor-2' },
  '/api/v1/twitter/web/fetch_retweet_user_list': { retweeters: [user(3)], next_cursor: null },
  '/api/v1/twitter/web/fetch_trending': {
    trends: [
      { name: '#Artemis', description: '8.27M posts', context: 'Only on X · Trending' },
      { name: 'Liftoff', description: '12.5K posts', context: 'Trending in Science' },
      { name: 'Moon', description: null, context: null },
    ],
  },
};

export const envelope = (data: unknown) => ({ code: 200, router: '/api/v1/twitter/web', params: {}, data });
