/** TikTok as ScrapeCreators answers it: one payload per path (without the success envelope). */
import type { Fixtures } from './index.ts';

const aweme = (id: string) => ({
  aweme_id: id,
  desc: 'Liftoff! #space @nasa',
  create_time: 1717000000,
  create_time_utc: '2024-05-29T16:26:40.000Z',
  url: `https://www.tiktok.com/@nasa/video/${id}`,
  statistics: { play_count: 120000, digg_count: 5400, comment_count: 210, share_count: 88, collect_count: 40 },
  author: {
    uid: '6770000000000000001',
    unique_id: 'nasa',
    nickname: 'NASA',
    avatar_thumb: { url_list: ['https://p16.tiktokcdn.com/a.jpg'] },
  },
  video: {
    duration: 15300,
    width: 1080,
    height: 1920,
    cover: { url_list: ['https://p16.tiktokcdn.com/c.jpg'] },
    play_addr: { url_list: ['https://v16.tiktokcdn.com/v.mp4'] },
  },
  music: { id: 7016547803243022000, id_str: '7016547803243022337', title: 'original sound', author: 'NASA', play_url: { url_list: [] } },
});

export const tiktok: Fixtures = {
  '/v1/tiktok/profile': {
    user: {
      id: '6770000000000000001',
      uniqueId: 'nasa',
      nickname: 'NASA',
      signature: 'Explore',
      verified: true,
      privateAccount: false,
      avatarLarger: 'https://p16.tiktokcdn.com/l.jpg',
    },
    stats: { followerCount: 10000000, followingCount: 5, heartCount: 200000000, videoCount: 900 },
  },
  '/v3/tiktok/profile/videos': { aweme_list: [aweme('7301234567890123456')], max_cursor: 1716000000000, has_more: 1, status_code: 0 },
  '/v2/tiktok/video': { aweme_detail: aweme('7301234567890123456') },
  '/v1/tiktok/video/comments': {
    comments: [
      {
        cid: '7300000000000000001',
        text: 'so cool',
        create_time: 1717000000,
        digg_count: 12,
        reply_comment_total: 1,
        aweme_id: '7301234567890123456',
        user: { uid: '1', unique_id: 'fan', nickname: 'Fan' },
      },
    ],
    cursor: 20,
    has_more: 0,
    total: 1,
  },
  '/v1/tiktok/search/keyword': { search_item_list: [{ aweme_info: aweme('7301234567890123457') }], cursor: 12 },
  '/v1/tiktok/search/hashtag': { aweme_list: [aweme('7301234567890123458')], cursor: 30, has_more: 1 },
  '/v1/tiktok/song/videos': { aweme_list: [aweme('7301234567890123459')], cursor: 30, has_more: 0 },
  '/v1/tiktok/get-trending-feed': { aweme_list: [aweme('7301234567890123460')] },
};

/** Variants for branches the defaults above do not reach. */
export const variants = {
  /** A photo carousel, without SC's url or music, by a web-shaped author verified by custom_verify. */
  photoPost: {
    aweme_detail: {
      aweme_id: '7301234567890123499',
      desc: '',
      create_time: 1717000000,
      share_url: 'https://www.tiktok.com/share/7301234567890123499',
      author: { id: '1', uniqueId: 'fan', nickname: 'Fan', avatarThumb: 'https://p16.tiktokcdn.com/f.jpg', custom_verify: 'Creator' },
      image_post_info: {
        images: [
          { display_image: { url_list: ['https://p16.tiktokcdn.com/1.jpg'], width: 1080, height: 1440 } },
          { display_image: { url_list: ['https://p16.tiktokcdn.com/2.jpg'], width: 1080, height: 1440 } },
        ],
      },
      statistics: { play_count: '5000', digg_count: 50 },
    },
  },
};
