/**
 * youtube_trending on TikHub's YouTube-Web-API: `GET /api/v1/youtube/web/get_trending_videos`
 * (`language_code` default en, `country_code` default us, `section` Now | Music | Gaming | Movies),
 * as TikHub's OpenAPI reference (V5.3.2, github.com/TikHubIO/TikHub-API-Python-SDK
 * spec/openapi.json, tag YouTube-Web-API) documents it. One list, no pages, no Shorts section.
 *
 * The reference says only "trending videos" of the answer. It is read in an assumed shape,
 * `data.videos[]{video_id, title, description, author, channel_id, number_of_views,
 * published_time, thumbnails[]{url}}`, the video rows of TikHub's YouTube-Web answers as a public
 * TikHub client reads its search_video; any other shape is refused (failover or refund), never
 * half-read: docs/social-operations.md, "TikHub", lists what to check with a live key.
 */
import * as z from 'zod/mini';
import { author, media, page, post } from '../scrapecreators/output.ts';
import { int } from '../scrapecreators/read.ts';
import { text } from '../scrapecreators/vendor-shapes.ts';
import { call, type TikHubMapping } from './mapping.ts';

const video = () =>
  z.object({
    video_id: z.string().check(z.minLength(1)),
    title: text(),
    description: text(),
    author: text(),
    channel_id: text(),
    number_of_views: z.nullish(z.union([z.number(), z.string()])),
    thumbnails: z.nullish(z.array(z.object({ url: text() }))),
  });
type Video = z.output<ReturnType<typeof video>>;

export const youtube: Readonly<Record<string, TikHubMapping>> = {
  youtube_trending: call({
    unsupported: (input) => {
      if (input.type !== 'videos') return "TikHub's trending sections have no Shorts";
      return input.cursor === undefined ? undefined : "TikHub's trending list has no pages";
    },
    path: '/api/v1/youtube/web/get_trending_videos',
    params: (input) => ({ language_code: 'en', country_code: String(input.region).toLowerCase(), section: 'Now' }),
    response: () => z.object({ videos: z.array(video()) }),
    translate: (data: { videos: Video[] }, input) =>
      page(
        data.videos.slice(0, Number(input.count)).map((row) =>
          post({
            network: 'youtube',
            id: row.video_id,
            url: `https://www.youtube.com/watch?v=${encodeURIComponent(row.video_id)}`,
            type: 'video',
            author: author({
              id: row.channel_id,
              display_name: row.author,
              url: row.channel_id ? `https://www.youtube.com/channel/${row.channel_id}` : null,
            }),
            title: row.title,
            text: row.description,
            // `published_time` is relative ("2 days ago"): not a date.
            media: [
              media('video', `https://www.youtube.com/watch?v=${encodeURIComponent(row.video_id)}`, {
                thumbnail: row.thumbnails?.[0]?.url,
              }),
            ],
            metrics: { views: int(row.number_of_views) },
          }),
        ),
        null,
      ),
  }),
};
