/**
 * Instagram on ScrapeCreators: each operation's query and the exact translation of a vendor-shaped
 * payload (test/support/scrapecreators/instagram.ts), which passes the operation's output schema.
 */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../../lib/social/catalog/names.ts';
import { instagram } from '../../../lib/social/providers/scrapecreators/instagram.ts';
import { SCRAPECREATORS_OPERATIONS } from '../../../lib/social/providers/scrapecreators/operations.ts';
import { variants } from '../../support/scrapecreators/instagram.ts';
import { runMapping } from '../../support/scrapecreators/run.ts';

/** What the stub's `igItem(pk)` translates to. */
const reel = (id: string) => ({
  network: 'instagram',
  id,
  url: 'https://www.instagram.com/reel/C8xYz12AbCd/',
  type: 'reel',
  author: {
    id: '528817151',
    username: 'nasa',
    display_name: 'NASA',
    avatar_url: 'https://scontent.cdninstagram.com/p.jpg',
    url: 'https://www.instagram.com/nasa/',
    verified: true,
  },
  title: null,
  text: 'Earthrise #space',
  created_at: '2024-05-29T16:26:40.000Z',
  media: [
    {
      type: 'video',
      url: 'https://scontent.cdninstagram.com/v.mp4',
      thumbnail_url: 'https://scontent.cdninstagram.com/i.jpg',
      width: null,
      height: null,
      duration_seconds: 12.5,
    },
  ],
  metrics: { views: 50000, likes: 1000, comments: 20, shares: null, saves: null, quotes: null },
  hashtags: ['space'],
  mentions: [],
  music: null,
});

describe('Instagram on ScrapeCreators', () => {
  it('maps exactly the Instagram operations ScrapeCreators serves', () => {
    expect(Object.keys(instagram)).toEqual(
      OPERATION_NAMES.filter((name) => name.startsWith('instagram_') && SCRAPECREATORS_OPERATIONS.has(name)),
    );
  });

  it('instagram_profile: the bare handle in, the GraphQL user out as a profile', () => {
    const { path, params, output, issues } = runMapping('instagram_profile', { input: { handle: '@nasa' } });
    expect({ path, params }).toEqual({ path: '/v1/instagram/profile', params: { handle: 'nasa' } });
    expect(output).toEqual({
      network: 'instagram',
      id: '528817151',
      username: 'nasa',
      display_name: 'NASA',
      bio: 'Exploring the universe',
      avatar_url: 'https://scontent.cdninstagram.com/hd.jpg',
      url: 'https://www.instagram.com/nasa/',
      external_url: 'https://nasa.gov',
      verified: true,
      private: false,
      category: 'Government organization',
      location: null,
      created_at: null,
      followers: 97000000,
      following: 80,
      posts_count: 4300,
      likes_count: null,
    });
    expect(issues).toEqual([]);
  });

  it('instagram_user_posts: next_max_id in and out, reels typed as reels', () => {
    const { path, params, output, issues } = runMapping('instagram_user_posts', { input: { handle: 'nasa', cursor: 'QVFE-prev' } });
    expect({ path, params }).toEqual({ path: '/v2/instagram/user/posts', params: { handle: 'nasa', next_max_id: 'QVFE-prev' } });
    expect(output).toEqual({ items: [reel('3300000000000000001'), reel('3300000000000000002')], next_cursor: 'QVFE-next', has_more: true });
    expect(issues).toEqual([]);
  });

  it('instagram_user_posts: an image and a carousel with licensed music; no more_available, no next page', () => {
    const { path, params, output, issues } = runMapping('instagram_user_posts', { payload: variants.imageAndCarouselFeed });
    expect({ path, params }).toEqual({ path: '/v2/instagram/user/posts', params: { handle: 'natgeo' } });
    expect(output).toEqual({
      items: [
        {
          network: 'instagram',
          id: '3300000000000000007',
          url: 'https://www.instagram.com/p/C9img/',
          type: 'image',
          author: {
            id: '528817151',
            username: 'nasa',
            display_name: null,
            avatar_url: null,
            url: 'https://www.instagram.com/nasa/',
            verified: null,
          },
          title: null,
          text: null,
          created_at: '2024-05-29T16:26:40.000Z',
          media: [
            {
              type: 'image',
              url: 'https://scontent.cdninstagram.com/img.jpg',
              thumbnail_url: null,
              width: 1080,
              height: 1080,
              duration_seconds: null,
            },
          ],
          metrics: { views: null, likes: null, comments: null, shares: null, saves: null, quotes: null },
          hashtags: [],
          mentions: [],
          music: null,
        },
        {
          network: 'instagram',
          id: '3300000000000000008',
          url: 'https://www.instagram.com/p/C9car/',
          type: 'carousel',
          author: {
            id: '528817151',
            username: 'nasa',
            display_name: null,
            avatar_url: null,
            url: 'https://www.instagram.com/nasa/',
            verified: null,
          },
          title: null,
          text: null,
          created_at: '2024-05-29T16:26:40.000Z',
          media: [
            {
              type: 'image',
              url: 'https://scontent.cdninstagram.com/car.jpg',
              thumbnail_url: null,
              width: null,
              height: null,
              duration_seconds: null,
            },
          ],
          metrics: { views: null, likes: null, comments: null, shares: null, saves: null, quotes: null },
          hashtags: [],
          mentions: [],
          music: { id: '123456', title: 'Clair de Lune', artist: 'Debussy', url: null },
        },
      ],
      next_cursor: null,
      has_more: false,
    });
    expect(issues).toEqual([]);
  });

  it('instagram_user_reels: reels wrapped in `media`, paged by paging_info', () => {
    const { path, params, output, issues } = runMapping('instagram_user_reels', { input: { handle: 'nasa', cursor: 'reels-prev' } });
    expect({ path, params }).toEqual({ path: '/v1/instagram/user/reels', params: { handle: 'nasa', max_id: 'reels-prev' } });
    expect(output).toEqual({ items: [reel('3300000000000000003')], next_cursor: null, has_more: false });
    expect(issues).toEqual([]);
  });

  it('instagram_user_highlights: highlights, ids without the "highlight:" prefix', () => {
    const { path, params, output, issues } = runMapping('instagram_user_highlights');
    expect({ path, params }).toEqual({ path: '/v1/instagram/user/highlights', params: { handle: 'natgeo' } });
    expect(output).toEqual({
      items: [
        {
          network: 'instagram',
          id: '17912345678901234',
          title: 'Mars',
          cover_url: 'https://scontent.cdninstagram.com/h.jpg',
          media_count: null,
        },
      ],
    });
    expect(issues).toEqual([]);
  });

  it('instagram_highlight_stories: a highlight’s stories, the id sent without its prefix', () => {
    const { path, params, output, issues } = runMapping('instagram_highlight_stories', {
      input: { highlight_id: 'highlight:17912345678901234' },
    });
    expect({ path, params }).toEqual({ path: '/v1/instagram/user/highlight/detail', params: { id: '17912345678901234' } });
    expect(output).toEqual({
      network: 'instagram',
      id: '17912345678901234',
      title: 'Mars',
      cover_url: null,
      media_count: 2,
      items: [
        // A story item is the reel's translation, at its post URL, with its expiry.
        { ...reel('3300000000000000004'), url: 'https://www.instagram.com/p/C8xYz12AbCd/', type: 'story', expires_at: null },
      ],
    });
    expect(issues).toEqual([]);
  });

  it('instagram_post: a post from the GraphQL shortcode media', () => {
    const { path, params, output, issues } = runMapping('instagram_post');
    expect({ path, params }).toEqual({ path: '/v1/instagram/post', params: { url: 'https://www.instagram.com/p/C8xYz12AbCd/' } });
    expect(output).toEqual({
      network: 'instagram',
      id: '3300000000000000005',
      url: 'https://www.instagram.com/p/C8xYz12AbCd/',
      type: 'image',
      author: {
        id: '528817151',
        username: 'nasa',
        display_name: 'NASA',
        avatar_url: null,
        url: 'https://www.instagram.com/nasa/',
        verified: true,
      },
      title: null,
      text: 'Pale blue dot #earth',
      created_at: '2024-05-29T16:26:40.000Z',
      media: [
        {
          type: 'image',
          url: 'https://scontent.cdninstagram.com/d.jpg',
          thumbnail_url: null,
          width: null,
          height: null,
          duration_seconds: null,
        },
      ],
      metrics: { views: null, likes: 250000, comments: 1200, shares: null, saves: null, quotes: null },
      hashtags: ['earth'],
      mentions: [],
      music: null,
    });
    expect(issues).toEqual([]);
  });

  it('instagram_post: a carousel post: one media per child, the reel’s music', () => {
    const { path, params, output, issues } = runMapping('instagram_post', { payload: variants.carouselPost });
    expect({ path, params }).toEqual({ path: '/v1/instagram/post', params: { url: 'https://www.instagram.com/p/C8xYz12AbCd/' } });
    expect(output).toEqual({
      network: 'instagram',
      id: '3300000000000000006',
      url: 'https://www.instagram.com/p/C9aBc34DeFg/',
      type: 'carousel',
      author: {
        id: '528817151',
        username: 'nasa',
        display_name: null,
        avatar_url: null,
        url: 'https://www.instagram.com/nasa/',
        verified: null,
      },
      title: null,
      text: null,
      created_at: '2024-05-29T16:26:40.000Z',
      media: [
        {
          type: 'image',
          url: 'https://scontent.cdninstagram.com/1.jpg',
          thumbnail_url: null,
          width: 1080,
          height: 1350,
          duration_seconds: null,
        },
        {
          type: 'video',
          url: 'https://scontent.cdninstagram.com/2.mp4',
          thumbnail_url: 'https://scontent.cdninstagram.com/2.jpg',
          width: null,
          height: null,
          duration_seconds: 9.5,
        },
      ],
      metrics: { views: null, likes: null, comments: null, shares: null, saves: null, quotes: null },
      hashtags: [],
      mentions: [],
      music: { id: '998877', title: 'Space Oddity', artist: 'David Bowie', url: null },
    });
    expect(issues).toEqual([]);
  });

  it('instagram_post_comments: comments; a null cursor ends the list', () => {
    const { path, params, output, issues } = runMapping('instagram_post_comments', {
      input: { url: 'https://www.instagram.com/p/C8xYz12AbCd/', cursor: 'c-prev' },
    });
    expect({ path, params }).toEqual({
      path: '/v2/instagram/post/comments',
      params: { url: 'https://www.instagram.com/p/C8xYz12AbCd/', cursor: 'c-prev' },
    });
    expect(output).toEqual({
      items: [
        {
          network: 'instagram',
          id: '180000001',
          post_id: null,
          parent_id: null,
          author: { id: '1', username: 'fan', display_name: null, avatar_url: null, url: 'https://www.instagram.com/fan/', verified: null },
          text: 'Wow',
          created_at: '2024-05-29T16:26:40.000Z',
          likes: 3,
          reply_count: 0,
        },
      ],
      next_cursor: null,
      has_more: false,
    });
    expect(issues).toEqual([]);
  });
});
