/**
 * X on ScrapeCreators: each operation's query and the exact translation of a vendor-shaped
 * payload (test/support/scrapecreators/x.ts), which passes the operation's output schema.
 */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../../lib/social/catalog/names.ts';
import { SCRAPECREATORS_OPERATIONS } from '../../../lib/social/providers/scrapecreators/operations.ts';
import { x } from '../../../lib/social/providers/scrapecreators/x.ts';
import { runMapping } from '../../support/scrapecreators/run.ts';
import { variants } from '../../support/scrapecreators/x.ts';

/** What the stub's `tweet(id)` translates to. */
const photoTweet = (id: string) => ({
  network: 'x',
  id,
  url: `https://x.com/NASA/status/${id}`,
  type: 'image',
  author: {
    id: '11348282',
    username: 'NASA',
    display_name: 'NASA',
    avatar_url: 'https://pbs.twimg.com/p.jpg',
    url: 'https://x.com/NASA',
    verified: true,
  },
  title: null,
  text: 'We have liftoff #Artemis',
  created_at: '2024-09-12T00:08:39.000Z',
  media: [
    { type: 'image', url: 'https://pbs.twimg.com/media/a.jpg', thumbnail_url: null, width: 1200, height: 800, duration_seconds: null },
  ],
  metrics: { views: 99000, likes: 5000, comments: 300, shares: 800, saves: 70, quotes: 50 },
  hashtags: ['Artemis'],
  mentions: [],
  music: null,
});

describe('X on ScrapeCreators', () => {
  it('maps exactly the X operations ScrapeCreators serves', () => {
    expect(Object.keys(x)).toEqual(OPERATION_NAMES.filter((name) => name.startsWith('x_') && SCRAPECREATORS_OPERATIONS.has(name)));
  });

  it('x_profile: a profile from the GraphQL user', () => {
    const { path, params, output, issues } = runMapping('x_profile');
    expect({ path, params }).toEqual({ path: '/v1/twitter/profile', params: { handle: 'nasa' } });
    expect(output).toEqual({
      network: 'x',
      id: '11348282',
      username: 'NASA',
      display_name: 'NASA',
      bio: 'Exploring the universe',
      avatar_url: 'https://pbs.twimg.com/p.jpg',
      url: 'https://x.com/NASA',
      external_url: 'https://t.co/x',
      verified: true,
      private: null,
      category: null,
      location: 'Pale Blue Dot',
      created_at: '2007-12-19T20:20:32.000Z',
      followers: 88000000,
      following: 180,
      posts_count: 72000,
      likes_count: 15000,
    });
    expect(issues).toEqual([]);
  });

  it('x_user_posts: popular posts in one piece, cut to `count`', () => {
    const { path, params, output, issues } = runMapping('x_user_posts', { input: { handle: 'nasa', count: 1 } });
    expect({ path, params }).toEqual({ path: '/v1/twitter/user-tweets', params: { handle: 'nasa' } });
    expect(output).toEqual({ items: [photoTweet('1834567890123456789')], next_cursor: null, has_more: false });
    expect(issues).toEqual([]);
  });

  it('x_post: a post with a photo', () => {
    const { path, params, output, issues } = runMapping('x_post');
    expect({ path, params }).toEqual({ path: '/v1/twitter/tweet', params: { url: 'https://x.com/nasa/status/1834567890123456789' } });
    expect(output).toEqual(photoTweet('1834567890123456789'));
    expect(issues).toEqual([]);
  });

  it('x_post: a video post, its last mp4 variant, its URL made from the author', () => {
    const { path, params, output, issues } = runMapping('x_post', { payload: variants.videoTweet });
    expect({ path, params }).toEqual({ path: '/v1/twitter/tweet', params: { url: 'https://x.com/nasa/status/1834567890123456789' } });
    expect(output).toEqual({
      network: 'x',
      id: '1834567890123456791',
      url: 'https://x.com/NASA/status/1834567890123456791',
      type: 'video',
      author: { id: '11348282', username: 'NASA', display_name: null, avatar_url: null, url: 'https://x.com/NASA', verified: false },
      title: null,
      text: 'Replay @NASA_SLS',
      created_at: '2024-09-13T10:00:00.000Z',
      media: [
        {
          type: 'video',
          url: 'https://video.twimg.com/1080.mp4',
          thumbnail_url: 'https://pbs.twimg.com/v.jpg',
          width: null,
          height: null,
          duration_seconds: 30.5,
        },
      ],
      metrics: { views: null, likes: null, comments: null, shares: null, saves: null, quotes: null },
      hashtags: [],
      mentions: ['NASA_SLS'],
      music: null,
    });
    expect(issues).toEqual([]);
  });
});
