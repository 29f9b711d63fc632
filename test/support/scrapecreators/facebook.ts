/** Facebook as ScrapeCreators answers it: one payload per path (without the success envelope). */
import type { Fixtures } from './index.ts';

const fbPost = (id: string) => ({
  id,
  post_id: id,
  text: 'Launch day #artemis',
  url: `https://www.facebook.com/nasa/posts/${id}`,
  author: { id: '100044561550831', name: 'NASA', url: 'https://www.facebook.com/nasa' },
  reactionCount: 3400,
  commentCount: 120,
  publishTime: 1717000000,
});

export const facebook: Fixtures = {
  '/v1/facebook/profile': {
    id: '100044561550831',
    name: 'NASA',
    url: 'https://www.facebook.com/nasa',
    category: 'Government organization',
    pageIntro: 'Explore the universe',
    profilePicLarge: 'https://scontent.xx.fbcdn.net/l.jpg',
    likeCount: 27000000,
    followerCount: 28000000,
    website: 'https://nasa.gov',
  },
  '/v1/facebook/profile/posts': { posts: [fbPost('pfbid0abc1'), fbPost('pfbid0abc2')], cursor: 'fb-next' },
  '/v1/facebook/profile/reels': {
    reels: [
      {
        id: 'r1',
        post_id: '1234',
        url: 'https://www.facebook.com/reel/1234',
        creation_time: '2024-05-01T10:00:00.000Z',
        description: 'Reel',
        view_count: 1000,
        play_time_in_ms: 15000,
        video_url: 'https://video.xx.fbcdn.net/r.mp4',
      },
    ],
    cursor: 'reel-cursor',
    next_page_id: 'page-2',
  },
  '/v1/facebook/post': {
    post_id: '1234567890',
    url: 'https://www.facebook.com/nasa/posts/pfbid0abc',
    description: 'Post text',
    creation_time: '2024-05-01T10:00:00.000Z',
    like_count: 100,
    comment_count: 5,
    share_count: 2,
    view_count: null,
    image_url: 'https://scontent.xx.fbcdn.net/i.jpg',
    author: { id: '100044561550831', name: 'NASA', is_verified: true, url: 'https://www.facebook.com/nasa' },
  },
  '/v1/facebook/post/comments': {
    comments: [
      {
        id: 'c1',
        text: 'Great',
        created_at: '2024-05-01T11:00:00.000Z',
        reply_count: 0,
        reaction_count: 4,
        author: { id: 'u1', name: 'Ann' },
      },
    ],
    cursor: 'c-next',
    has_next_page: true,
  },
  '/v1/facebook/group': {
    id: '123456789',
    url: 'https://www.facebook.com/groups/123456789',
    name: 'Gardeners',
    description: 'Grow things',
    privacy: { label: 'Public', description: 'Anyone can see' },
    member_count: 45000,
    created_at: '2015-03-01T00:00:00.000Z',
    activity: { posts_last_day: 10, posts_last_month: 300 },
  },
  '/v1/facebook/group/posts': { posts: [fbPost('g1')], cursor: null },
};

/** Variants for branches the defaults above do not reach. */
export const variants = {
  /** A video post as the post endpoint gives it. */
  videoPost: {
    post_id: '1234567891',
    url: 'https://www.facebook.com/nasa/videos/1234567891',
    description: 'Launch replay',
    creation_time: '2024-05-01T10:00:00.000Z',
    like_count: 300,
    comment_count: 12,
    share_count: 40,
    view_count: 90000,
    video: {
      sd_url: 'https://video.xx.fbcdn.net/sd.mp4',
      hd_url: 'https://video.xx.fbcdn.net/hd.mp4',
      width: 1280,
      height: 720,
      length_in_second: 95.5,
      thumbnail: 'https://scontent.xx.fbcdn.net/t.jpg',
    },
    author: { id: '100044561550831', name: 'NASA', url: 'https://www.facebook.com/nasa', image: 'https://scontent.xx.fbcdn.net/a.jpg' },
  },
  /** A page feed post with a video (camelCase feed shape), and a private group. */
  videoFeed: {
    posts: [
      {
        id: 'pfbid0vid',
        text: 'Watch',
        permalink: 'https://www.facebook.com/nasa/posts/pfbid0vid',
        author: { id: '100044561550831', name: 'NASA' },
        videoViewCount: 12000,
        publishTime: 1717000000,
        videoDetails: { sdUrl: 'https://video.xx.fbcdn.net/v-sd.mp4', thumbnailUrl: 'https://scontent.xx.fbcdn.net/vt.jpg' },
      },
    ],
    cursor: null,
  },
  privateGroup: { id: '987654321', name: 'Beekeepers', url: 'https://www.facebook.com/groups/987654321', privacy: { label: 'Private' } },
};
