/** YouTube as ScrapeCreators answers it: one payload per path (without the success envelope). */
import type { Fixtures } from './index.ts';

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

export const youtube: Fixtures = {
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
};
