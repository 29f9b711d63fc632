/** Instagram as ScrapeCreators answers it: one payload per path (without the success envelope). */
import type { Fixtures } from './index.ts';

const igItem = (pk: string) => ({
  pk,
  id: `${pk}_528817151`,
  code: 'C8xYz12AbCd',
  taken_at: 1717000000,
  media_type: 2,
  product_type: 'clips',
  caption: { text: 'Earthrise #space' },
  like_count: 1000,
  comment_count: 20,
  play_count: 50000,
  video_duration: 12.5,
  video_versions: [{ url: 'https://scontent.cdninstagram.com/v.mp4' }],
  image_versions2: { candidates: [{ url: 'https://scontent.cdninstagram.com/i.jpg' }] },
  user: {
    pk: '528817151',
    username: 'nasa',
    full_name: 'NASA',
    is_verified: true,
    profile_pic_url: 'https://scontent.cdninstagram.com/p.jpg',
  },
});

export const instagram: Fixtures = {
  '/v1/instagram/profile': {
    data: {
      user: {
        id: '528817151',
        username: 'nasa',
        full_name: 'NASA',
        biography: 'Exploring the universe',
        external_url: 'https://nasa.gov',
        edge_followed_by: { count: 97000000 },
        edge_follow: { count: 80 },
        edge_owner_to_timeline_media: { count: 4300 },
        is_verified: true,
        is_private: false,
        category_name: 'Government organization',
        profile_pic_url_hd: 'https://scontent.cdninstagram.com/hd.jpg',
      },
    },
  },
  '/v2/instagram/user/posts': {
    items: [igItem('3300000000000000001'), igItem('3300000000000000002')],
    more_available: true,
    next_max_id: 'QVFE-next',
  },
  '/v1/instagram/user/reels': {
    items: [{ media: igItem('3300000000000000003') }],
    paging_info: { max_id: 'reels-next', more_available: false },
  },
  '/v1/instagram/user/highlights': {
    highlights: [
      { id: 'highlight:17912345678901234', title: 'Mars', cover_media: { thumbnail_src: 'https://scontent.cdninstagram.com/h.jpg' } },
    ],
  },
  '/v1/instagram/user/highlight/detail': {
    id: 'highlight:17912345678901234',
    title: 'Mars',
    media_count: 2,
    items: [igItem('3300000000000000004')],
  },
  '/v1/instagram/post': {
    data: {
      xdt_shortcode_media: {
        id: '3300000000000000005',
        shortcode: 'C8xYz12AbCd',
        is_video: false,
        display_url: 'https://scontent.cdninstagram.com/d.jpg',
        product_type: 'feed',
        edge_media_to_caption: { edges: [{ node: { text: 'Pale blue dot #earth' } }] },
        taken_at_timestamp: 1717000000,
        edge_media_preview_like: { count: 250000 },
        edge_media_to_parent_comment: { count: 1200 },
        owner: { id: '528817151', username: 'nasa', full_name: 'NASA', is_verified: true },
      },
    },
  },
  '/v2/instagram/post/comments': {
    comments: [
      {
        id: '180000001',
        text: 'Wow',
        created_at: '2024-05-29T16:26:40.000Z',
        comment_like_count: 3,
        child_comment_count: 0,
        user: { id: '1', username: 'fan' },
      },
    ],
    cursor: null,
  },
};

/** Variants for branches the defaults above do not reach. */
export const variants = {
  /** A carousel post: an image and a video, with the reel's music. */
  carouselPost: {
    data: {
      xdt_shortcode_media: {
        id: '3300000000000000006',
        shortcode: 'C9aBc34DeFg',
        is_video: false,
        display_url: 'https://scontent.cdninstagram.com/cover.jpg',
        product_type: 'carousel_container',
        taken_at_timestamp: '1717000000',
        edge_sidecar_to_children: {
          edges: [
            {
              node: { is_video: false, display_url: 'https://scontent.cdninstagram.com/1.jpg', dimensions: { width: 1080, height: 1350 } },
            },
            {
              node: {
                is_video: true,
                video_url: 'https://scontent.cdninstagram.com/2.mp4',
                display_url: 'https://scontent.cdninstagram.com/2.jpg',
                video_duration: 9.5,
              },
            },
          ],
        },
        clips_music_attribution_info: { audio_id: '998877', song_name: 'Space Oddity', artist_name: 'David Bowie' },
        owner: { id: '528817151', username: 'nasa' },
      },
    },
  },
  /** A feed of one image (media_type 1) and one carousel (8) with licensed music. */
  imageAndCarouselFeed: {
    items: [
      {
        pk: '3300000000000000007',
        code: 'C9img',
        taken_at: 1717000000,
        media_type: 1,
        caption: null,
        original_width: 1080,
        original_height: 1080,
        image_versions2: { candidates: [{ url: 'https://scontent.cdninstagram.com/img.jpg' }] },
        owner: { id: '528817151', username: 'nasa' },
      },
      {
        pk: '3300000000000000008',
        code: 'C9car',
        taken_at: 1717000000,
        media_type: 8,
        display_uri: 'https://scontent.cdninstagram.com/car.jpg',
        music_metadata: {
          music_info: { music_asset_info: { audio_cluster_id: 123456, title: 'Clair de Lune', display_artist: 'Debussy' } },
        },
        user: { pk: '528817151', username: 'nasa' },
      },
    ],
    more_available: false,
    next_max_id: 'ignored-when-no-more',
  },
};
