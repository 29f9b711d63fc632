/**
 * TikTok on ScrapeCreators: each operation's query and the exact translation of a vendor-shaped
 * payload (test/support/scrapecreators/tiktok.ts), which passes the operation's output schema.
 */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../../lib/social/catalog/names.ts';
import { SCRAPECREATORS_OPERATIONS } from '../../../lib/social/providers/scrapecreators/operations.ts';
import { tiktok } from '../../../lib/social/providers/scrapecreators/tiktok.ts';
import { runMapping } from '../../support/scrapecreators/run.ts';
import { variants } from '../../support/scrapecreators/tiktok.ts';

/** What the stub's `aweme(id)` translates to. */
const video = (id: string) => ({
  network: 'tiktok',
  id,
  url: `https://www.tiktok.com/@nasa/video/${id}`,
  type: 'video',
  author: {
    id: '6770000000000000001',
    username: 'nasa',
    display_name: 'NASA',
    avatar_url: 'https://p16.tiktokcdn.com/a.jpg',
    url: 'https://www.tiktok.com/@nasa',
    verified: null,
  },
  title: null,
  text: 'Liftoff! #space @nasa',
  created_at: '2024-05-29T16:26:40.000Z',
  media: [
    {
      type: 'video',
      url: 'https://v16.tiktokcdn.com/v.mp4',
      thumbnail_url: 'https://p16.tiktokcdn.com/c.jpg',
      width: 1080,
      height: 1920,
      duration_seconds: 15.3,
    },
  ],
  metrics: { views: 120000, likes: 5400, comments: 210, shares: 88, saves: 40, quotes: null },
  hashtags: ['space'],
  mentions: ['nasa'],
  music: { id: '7016547803243022337', title: 'original sound', artist: 'NASA', url: null },
});

describe('TikTok on ScrapeCreators', () => {
  it('maps exactly the TikTok operations ScrapeCreators serves', () => {
    expect(Object.keys(tiktok)).toEqual(
      OPERATION_NAMES.filter((name) => name.startsWith('tiktok_') && SCRAPECREATORS_OPERATIONS.has(name)),
    );
  });

  it('tiktok_profile: a profile from user and stats', () => {
    const { path, params, output, issues } = runMapping('tiktok_profile');
    expect({ path, params }).toEqual({ path: '/v1/tiktok/profile', params: { handle: 'nasa' } });
    expect(output).toEqual({
      network: 'tiktok',
      id: '6770000000000000001',
      username: 'nasa',
      display_name: 'NASA',
      bio: 'Explore',
      avatar_url: 'https://p16.tiktokcdn.com/l.jpg',
      url: 'https://www.tiktok.com/@nasa',
      external_url: null,
      verified: true,
      private: false,
      category: null,
      location: null,
      created_at: null,
      followers: 10000000,
      following: 5,
      posts_count: 900,
      likes_count: 200000000,
    });
    expect(issues).toEqual([]);
  });

  it('tiktok_user_posts: sort, max_cursor and region in; has_more 1 means a next page', () => {
    const { path, params, output, issues } = runMapping('tiktok_user_posts', {
      input: { handle: '@nasa', sort: 'popular', cursor: '1717000000000', region: 'US' },
    });
    expect({ path, params }).toEqual({
      path: '/v3/tiktok/profile/videos',
      params: { handle: 'nasa', sort_by: 'popular', max_cursor: '1717000000000', region: 'US' },
    });
    expect(output).toEqual({ items: [video('7301234567890123456')], next_cursor: '1716000000000', has_more: true });
    expect(issues).toEqual([]);
  });

  it('tiktok_post: a video, its duration from ms, its music id from id_str', () => {
    const { path, params, output, issues } = runMapping('tiktok_post');
    expect({ path, params }).toEqual({
      path: '/v2/tiktok/video',
      params: { url: 'https://www.tiktok.com/@nasa/video/7301234567890123456' },
    });
    expect(output).toEqual(video('7301234567890123456'));
    expect(issues).toEqual([]);
  });

  it('tiktok_post: a photo carousel without url or music; custom_verify makes a verified author', () => {
    const { path, params, output, issues } = runMapping('tiktok_post', { payload: variants.photoPost });
    expect({ path, params }).toEqual({
      path: '/v2/tiktok/video',
      params: { url: 'https://www.tiktok.com/@nasa/video/7301234567890123456' },
    });
    expect(output).toEqual({
      network: 'tiktok',
      id: '7301234567890123499',
      url: 'https://www.tiktok.com/share/7301234567890123499',
      type: 'carousel',
      author: {
        id: '1',
        username: 'fan',
        display_name: 'Fan',
        avatar_url: 'https://p16.tiktokcdn.com/f.jpg',
        url: 'https://www.tiktok.com/@fan',
        verified: true,
      },
      title: null,
      text: null,
      created_at: '2024-05-29T16:26:40.000Z',
      media: [
        { type: 'image', url: 'https://p16.tiktokcdn.com/1.jpg', thumbnail_url: null, width: 1080, height: 1440, duration_seconds: null },
        { type: 'image', url: 'https://p16.tiktokcdn.com/2.jpg', thumbnail_url: null, width: 1080, height: 1440, duration_seconds: null },
      ],
      metrics: { views: 5000, likes: 50, comments: null, shares: null, saves: null, quotes: null },
      hashtags: [],
      mentions: [],
      music: null,
    });
    expect(issues).toEqual([]);
  });

  it('tiktok_post_comments: comments; has_more 0 ends the list', () => {
    const { path, params, output, issues } = runMapping('tiktok_post_comments', {
      input: { url: 'https://www.tiktok.com/@nasa/video/7301234567890123456', cursor: '20' },
    });
    expect({ path, params }).toEqual({
      path: '/v1/tiktok/video/comments',
      params: { url: 'https://www.tiktok.com/@nasa/video/7301234567890123456', cursor: '20' },
    });
    expect(output).toEqual({
      items: [
        {
          network: 'tiktok',
          id: '7300000000000000001',
          post_id: '7301234567890123456',
          parent_id: null,
          author: { id: '1', username: 'fan', display_name: 'Fan', avatar_url: null, url: 'https://www.tiktok.com/@fan', verified: null },
          text: 'so cool',
          created_at: '2024-05-29T16:26:40.000Z',
          likes: 12,
          reply_count: 1,
        },
      ],
      next_cursor: null,
      has_more: false,
    });
    expect(issues).toEqual([]);
  });

  it('tiktok_search: search results wrapped in aweme_info; the cursor alone says there is more', () => {
    const { path, params, output, issues } = runMapping('tiktok_search');
    expect({ path, params }).toEqual({
      path: '/v1/tiktok/search/keyword',
      params: { query: 'rocket launch', date_posted: 'this-week', sort_by: 'relevance' },
    });
    expect(output).toEqual({ items: [video('7301234567890123457')], next_cursor: '12', has_more: true });
    expect(issues).toEqual([]);
  });

  it('tiktok_hashtag_posts: a hashtag’s videos, the hashtag sent without "#"', () => {
    const { path, params, output, issues } = runMapping('tiktok_hashtag_posts');
    expect({ path, params }).toEqual({ path: '/v1/tiktok/search/hashtag', params: { hashtag: 'space' } });
    expect(output).toEqual({ items: [video('7301234567890123458')], next_cursor: '30', has_more: true });
    expect(issues).toEqual([]);
  });

  it('tiktok_music_posts: a sound’s videos by clipId; has_more 0 ends the list', () => {
    const { path, params, output, issues } = runMapping('tiktok_music_posts');
    expect({ path, params }).toEqual({ path: '/v1/tiktok/song/videos', params: { clipId: '7016547803243022337' } });
    expect(output).toEqual({ items: [video('7301234567890123459')], next_cursor: null, has_more: false });
    expect(issues).toEqual([]);
  });

  it('tiktok_trending: the trending feed, in one piece', () => {
    const { path, params, output, issues } = runMapping('tiktok_trending');
    expect({ path, params }).toEqual({ path: '/v1/tiktok/get-trending-feed', params: { region: 'US' } });
    expect(output).toEqual({ items: [video('7301234567890123460')] });
    expect(issues).toEqual([]);
  });
});
