/**
 * YouTube on ScrapeCreators: flat objects of its own (not the Data API's), paged by
 * `continuationToken` (social-operations.md, "YouTube").
 */
import * as z from 'zod/mini';
import { type Mappings, mapping, type Params, type Vendor } from './mapping.ts';
import { author, media, page, post, profile } from './output.ts';
import { bareHandle, given, int, str } from './read.ts';
import { count, id, list, loose, object, text, time } from './vendor-shapes.ts';

// ------------------------------------------------------------------ the vendor's shapes

/** A video or a short, as lists and the video endpoint give it. */
const videoShape = () =>
  z.object({
    id: id(),
    url: text(),
    title: text(),
    description: text(),
    thumbnail: text(),
    channel: object({ id: id(), handle: text(), title: text(), thumbnail: text(), url: text() }),
    publishDate: time(),
    publishedTime: time(),
    lengthSeconds: count(),
    durationMs: count(),
    viewCountInt: count(),
    likeCountInt: count(),
    commentCountInt: count(),
  });
const videos = () => list(videoShape());

// ------------------------------------------------------------------ translation

/** SC accepts a channel as handle, channelId or url: pass what the caller gave. */
const channelParams = (channel: unknown): Params => {
  const value = String(channel);
  return /^https?:\/\//.test(value)
    ? { url: value }
    : /^UC[A-Za-z0-9_-]{22}$/.test(value)
      ? { channelId: value }
      : { handle: bareHandle(value) };
};

const video = (v: Vendor<typeof videoShape>, type: 'video' | 'short') =>
  post({
    network: 'youtube',
    id: v.id,
    url: v.url ?? (type === 'short' ? `https://www.youtube.com/shorts/${v.id}` : `https://www.youtube.com/watch?v=${v.id}`),
    type,
    author: author({
      id: v.channel?.id,
      username: v.channel?.handle,
      display_name: v.channel?.title,
      avatar_url: v.channel?.thumbnail,
      url: v.channel?.url,
    }),
    title: v.title,
    text: v.description,
    created_at: v.publishDate ?? v.publishedTime,
    media: [
      media('video', v.url, {
        thumbnail: v.thumbnail,
        seconds: typeof v.lengthSeconds === 'number' ? v.lengthSeconds : typeof v.durationMs === 'number' ? v.durationMs / 1000 : null,
      }),
    ],
    metrics: { views: int(v.viewCountInt), likes: int(v.likeCountInt), comments: int(v.commentCountInt) },
  });

const videoPage = (items: Vendor<typeof videoShape>[] | null | undefined, type: 'video' | 'short', cursor: unknown) =>
  page(
    (items ?? []).map((v) => video(v, type)),
    cursor,
  );

const DURATION: Readonly<Record<string, string | undefined>> = {
  'under-3-min': 'under_3_min',
  '3-to-20-min': 'between_3_and_20_min',
  'over-20-min': 'over_20_min',
};

export const youtube = {
  youtube_channel: mapping({
    path: '/v1/youtube/channel',
    params: (input) => channelParams(input.channel),
    response: () =>
      z.object({
        channelId: id(),
        channel: text(),
        handle: text(),
        name: text(),
        description: text(),
        avatar: object({ image: object({ sources: list(z.object({ url: text() })) }) }),
        links: list(loose()),
        country: text(),
        subscriberCount: count(),
        videoCountText: text(),
      }),
    translate: (body) =>
      profile('youtube', {
        id: body.channelId,
        username: typeof body.handle === 'string' ? bareHandle(body.handle) : null,
        display_name: body.name,
        bio: body.description,
        avatar_url: body.avatar?.image?.sources?.at(-1)?.url,
        url: body.channel ?? `https://www.youtube.com/channel/${body.channelId}`,
        external_url: body.links?.[0] ?? null,
        location: body.country,
        followers: body.subscriberCount,
        posts_count: int(String(body.videoCountText ?? '').replace(/[^0-9]/g, '') || null),
      }),
  }),
  youtube_channel_videos: mapping({
    path: '/v1/youtube/channel-videos',
    params: (input) => ({ ...channelParams(input.channel), sort: given(input.sort), continuationToken: given(input.cursor) }),
    response: () => z.object({ videos: videos(), continuationToken: id() }),
    translate: (body) => videoPage(body.videos, 'video', body.continuationToken),
  }),
  youtube_channel_playlists: mapping({
    path: '/v1/youtube/channel/playlists',
    params: (input) => ({ ...channelParams(input.channel), continuationToken: given(input.cursor) }),
    response: () =>
      z.object({
        playlists: list(z.object({ id: id(), title: text(), playlistUrl: text(), thumbnail: text(), videoCount: count() })),
        continuationToken: id(),
      }),
    translate: (body) =>
      page(
        (body.playlists ?? []).map((p) => ({
          network: 'youtube',
          id: str(p.id) ?? '',
          title: str(p.title) ?? '',
          url: str(p.playlistUrl) ?? `https://www.youtube.com/playlist?list=${p.id}`,
          thumbnail_url: str(p.thumbnail),
          video_count: int(p.videoCount),
        })),
        body.continuationToken,
      ),
  }),
  youtube_channel_shorts: mapping({
    path: '/v1/youtube/channel/shorts',
    params: (input) => ({
      ...channelParams(input.channel),
      sort: input.sort === 'latest' ? 'newest' : 'popular',
      continuationToken: given(input.cursor),
    }),
    response: () => z.object({ shorts: videos(), continuationToken: id() }),
    translate: (body) => videoPage(body.shorts, 'short', body.continuationToken),
  }),
  youtube_video: mapping({
    path: '/v1/youtube/video',
    params: (input) => ({ url: given(input.url) }),
    response: () => z.extend(videoShape(), { type: text() }),
    translate: (body) => video(body, body.type === 'short' ? 'short' : 'video'),
  }),
  youtube_search: mapping({
    path: '/v1/youtube/search',
    params: (input) => ({
      query: given(input.query),
      type: given(input.type),
      uploadDate: input.upload_date === 'any-time' ? undefined : String(input.upload_date).replaceAll('-', '_'),
      duration: DURATION[String(input.duration)],
      sortBy: given(input.sort),
      region: given(input.region),
      continuationToken: given(input.cursor),
    }),
    response: () => z.object({ videos: videos(), shorts: videos(), continuationToken: id() }),
    translate: (body, input) =>
      input.type === 'shorts'
        ? videoPage(body.shorts, 'short', body.continuationToken)
        : videoPage(body.videos, 'video', body.continuationToken),
  }),
} satisfies Mappings;
