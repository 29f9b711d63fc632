/**
 * TikTok on ScrapeCreators: every list is of TikTok's own "aweme" video objects, with
 * `has_more` as 0/1 (social-operations.md, "TikTok").
 */
import * as z from 'zod/mini';
import { PROFILE_URL } from '../../mention.ts';
import { type Mappings, mapping, type Vendor } from './mapping.ts';
import { author, comment, media, page, post, profile } from './output.ts';
import { bareHandle, given, int, str } from './read.ts';
import { count, flag, id, list, object, text, time, urlList } from './vendor-shapes.ts';

// ------------------------------------------------------------------ the vendor's shapes

/** Authors come in two spellings: the app's (unique_id) and the web's (uniqueId). */
const user = () =>
  object({
    uid: id(),
    id: id(),
    unique_id: text(),
    uniqueId: text(),
    nickname: text(),
    avatar_thumb: urlList(),
    avatarThumb: text(),
    verified: flag(),
    custom_verify: text(),
  });

/** TikTok's "aweme" video object (video.duration is in milliseconds). */
const awemeShape = () =>
  z.object({
    aweme_id: id(),
    url: text(),
    share_url: text(),
    desc: text(),
    create_time: time(),
    create_time_utc: time(),
    author: user(),
    image_post_info: object({
      images: list(z.object({ display_image: object({ url_list: list(z.string()), width: count(), height: count() }) })),
    }),
    video: object({ play_addr: urlList(), cover: urlList(), width: count(), height: count(), duration: count() }),
    statistics: object({ play_count: count(), digg_count: count(), comment_count: count(), share_count: count(), collect_count: count() }),
    music: object({ id: id(), id_str: id(), title: text(), author: text(), play_url: urlList() }),
  });
const awemes = () => list(awemeShape());

// ------------------------------------------------------------------ translation

const ttAuthor = (a: Vendor<typeof user>) => {
  const handle = a?.unique_id ?? a?.uniqueId;
  return author({
    id: a?.uid ?? a?.id,
    username: handle,
    display_name: a?.nickname,
    avatar_url: a?.avatar_thumb?.url_list?.[0] ?? a?.avatarThumb,
    url: handle ? PROFILE_URL.tiktok(handle) : null,
    verified: a?.verified ?? (typeof a?.custom_verify === 'string' ? a.custom_verify !== '' : null),
  });
};

const aweme = (a: Vendor<typeof awemeShape>) => {
  const images = a.image_post_info?.images ?? [];
  const handle = a.author?.unique_id;
  return post({
    network: 'tiktok',
    id: a.aweme_id,
    url: a.url ?? (handle ? `https://www.tiktok.com/@${handle}/video/${a.aweme_id}` : a.share_url),
    type: images.length > 0 ? 'carousel' : 'video',
    author: ttAuthor(a.author),
    text: a.desc,
    created_at: a.create_time_utc ?? a.create_time,
    media:
      images.length > 0
        ? images.map((image) =>
            media('image', image.display_image?.url_list?.[0], { width: image.display_image?.width, height: image.display_image?.height }),
          )
        : [
            media('video', a.video?.play_addr?.url_list?.[0], {
              thumbnail: a.video?.cover?.url_list?.[0],
              width: a.video?.width,
              height: a.video?.height,
              seconds: typeof a.video?.duration === 'number' ? a.video.duration / 1000 : null,
            }),
          ],
    metrics: {
      views: int(a.statistics?.play_count),
      likes: int(a.statistics?.digg_count),
      comments: int(a.statistics?.comment_count),
      shares: int(a.statistics?.share_count),
      saves: int(a.statistics?.collect_count),
    },
    music: a.music
      ? {
          id: str(a.music.id_str ?? a.music.id),
          title: str(a.music.title),
          artist: str(a.music.author),
          url: str(a.music.play_url?.url_list?.[0]),
        }
      : null,
  });
};

export const tiktok = {
  tiktok_profile: mapping({
    path: '/v1/tiktok/profile',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    response: () =>
      z.object({
        user: z.object({
          id: id(),
          // The profile's URL is made from it: a profile without one is not a usable answer.
          uniqueId: z.string(),
          nickname: text(),
          signature: text(),
          avatarLarger: text(),
          avatarMedium: text(),
          bioLink: object({ link: text() }),
          verified: flag(),
          privateAccount: flag(),
          createTime: time(),
        }),
        stats: object({ followerCount: count(), followingCount: count(), videoCount: count(), heartCount: count(), heart: count() }),
      }),
    translate: ({ user: u, stats }) =>
      profile('tiktok', {
        id: u.id,
        username: u.uniqueId,
        display_name: u.nickname,
        bio: u.signature,
        avatar_url: u.avatarLarger ?? u.avatarMedium,
        url: PROFILE_URL.tiktok(u.uniqueId),
        external_url: u.bioLink?.link,
        verified: u.verified,
        private: u.privateAccount,
        created_at: u.createTime,
        followers: stats?.followerCount,
        following: stats?.followingCount,
        posts_count: stats?.videoCount,
        likes_count: stats?.heartCount ?? stats?.heart,
      }),
  }),
  tiktok_user_posts: mapping({
    path: '/v3/tiktok/profile/videos',
    params: (input) => ({
      handle: bareHandle(input.handle),
      sort_by: given(input.sort),
      max_cursor: given(input.cursor),
      region: given(input.region),
    }),
    response: () => z.object({ aweme_list: awemes(), max_cursor: id(), has_more: flag() }),
    translate: (body) => page((body.aweme_list ?? []).map(aweme), body.max_cursor, body.has_more),
  }),
  tiktok_post: mapping({
    path: '/v2/tiktok/video',
    params: (input) => ({ url: given(input.url), region: given(input.region) }),
    response: () => z.object({ aweme_detail: awemeShape() }),
    translate: (body) => aweme(body.aweme_detail),
  }),
  tiktok_post_comments: mapping({
    path: '/v1/tiktok/video/comments',
    params: (input) => ({ url: given(input.url), cursor: given(input.cursor) }),
    response: () =>
      z.object({
        comments: list(
          z.object({
            cid: id(),
            aweme_id: id(),
            text: text(),
            create_time: time(),
            digg_count: count(),
            reply_comment_total: count(),
            user: user(),
          }),
        ),
        cursor: id(),
        has_more: flag(),
      }),
    translate: (body) =>
      page(
        (body.comments ?? []).map((c) =>
          comment('tiktok', {
            id: c.cid,
            post_id: c.aweme_id,
            text: c.text,
            created_at: c.create_time,
            likes: c.digg_count,
            reply_count: c.reply_comment_total,
            author: ttAuthor(c.user),
          }),
        ),
        body.cursor,
        body.has_more,
      ),
  }),
  tiktok_search: mapping({
    path: '/v1/tiktok/search/keyword',
    params: (input) => ({
      query: given(input.query),
      date_posted: given(input.date_posted),
      sort_by: given(input.sort),
      region: given(input.region),
      cursor: given(input.cursor),
    }),
    response: () => z.object({ search_item_list: list(z.object({ aweme_info: awemeShape() })), cursor: id() }),
    translate: (body) =>
      page(
        (body.search_item_list ?? []).map((entry) => aweme(entry.aweme_info)),
        body.cursor,
      ),
  }),
  tiktok_hashtag_posts: mapping({
    path: '/v1/tiktok/search/hashtag',
    params: (input) => ({ hashtag: String(input.hashtag).replace(/^#/, ''), region: given(input.region), cursor: given(input.cursor) }),
    response: () => z.object({ aweme_list: awemes(), cursor: id(), has_more: flag() }),
    translate: (body) => page((body.aweme_list ?? []).map(aweme), body.cursor, body.has_more),
  }),
  tiktok_music_posts: mapping({
    path: '/v1/tiktok/song/videos',
    params: (input) => ({ clipId: given(input.music_id), cursor: given(input.cursor) }),
    response: () => z.object({ aweme_list: awemes(), cursor: id(), has_more: flag() }),
    translate: (body) => page((body.aweme_list ?? []).map(aweme), body.cursor, body.has_more),
  }),
  tiktok_trending: mapping({
    path: '/v1/tiktok/get-trending-feed',
    params: (input) => ({ region: given(input.region) }),
    response: () => z.object({ aweme_list: awemes() }),
    translate: (body) => ({ items: (body.aweme_list ?? []).map(aweme) }),
  }),
} satisfies Mappings;
