/**
 * A ScrapeCreators stand-in on 127.0.0.1 for the `http` provider's tests: the vendor's paths,
 * its `x-api-key` check, its success envelope (`success`, `credits_remaining`, payload at top
 * level) and its error bodies (`{success:false, error, errorStatus, message}`). Responses are
 * small vendor-shaped fixtures; a test can make the next call fail, hang or answer garbage.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export const STUB_KEY = 'sc-test-key';

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
const ytVideo = (id: string) => ({
  type: 'video',
  id,
  url: `https://www.youtube.com/watch?v=${id}`,
  title: 'Artemis II update',
  description: 'Mission briefing',
  thumbnail: 'https://i.ytimg.com/vi/x/hq.jpg',
  channel: { id: 'UCLA_DiR1FfKNvjuUpBHmylQ', title: 'NASA', handle: '@NASA', url: 'https://www.youtube.com/@NASA' },
  viewCountText: '1.8M views',
  viewCountInt: 1800000,
  publishedTime: '2024-05-01T00:00:00.000Z',
  lengthSeconds: 312,
});
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
const tweet = (id: string) => ({
  rest_id: id,
  views: { count: '99000' },
  legacy: {
    full_text: 'We have liftoff #Artemis',
    created_at: 'Thu Sep 12 00:08:39 +0000 2024',
    favorite_count: 5000,
    retweet_count: 800,
    reply_count: 300,
    quote_count: 50,
    bookmark_count: 70,
    extended_entities: {
      media: [{ type: 'photo', media_url_https: 'https://pbs.twimg.com/media/a.jpg', original_info: { width: 1200, height: 800 } }],
    },
  },
  core: {
    user_results: {
      result: {
        rest_id: '11348282',
        is_blue_verified: true,
        legacy: { screen_name: 'NASA', name: 'NASA', profile_image_url_https: 'https://pbs.twimg.com/p.jpg' },
      },
    },
  },
});

/** One vendor-shaped payload per path (without the envelope). */
export const FIXTURES: Record<string, Record<string, unknown>> = {
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
  '/v1/linkedin/profile': {
    name: 'Satya Nadella',
    image: 'https://media.licdn.com/s.jpg',
    location: 'Redmond, Washington',
    followers: 11000000,
    about: 'Chairman and CEO',
  },
  '/v1/linkedin/company': {
    id: '1035',
    name: 'Microsoft',
    slogan: 'Empower every person',
    description: 'Software',
    website: 'https://microsoft.com',
    industry: 'Software Development',
    size: '10,001+ employees',
    employeeCount: 228000,
    founded: 1975,
    headquarters: 'Redmond, Washington',
    logo: 'https://media.licdn.com/m.png',
    specialties: ['Cloud', 'AI'],
  },
  '/v1/linkedin/company/posts': {
    posts: [
      {
        id: '7123456789012345678',
        url: 'https://www.linkedin.com/posts/microsoft_x',
        datePublished: '2024-05-01T10:00:00.000Z',
        text: 'Build 2024 #AI',
      },
    ],
  },
  '/v1/linkedin/post': {
    url: 'https://www.linkedin.com/posts/satyanadella_ai-activity-7123456789012345678-abcd',
    name: 'AI everywhere',
    description: 'Excited to share…',
    datePublished: '2024-05-01T10:00:00.000Z',
    likeCount: 9000,
    commentCount: 400,
    author: { name: 'Satya Nadella', url: 'https://www.linkedin.com/in/satyanadella' },
  },
  '/v1/linkedin/search/posts': {
    query: 'serverless',
    posts: [
      {
        url: 'https://www.linkedin.com/posts/x_activity-7123456789012345679-ab',
        datePublished: '2024-05-02T10:00:00.000Z',
        description: 'Serverless tips',
        author: { name: 'Ann' },
        likeCount: 10,
        commentCount: 2,
      },
    ],
    cursor: '2',
  },
  '/v1/youtube/channel': {
    channelId: 'UCLA_DiR1FfKNvjuUpBHmylQ',
    channel: 'https://www.youtube.com/@NASA',
    handle: '@NASA',
    name: 'NASA',
    description: 'Official channel',
    subscriberCount: 12000000,
    videoCountText: '7,123 videos',
    avatar: { image: { sources: [{ url: 'https://yt3.ggpht.com/a.jpg', width: 88, height: 88 }] } },
    country: 'United States',
    links: ['https://nasa.gov'],
  },
  '/v1/youtube/channel-videos': { videos: [ytVideo('dQw4w9WgXcQ')], continuationToken: 'yt-next' },
  '/v1/youtube/channel/playlists': {
    playlists: [
      {
        type: 'playlist',
        id: 'PL123',
        title: 'Artemis',
        thumbnail: 'https://i.ytimg.com/p.jpg',
        playlistUrl: 'https://www.youtube.com/playlist?list=PL123',
        videoCount: 42,
      },
    ],
    continuationToken: null,
  },
  '/v1/youtube/channel/shorts': {
    shorts: [
      {
        type: 'short',
        id: 'abcdefghijk',
        title: 'Rocket in 30s',
        thumbnail: 'https://i.ytimg.com/s.jpg',
        viewCountInt: 50000,
        durationMs: 30000,
      },
    ],
    continuationToken: null,
  },
  '/v1/youtube/video': { ...ytVideo('dQw4w9WgXcQ'), publishDate: '2024-05-01T08:00:00-07:00', likeCountInt: 20000, commentCountInt: 900 },
  '/v1/youtube/search': { videos: [ytVideo('dQw4w9WgXcQ')], shorts: [], channels: [], playlists: [], continuationToken: 'yt-search-next' },
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
  '/v1/twitter/profile': {
    rest_id: '11348282',
    is_blue_verified: true,
    legacy: {
      screen_name: 'NASA',
      name: 'NASA',
      description: 'Exploring the universe',
      location: 'Pale Blue Dot',
      url: 'https://t.co/x',
      created_at: 'Wed Dec 19 20:20:32 +0000 2007',
      followers_count: 88000000,
      friends_count: 180,
      statuses_count: 72000,
      favourites_count: 15000,
      profile_image_url_https: 'https://pbs.twimg.com/p.jpg',
    },
  },
  '/v1/twitter/user-tweets': { tweets: [tweet('1834567890123456789'), tweet('1834567890123456790')] },
  '/v1/twitter/tweet': tweet('1834567890123456789'),
};

type Behaviour =
  | { kind: 'fixture' }
  | { kind: 'status'; status: number; body: string }
  | { kind: 'hang' }
  | { kind: 'payload'; payload: unknown };

export interface StubRequest {
  path: string;
  query: Record<string, string>;
  apiKey: string | undefined;
}

export interface ScrapeCreatorsStub {
  baseUrl: string;
  requests: StubRequest[];
  /** Answer the next request with this behaviour (then back to fixtures). */
  next(behaviour: Behaviour): void;
  /** Called when a request arrives (before answering): for counting what happened before it. */
  onRequest: ((request: StubRequest) => void) | undefined;
  close(): Promise<void>;
}

export const vendorError = (status: number, error: string, message: string) =>
  JSON.stringify({ success: false, credits_remaining: 1000, error, errorStatus: status, message });

export async function startScrapeCreatorsStub(): Promise<ScrapeCreatorsStub> {
  const queue: Behaviour[] = [];
  const hanging = new Set<ServerResponse>();
  let server: Server | undefined;
  const stub: ScrapeCreatorsStub = {
    baseUrl: '',
    requests: [],
    next: (behaviour) => queue.push(behaviour),
    onRequest: undefined,
    close: async () => {
      for (const response of hanging) response.destroy();
      server?.closeAllConnections();
      await new Promise<void>((resolve) => server?.close(() => resolve()));
    },
  };
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const seen: StubRequest = {
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      apiKey: request.headers['x-api-key'] as string | undefined,
    };
    stub.requests.push(seen);
    stub.onRequest?.(seen);
    const send = (status: number, body: string) => response.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
    if (seen.apiKey !== STUB_KEY) return send(401, vendorError(401, 'unauthorized', 'Invalid API key'));
    const behaviour = queue.shift() ?? { kind: 'fixture' };
    if (behaviour.kind === 'hang') {
      hanging.add(response);
      return;
    }
    if (behaviour.kind === 'status') return send(behaviour.status, behaviour.body);
    const payload = behaviour.kind === 'payload' ? behaviour.payload : FIXTURES[url.pathname];
    if (!payload) return send(404, vendorError(404, 'not_found', 'Endpoint not found'));
    return send(200, JSON.stringify({ success: true, credits_remaining: 999, credits_charged: 1, ...(payload as object) }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  stub.baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return stub;
}
