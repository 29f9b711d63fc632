/**
 * Facebook on ScrapeCreators: each operation's query and the exact translation of a vendor-shaped
 * payload (test/support/scrapecreators/facebook.ts), which passes the operation's output schema.
 */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../../lib/social/catalog/names.ts';
import { facebook } from '../../../lib/social/providers/scrapecreators/facebook.ts';
import { SCRAPECREATORS_OPERATIONS } from '../../../lib/social/providers/scrapecreators/operations.ts';
import { variants } from '../../support/scrapecreators/facebook.ts';
import { runMapping } from '../../support/scrapecreators/run.ts';

/** What the stub's `fbPost(id)` translates to. */
const feedPost = (id: string) => ({
  network: 'facebook',
  id,
  url: `https://www.facebook.com/nasa/posts/${id}`,
  type: 'text',
  author: {
    id: '100044561550831',
    username: null,
    display_name: 'NASA',
    avatar_url: null,
    url: 'https://www.facebook.com/nasa',
    verified: null,
  },
  title: null,
  text: 'Launch day #artemis',
  created_at: '2024-05-29T16:26:40.000Z',
  media: [],
  metrics: { views: null, likes: 3400, comments: 120, shares: null, saves: null, quotes: null },
  hashtags: ['artemis'],
  mentions: [],
  music: null,
});

describe('Facebook on ScrapeCreators', () => {
  it('maps exactly the Facebook operations ScrapeCreators serves', () => {
    expect(Object.keys(facebook)).toEqual(
      OPERATION_NAMES.filter((name) => name.startsWith('facebook_') && SCRAPECREATORS_OPERATIONS.has(name)),
    );
  });

  it('facebook_page: the username from the page URL', () => {
    const { path, params, output, issues } = runMapping('facebook_page');
    expect({ path, params }).toEqual({ path: '/v1/facebook/profile', params: { url: 'https://www.facebook.com/nasa' } });
    expect(output).toEqual({
      network: 'facebook',
      id: '100044561550831',
      username: 'nasa',
      display_name: 'NASA',
      bio: 'Explore the universe',
      avatar_url: 'https://scontent.xx.fbcdn.net/l.jpg',
      url: 'https://www.facebook.com/nasa',
      external_url: 'https://nasa.gov',
      verified: null,
      private: null,
      category: 'Government organization',
      location: null,
      created_at: null,
      followers: 28000000,
      following: null,
      posts_count: null,
      likes_count: 27000000,
    });
    expect(issues).toEqual([]);
  });

  it('facebook_page_posts: a page’s posts', () => {
    const { path, params, output, issues } = runMapping('facebook_page_posts');
    expect({ path, params }).toEqual({ path: '/v1/facebook/profile/posts', params: { url: 'https://www.facebook.com/nasa' } });
    expect(output).toEqual({ items: [feedPost('pfbid0abc1'), feedPost('pfbid0abc2')], next_cursor: 'fb-next', has_more: true });
    expect(issues).toEqual([]);
  });

  it('facebook_page_posts: a feed video from videoDetails', () => {
    const { path, params, output, issues } = runMapping('facebook_page_posts', { payload: variants.videoFeed });
    expect({ path, params }).toEqual({ path: '/v1/facebook/profile/posts', params: { url: 'https://www.facebook.com/nasa' } });
    expect(output).toEqual({
      items: [
        {
          network: 'facebook',
          id: 'pfbid0vid',
          url: 'https://www.facebook.com/nasa/posts/pfbid0vid',
          type: 'video',
          author: { id: '100044561550831', username: null, display_name: 'NASA', avatar_url: null, url: null, verified: null },
          title: null,
          text: 'Watch',
          created_at: '2024-05-29T16:26:40.000Z',
          media: [
            {
              type: 'video',
              url: 'https://video.xx.fbcdn.net/v-sd.mp4',
              thumbnail_url: 'https://scontent.xx.fbcdn.net/vt.jpg',
              width: null,
              height: null,
              duration_seconds: null,
            },
          ],
          metrics: { views: 12000, likes: null, comments: null, shares: null, saves: null, quotes: null },
          hashtags: [],
          mentions: [],
          music: null,
        },
      ],
      next_cursor: null,
      has_more: false,
    });
    expect(issues).toEqual([]);
  });

  it('facebook_page_reels: both paging values in our cursor', () => {
    const { path, params, output, issues } = runMapping('facebook_page_reels');
    expect({ path, params }).toEqual({ path: '/v1/facebook/profile/reels', params: { url: 'https://www.facebook.com/nasa' } });
    expect(output).toEqual({
      items: [
        {
          network: 'facebook',
          id: '1234',
          url: 'https://www.facebook.com/reel/1234',
          type: 'reel',
          author: { id: null, username: null, display_name: null, avatar_url: null, url: null, verified: null },
          title: null,
          text: 'Reel',
          created_at: '2024-05-01T10:00:00.000Z',
          media: [
            {
              type: 'video',
              url: 'https://video.xx.fbcdn.net/r.mp4',
              thumbnail_url: null,
              width: null,
              height: null,
              duration_seconds: 15,
            },
          ],
          metrics: { views: 1000, likes: null, comments: null, shares: null, saves: null, quotes: null },
          hashtags: [],
          mentions: [],
          music: null,
        },
      ],
      next_cursor: 'eyJuZXh0X3BhZ2VfaWQiOiJwYWdlLTIiLCJjdXJzb3IiOiJyZWVsLWN1cnNvciJ9',
      has_more: true,
    });
    expect(issues).toEqual([]);
  });

  it('facebook_page_reels: our cursor sends both paging values back', () => {
    const { path, params } = runMapping('facebook_page_reels', {
      input: { url: 'https://www.facebook.com/nasa', cursor: 'eyJuZXh0X3BhZ2VfaWQiOiJwYWdlLTIiLCJjdXJzb3IiOiJyZWVsLWN1cnNvciJ9' },
    });
    expect({ path, params }).toEqual({
      path: '/v1/facebook/profile/reels',
      params: { url: 'https://www.facebook.com/nasa', next_page_id: 'page-2', cursor: 'reel-cursor' },
    });
  });

  it('facebook_page_reels: a cursor that is not ours goes to the vendor as it is', () => {
    const { path, params } = runMapping('facebook_page_reels', {
      input: { url: 'https://www.facebook.com/nasa', cursor: 'vendor-cursor' },
    });
    expect({ path, params }).toEqual({
      path: '/v1/facebook/profile/reels',
      params: { url: 'https://www.facebook.com/nasa', cursor: 'vendor-cursor' },
    });
  });

  it('facebook_post: a post with an image', () => {
    const { path, params, output, issues } = runMapping('facebook_post');
    expect({ path, params }).toEqual({ path: '/v1/facebook/post', params: { url: 'https://www.facebook.com/nasa/posts/pfbid0abc' } });
    expect(output).toEqual({
      network: 'facebook',
      id: '1234567890',
      url: 'https://www.facebook.com/nasa/posts/pfbid0abc',
      type: 'image',
      author: {
        id: '100044561550831',
        username: null,
        display_name: 'NASA',
        avatar_url: null,
        url: 'https://www.facebook.com/nasa',
        verified: true,
      },
      title: null,
      text: 'Post text',
      created_at: '2024-05-01T10:00:00.000Z',
      media: [
        {
          type: 'image',
          url: 'https://scontent.xx.fbcdn.net/i.jpg',
          thumbnail_url: null,
          width: null,
          height: null,
          duration_seconds: null,
        },
      ],
      metrics: { views: null, likes: 100, comments: 5, shares: 2, saves: null, quotes: null },
      hashtags: [],
      mentions: [],
      music: null,
    });
    expect(issues).toEqual([]);
  });

  it('facebook_post: a video post', () => {
    const { path, params, output, issues } = runMapping('facebook_post', { payload: variants.videoPost });
    expect({ path, params }).toEqual({ path: '/v1/facebook/post', params: { url: 'https://www.facebook.com/nasa/posts/pfbid0abc' } });
    expect(output).toEqual({
      network: 'facebook',
      id: '1234567891',
      url: 'https://www.facebook.com/nasa/videos/1234567891',
      type: 'video',
      author: {
        id: '100044561550831',
        username: null,
        display_name: 'NASA',
        avatar_url: 'https://scontent.xx.fbcdn.net/a.jpg',
        url: 'https://www.facebook.com/nasa',
        verified: null,
      },
      title: null,
      text: 'Launch replay',
      created_at: '2024-05-01T10:00:00.000Z',
      media: [
        {
          type: 'video',
          url: 'https://video.xx.fbcdn.net/hd.mp4',
          thumbnail_url: 'https://scontent.xx.fbcdn.net/t.jpg',
          width: 1280,
          height: 720,
          duration_seconds: 95.5,
        },
      ],
      metrics: { views: 90000, likes: 300, comments: 12, shares: 40, saves: null, quotes: null },
      hashtags: [],
      mentions: [],
      music: null,
    });
    expect(issues).toEqual([]);
  });

  it('facebook_post_comments: comments with has_next_page', () => {
    const { path, params, output, issues } = runMapping('facebook_post_comments');
    expect({ path, params }).toEqual({
      path: '/v1/facebook/post/comments',
      params: { url: 'https://www.facebook.com/nasa/posts/pfbid0abc' },
    });
    expect(output).toEqual({
      items: [
        {
          network: 'facebook',
          id: 'c1',
          post_id: null,
          parent_id: null,
          author: { id: 'u1', username: null, display_name: 'Ann', avatar_url: null, url: null, verified: null },
          text: 'Great',
          created_at: '2024-05-01T11:00:00.000Z',
          likes: 4,
          reply_count: 0,
        },
      ],
      next_cursor: 'c-next',
      has_more: true,
    });
    expect(issues).toEqual([]);
  });

  it('facebook_group: a public group', () => {
    const { path, params, output, issues } = runMapping('facebook_group');
    expect({ path, params }).toEqual({ path: '/v1/facebook/group', params: { url: 'https://www.facebook.com/groups/123456789' } });
    expect(output).toEqual({
      network: 'facebook',
      id: '123456789',
      name: 'Gardeners',
      url: 'https://www.facebook.com/groups/123456789',
      description: 'Grow things',
      privacy: 'public',
      member_count: 45000,
      created_at: '2015-03-01T00:00:00.000Z',
      posts_last_month: 300,
    });
    expect(issues).toEqual([]);
  });

  it('facebook_group: a private group, what it does not show null', () => {
    const { path, params, output, issues } = runMapping('facebook_group', { payload: variants.privateGroup });
    expect({ path, params }).toEqual({ path: '/v1/facebook/group', params: { url: 'https://www.facebook.com/groups/123456789' } });
    expect(output).toEqual({
      network: 'facebook',
      id: '987654321',
      name: 'Beekeepers',
      url: 'https://www.facebook.com/groups/987654321',
      description: null,
      privacy: 'private',
      member_count: null,
      created_at: null,
      posts_last_month: null,
    });
    expect(issues).toEqual([]);
  });

  it('facebook_group_posts: a group’s top posts', () => {
    const { path, params, output, issues } = runMapping('facebook_group_posts', {
      input: { url: 'https://www.facebook.com/groups/123456789', sort: 'top' },
    });
    expect({ path, params }).toEqual({
      path: '/v1/facebook/group/posts',
      params: { url: 'https://www.facebook.com/groups/123456789', sort_by: 'TOP_POSTS' },
    });
    expect(output).toEqual({ items: [feedPost('g1')], next_cursor: null, has_more: false });
    expect(issues).toEqual([]);
  });
});
