/**
 * YouTube on ScrapeCreators: each operation's query and the exact translation of a vendor-shaped
 * payload (test/support/scrapecreators/youtube.ts), which passes the operation's output schema.
 */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../../lib/social/catalog/names.ts';
import { SCRAPECREATORS_OPERATIONS } from '../../../lib/social/providers/scrapecreators/operations.ts';
import { youtube } from '../../../lib/social/providers/scrapecreators/youtube.ts';
import { runMapping } from '../../support/scrapecreators/run.ts';

/** What the stub's `ytVideo(id)` translates to. */
const video = (id: string) => ({
  network: 'youtube',
  id,
  url: `https://www.youtube.com/watch?v=${id}`,
  type: 'video',
  author: {
    id: 'UCLA_DiR1FfKNvjuUpBHmylQ',
    username: '@NASA',
    display_name: 'NASA',
    avatar_url: null,
    url: 'https://www.youtube.com/@NASA',
    verified: null,
  },
  title: 'Artemis II update',
  text: 'Mission briefing',
  created_at: '2024-05-01T00:00:00.000Z',
  media: [
    {
      type: 'video',
      url: `https://www.youtube.com/watch?v=${id}`,
      thumbnail_url: 'https://i.ytimg.com/vi/x/hq.jpg',
      width: null,
      height: null,
      duration_seconds: 312,
    },
  ],
  metrics: { views: 1800000, likes: null, comments: null, shares: null, saves: null, quotes: null },
  hashtags: [],
  mentions: [],
  music: null,
});

describe('YouTube on ScrapeCreators', () => {
  it('maps exactly the YouTube operations ScrapeCreators serves', () => {
    expect(Object.keys(youtube)).toEqual(
      OPERATION_NAMES.filter((name) => name.startsWith('youtube_') && SCRAPECREATORS_OPERATIONS.has(name)),
    );
  });

  it('youtube_channel: a channel by handle', () => {
    const { path, params, output, issues } = runMapping('youtube_channel');
    expect({ path, params }).toEqual({ path: '/v1/youtube/channel', params: { handle: 'NASA' } });
    expect(output).toEqual({
      network: 'youtube',
      id: 'UCLA_DiR1FfKNvjuUpBHmylQ',
      username: 'NASA',
      display_name: 'NASA',
      bio: 'Official channel',
      avatar_url: 'https://yt3.ggpht.com/a.jpg',
      url: 'https://www.youtube.com/@NASA',
      external_url: 'https://nasa.gov',
      verified: null,
      private: null,
      category: null,
      location: 'United States',
      created_at: null,
      followers: 12000000,
      following: null,
      posts_count: 7123,
      likes_count: null,
    });
    expect(issues).toEqual([]);
  });

  it('youtube_channel_videos: a channel’s videos by channel id, with the continuation token', () => {
    const { path, params, output, issues } = runMapping('youtube_channel_videos');
    expect({ path, params }).toEqual({
      path: '/v1/youtube/channel-videos',
      params: { channelId: 'UCLA_DiR1FfKNvjuUpBHmylQ', sort: 'latest' },
    });
    expect(output).toEqual({ items: [video('dQw4w9WgXcQ')], next_cursor: 'yt-next', has_more: true });
    expect(issues).toEqual([]);
  });

  it('youtube_channel_playlists: a channel’s playlists by URL; no token, no more', () => {
    const { path, params, output, issues } = runMapping('youtube_channel_playlists');
    expect({ path, params }).toEqual({ path: '/v1/youtube/channel/playlists', params: { url: 'https://www.youtube.com/@NASA' } });
    expect(output).toEqual({
      items: [
        {
          network: 'youtube',
          id: 'PL123',
          title: 'Artemis',
          url: 'https://www.youtube.com/playlist?list=PL123',
          thumbnail_url: 'https://i.ytimg.com/p.jpg',
          video_count: 42,
        },
      ],
      next_cursor: null,
      has_more: false,
    });
    expect(issues).toEqual([]);
  });

  it('youtube_channel_shorts: "latest" is the vendor’s "newest"', () => {
    const { path, params, output, issues } = runMapping('youtube_channel_shorts', {
      input: { channel: '@NASA', sort: 'latest', cursor: 'shorts-prev' },
    });
    expect({ path, params }).toEqual({
      path: '/v1/youtube/channel/shorts',
      params: { handle: 'NASA', sort: 'newest', continuationToken: 'shorts-prev' },
    });
    expect(output).toEqual({
      items: [
        {
          network: 'youtube',
          id: 'abcdefghijk',
          url: 'https://www.youtube.com/shorts/abcdefghijk',
          type: 'short',
          author: { id: null, username: null, display_name: null, avatar_url: null, url: null, verified: null },
          title: 'Rocket in 30s',
          text: null,
          created_at: null,
          media: [
            { type: 'video', url: null, thumbnail_url: 'https://i.ytimg.com/s.jpg', width: null, height: null, duration_seconds: 30 },
          ],
          metrics: { views: 50000, likes: null, comments: null, shares: null, saves: null, quotes: null },
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

  it('youtube_video: a video with its offset publish date in UTC', () => {
    const { path, params, output, issues } = runMapping('youtube_video');
    expect({ path, params }).toEqual({ path: '/v1/youtube/video', params: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' } });
    expect(output).toEqual({
      network: 'youtube',
      id: 'dQw4w9WgXcQ',
      url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      type: 'video',
      author: {
        id: 'UCLA_DiR1FfKNvjuUpBHmylQ',
        username: '@NASA',
        display_name: 'NASA',
        avatar_url: null,
        url: 'https://www.youtube.com/@NASA',
        verified: null,
      },
      title: 'Artemis II update',
      text: 'Mission briefing',
      created_at: '2024-05-01T15:00:00.000Z',
      media: [
        {
          type: 'video',
          url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
          thumbnail_url: 'https://i.ytimg.com/vi/x/hq.jpg',
          width: null,
          height: null,
          duration_seconds: 312,
        },
      ],
      metrics: { views: 1800000, likes: 20000, comments: 900, shares: null, saves: null, quotes: null },
      hashtags: [],
      mentions: [],
      music: null,
    });
    expect(issues).toEqual([]);
  });

  it('youtube_search: a search for videos with every filter', () => {
    const { path, params, output, issues } = runMapping('youtube_search', {
      input: {
        query: 'lofi beats',
        type: 'videos',
        upload_date: 'this-week',
        duration: '3-to-20-min',
        sort: 'popular',
        region: 'GB',
        cursor: 'yt-prev',
      },
    });
    expect({ path, params }).toEqual({
      path: '/v1/youtube/search',
      params: {
        query: 'lofi beats',
        type: 'videos',
        uploadDate: 'this_week',
        duration: 'between_3_and_20_min',
        sortBy: 'popular',
        region: 'GB',
        continuationToken: 'yt-prev',
      },
    });
    expect(output).toEqual({ items: [video('dQw4w9WgXcQ')], next_cursor: 'yt-search-next', has_more: true });
    expect(issues).toEqual([]);
  });

  it('youtube_search: a search for shorts reads the shorts list (empty here)', () => {
    const { path, params, output, issues } = runMapping('youtube_search');
    expect({ path, params }).toEqual({ path: '/v1/youtube/search', params: { query: 'lofi beats', type: 'shorts', sortBy: 'relevance' } });
    expect(output).toEqual({ items: [], next_cursor: null, has_more: false });
    expect(issues).toEqual([]);
  });
});
