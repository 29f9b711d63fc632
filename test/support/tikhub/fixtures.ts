/**
 * TikHub answers, one per path the adapter calls, in its envelope `{code, message, data}`. As
 * TikHub's reference documents them: the X trends (`data.trends[]{name, description, context}`),
 * the four TikTok-Ads boards (its example answers, the Creative Center's `{code: 0, msg, data}`
 * inside) and Instagram's stories (`data.reels_media[]`). The others are the shapes the adapter
 * assumes where the reference is silent (lib/social/providers/tikhub/x.ts, linkedin.ts,
 * youtube.ts say which).
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

/** A reply in a thread, as two public clients read `fetch_post_comments`: `id`, `author` (avatar `image`), `likes`, `display_text`. */
const reply = (id: string, n: number) => ({
  type: 'tweet',
  id,
  text: `@NASA Reply ${n} https://t.co/abc`,
  display_text: `Reply ${n}`,
  created_at: 'Thu Sep 12 00:10:00 +0000 2024',
  likes: 40 + n,
  replies: n,
  retweets: 0,
  author: {
    rest_id: String(22000000 + n),
    screen_name: `fan${n}`,
    name: `Fan ${n}`,
    image: 'https://pbs.twimg.com/f.jpg',
    blue_verified: false,
  },
});

const X_FIXTURES: Record<string, unknown> = {
  // A timeline holds items that are no tweets too (a module of users): skipped.
  '/api/v1/twitter/web/fetch_search_timeline': {
    status: 'ok',
    timeline: [
      { ...tweet('1834567890123456789'), type: 'tweet' },
      { type: 'user', id: '77', screen_name: 'someone' },
      tweet('1834567890123456790', 1),
    ],
    next_cursor: 'DAACCgAB',
    prev_cursor: null,
  },
  '/api/v1/twitter/web/fetch_user_profile': user(0),
  '/api/v1/twitter/web/fetch_post_comments': {
    likes: 5000,
    text: 'We have liftoff #Artemis',
    thread: [reply('1834567890123456791', 2), reply('1834567890123456792', 3)],
    next_cursor: null,
  },
  '/api/v1/twitter/web/fetch_user_followers': { followers: [user(1), user(2)], next_cursor: 'cursor-2', more_users: true },
  '/api/v1/twitter/web/fetch_retweet_user_list': { retweets: [user(3)], next_cursor: null },
  '/api/v1/twitter/web/fetch_trending': {
    trends: [
      { name: '#Artemis', description: '8.27M posts', context: 'Only on X · Trending' },
      { name: 'Liftoff', description: '12.5K posts', context: 'Trending in Science' },
      { name: 'Moon', description: null, context: null },
    ],
  },
};

/** TikHub's TikTok-Ads answers wrap the Creative Center's own envelope. */
const creativeCenter = (data: unknown) => ({ code: 0, msg: 'OK', data });

const ADS_FIXTURES: Record<string, unknown> = {
  '/api/v1/tiktok/ads/get_hashtag_list': creativeCenter({
    list: [
      {
        hashtag_id: '4100',
        hashtag_name: 'summer',
        country_info: { id: 'US', value: 'United States', label: 'US' },
        industry_info: { id: 28000000000, value: 'Sports & Outdoor', label: 'label_28000000000' },
        is_promoted: false,
        trend: [{ time: 1740787200, value: 0.38 }],
        creators: [{ nick_name: 'creator1', avatar_url: 'https://example.com/avatar1.jpg' }],
        publish_cnt: 45678,
        video_views: 123456789,
        rank: 1,
        rank_diff: 2,
        rank_diff_type: 1,
      },
      {
        hashtag_id: '4101',
        hashtag_name: 'beach',
        country_info: { id: 'US', value: 'United States', label: 'US' },
        is_promoted: false,
        trend: [],
        creators: [],
        publish_cnt: 12000,
        video_views: 9800000,
        rank: 2,
        rank_diff: 0,
        rank_diff_type: 2,
      },
    ],
    pagination: { page: 1, size: 20, total: 500, has_more: true },
  }),
  '/api/v1/tiktok/ads/get_sound_rank_list': creativeCenter({
    pagination: { page: 1, size: 20, total: 99, has_more: true },
    sound_list: [
      {
        author: "CYRIL & MOONLGHT & The La's",
        clip_id: '7424014547218565904',
        cml_mid: '7512350022513852432',
        country_code: 'US',
        cover: 'https://p16-sg.tiktokcdn.com/cover.jpeg',
        duration: 22,
        if_cml: true,
        is_search: false,
        link: 'https://www.tiktok.com/music/x-7424014547218565904',
        music_url: 'https://sf16-ies-music-sg.tiktokcdn.com/obj/clip',
        on_list_times: null,
        promoted: false,
        rank: 1,
        rank_diff: 0,
        rank_diff_type: 2,
        // A string here: the example's number loses precision in JavaScript (the adapter reads neither).
        related_items: [{ item_id: '7512619474084711723', cover_uri: 'https://p16-sign-va.tiktokcdn.com/cover.image' }],
        song_id: '7503950818010335233',
        title: 'There She Goes',
        trend: [{ time: 1740787200, value: 0.15 }],
        url_title: 'There She Goes (CYRIL Remix)',
      },
    ],
  }),
  '/api/v1/tiktok/ads/get_creator_list': creativeCenter({
    creators: [
      {
        tcm_id: '7414477993612935173',
        user_id: '62133858422239232',
        nick_name: 'Fernanda',
        avatar_url: 'https://p16-sign-va.tiktokcdn.com/avatar.png',
        country_code: 'US',
        follower_cnt: 9135515,
        liked_cnt: 668294555,
        tt_link: 'https://www.tiktok.com/@ferchugimenez',
        tcm_link: 'https://creatormarketplace.tiktok.com/ad#/author/7414477993612935173',
        items: [],
      },
    ],
    pagination: { page: 1, size: 20, total: 459, has_more: false },
  }),
  '/api/v1/tiktok/ads/get_popular_trends': creativeCenter({
    pagination: { has_more: false, limit: 10, page: 1, total_count: 2 },
    videos: [
      {
        country_code: 'US',
        cover: 'https://p16-sign-va.tiktokcdn.com/cover1.image',
        duration: 15,
        id: '7512918118663081262',
        item_id: '7512918118663081262',
        item_url: 'https://www.tiktok.com/@mnm_pipi/video/7512918118663081262',
        region: 'United States',
        title: "We've lowered MSRP on Rogue and Pathfinder",
      },
    ],
  }),
};

const storyItem = (pk: string, mediaType: number, takenAt: number) => ({
  id: `${pk}_528817151`,
  pk,
  taken_at: takenAt,
  media_type: mediaType,
  image_versions2: { candidates: [{ url: `https://scontent.cdninstagram.com/${pk}.jpg`, width: 1080, height: 1920 }] },
  ...(mediaType === 2 ? { video_versions: [{ url: `https://scontent.cdninstagram.com/${pk}.mp4` }] } : {}),
  story_cta: null,
});

const MORE_FIXTURES: Record<string, unknown> = {
  ...ADS_FIXTURES,
  '/api/v1/instagram/v3/get_user_stories': {
    reels_media: [
      {
        id: '528817151',
        user: { pk: '528817151', username: 'nasa', full_name: 'NASA', profile_pic_url: 'https://scontent.cdninstagram.com/nasa.jpg' },
        items: [storyItem('3456789012345678901', 1, 1_732_800_000), storyItem('3456789012345678902', 2, 1_732_803_600)],
      },
    ],
    reels: {},
  },
  '/api/v1/linkedin/web/search_people': {
    data: [
      {
        urn: 'ACoAAAEkwwAB9KEc2TrQgOLEQ-vzRyZeCDyc6DQ',
        full_name: 'Satya Nadella',
        title: 'Chairman and CEO at Microsoft',
        location: 'Redmond, Washington, United States',
        url: 'https://www.linkedin.com/in/satyanadella',
        avatar: [{ url: 'https://media.licdn.com/satya.jpg' }],
        is_premium: true,
        services: [],
      },
    ],
  },
  '/api/v1/linkedin/web/get_user_profile': {
    id: '19208836',
    urn: 'ACoAAAEkwwAB9KEc2TrQgOLEQ-vzRyZeCDyc6DQ',
    public_identifier: 'satyanadella',
    first_name: 'Satya',
    last_name: 'Nadella',
    full_name: 'Satya Nadella',
    headline: 'Chairman and CEO at Microsoft',
  },
  '/api/v1/linkedin/web/get_user_posts': {
    data: [
      {
        urn: '7250000000000000000',
        url: 'https://www.linkedin.com/feed/update/urn:li:activity:7250000000000000000/',
        text: 'Our mission is to empower every person #AI',
        posted_at: '2026-11-20T16:00:00Z',
        num_likes: 12000,
        num_comments: 640,
        num_shares: 310,
      },
    ],
  },
  '/api/v1/youtube/web/get_trending_videos': {
    videos: [
      {
        video_id: 'dQw4w9WgXcQ',
        title: 'Trending now',
        description: 'A video everyone watches',
        author: 'Some Channel',
        channel_id: 'UCuAXFkgsw1L7xaCfnd5JJOw',
        number_of_views: 1_500_000,
        published_time: '2 days ago',
        video_length: '3:33',
        thumbnails: [{ url: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg', width: 480, height: 360 }],
      },
    ],
  },
};

export const TIKHUB_FIXTURES: Record<string, unknown> = { ...X_FIXTURES, ...MORE_FIXTURES };

export const envelope = (data: unknown) => ({ code: 200, router: '/api/v1/twitter/web', params: {}, data });
