import * as z from 'zod/mini';
import { count, cursor, lazy, operation, page, playlist, post, profile, query, region, urlOn } from './shapes.ts';

const channel = lazy(() =>
  z
    .string()
    .check(
      z.maxLength(2048),
      z.regex(
        /^(@?[A-Za-z0-9._-]{3,100}|UC[A-Za-z0-9_-]{22}|https?:\/\/(www\.|m\.)?youtube\.com\/\S+)$/,
        'must be a channel handle (@name), a channel id (UC…) or a youtube.com channel URL',
      ),
      z.describe('channel handle (@name), channel id (UC…) or youtube.com channel URL'),
    ),
);
const videoUrl = lazy(() =>
  urlOn(['youtube.com', 'youtu.be'], 'a YouTube video or short URL, e.g. https://www.youtube.com/watch?v=dQw4w9WgXcQ'),
);
const sort = lazy(() => z._default(z.enum(['latest', 'popular']), 'latest').check(z.describe('order of the results')));

export const youtube = [
  operation({
    name: 'youtube_channel',
    network: 'youtube',
    description: 'Get a YouTube channel by handle, id or URL: description, subscribers, video count, links.',
    cost: 1,
    input: () => z.strictObject({ channel: channel() }),
    output: profile,
  }),
  operation({
    name: 'youtube_channel_videos',
    network: 'youtube',
    description: 'List the videos of a YouTube channel, latest or most popular first, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ channel: channel(), sort: sort(), cursor: z.optional(cursor()) }),
    output: () => page(post()),
  }),
  operation({
    name: 'youtube_channel_playlists',
    network: 'youtube',
    description: 'List the public playlists of a YouTube channel, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ channel: channel(), cursor: z.optional(cursor()) }),
    output: () => page(playlist()),
  }),
  operation({
    name: 'youtube_channel_shorts',
    network: 'youtube',
    description: 'List the Shorts of a YouTube channel, latest or most popular first, a page at a time.',
    cost: 1,
    input: () => z.strictObject({ channel: channel(), sort: sort(), cursor: z.optional(cursor()) }),
    output: () => page(post()),
  }),
  operation({
    name: 'youtube_video',
    network: 'youtube',
    description: 'Get one YouTube video or Short by URL: title, description, channel, duration, views, likes.',
    cost: 1,
    input: () => z.strictObject({ url: videoUrl() }),
    output: post,
  }),
  operation({
    name: 'youtube_search',
    network: 'youtube',
    description: 'Search YouTube videos or Shorts by keywords, with upload-date, duration and order filters.',
    cost: 1,
    input: () =>
      z.strictObject({
        query: query(),
        type: z._default(z.enum(['videos', 'shorts']), 'videos').check(z.describe('what to search for')),
        upload_date: z._default(z.enum(['today', 'this-week', 'this-month', 'this-year', 'any-time']), 'any-time'),
        duration: z._default(z.enum(['any', 'under-3-min', '3-to-20-min', 'over-20-min']), 'any'),
        sort: z._default(z.enum(['relevance', 'popular']), 'relevance'),
        region: z.optional(region()),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
  operation({
    name: 'youtube_trending',
    network: 'youtube',
    description: 'Get the videos or Shorts trending on YouTube in a country.',
    cost: 1,
    input: () =>
      z.strictObject({
        region: region(),
        type: z._default(z.enum(['videos', 'shorts']), 'videos').check(z.describe('trending videos or trending Shorts')),
        count: count(50, 25),
        cursor: z.optional(cursor()),
      }),
    output: () => page(post()),
  }),
];
