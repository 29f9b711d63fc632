/**
 * ScrapeCreators (https://docs.scrapecreators.com): for each operation it serves, the endpoint,
 * the query parameters built from our input, and the translation of its response into our
 * normalized output. Field names follow the vendor's responses as recorded in
 * /work/shared/social-operations.md; anything absent becomes null, never a guess.
 * Operations without an entry here are not served by the `http` provider (and not listed).
 */
import { PROFILE_URL, parseMention } from '../mention.ts';
import { SCRAPECREATORS_OPERATIONS } from './served.ts';

type Json = any;
type Input = Record<string, any>;
type Params = Record<string, string | number | boolean | undefined>;

export interface Mapping {
  path: string;
  params(input: Input): Params;
  translate(body: Json, input: Input): unknown;
}

// ------------------------------------------------------------------ value helpers

const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;

/** Non-negative integers from numbers or numeric strings ("1,234" too); anything else is null. */
const int = (value: unknown): number | null => {
  const n = typeof value === 'string' ? Number(value.replaceAll(',', '')) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : null;
};

/** Unix seconds (number or digits), ISO 8601 with any offset, or X's "Thu Sep 12 00:08:39 +0000 2024" → ISO UTC. */
const iso = (value: unknown): string | null => {
  if (value === null || value === undefined || value === '') return null;
  const ms =
    typeof value === 'number' || (typeof value === 'string' && /^[0-9]{9,11}$/.test(value))
      ? Number(value) * 1000
      : Date.parse(String(value));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
};

const bool = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : value === 1 || value === 0 ? value === 1 : null);
const bareHandle = (handle: string) => handle.replace(/^@/, '');
const arr = (value: unknown): Json[] => (Array.isArray(value) ? value : []);
const tagsIn = (text: string | null, mark: '#' | '@') =>
  [...(text ?? '').matchAll(mark === '#' ? /#([\p{L}\p{N}_]+)/gu : /@([A-Za-z0-9._]+)/g)].map((match) => match[1]!);

const page = (items: unknown[], next: unknown, hasMore?: unknown) => {
  const nextCursor = str(next);
  const more =
    hasMore === undefined || hasMore === null ? nextCursor !== null && items.length > 0 : bool(hasMore) === true || hasMore === true;
  return { items, next_cursor: more ? nextCursor : null, has_more: more && nextCursor !== null };
};

type Metrics = Record<'views' | 'likes' | 'comments' | 'shares' | 'saves' | 'quotes', number | null>;
const emptyMetrics: Metrics = { views: null, likes: null, comments: null, shares: null, saves: null, quotes: null };
const author = (fields: Partial<Record<'id' | 'username' | 'display_name' | 'avatar_url' | 'url' | 'verified', unknown>>) => ({
  id: str(fields.id),
  username: str(fields.username),
  display_name: str(fields.display_name),
  avatar_url: str(fields.avatar_url),
  url: str(fields.url),
  verified: bool(fields.verified),
});
const noAuthor = author({});

interface PostFields {
  network: string;
  id: unknown;
  url?: unknown;
  type: string;
  author?: ReturnType<typeof author>;
  title?: unknown;
  text?: unknown;
  created_at?: unknown;
  media?: Json[];
  metrics?: Partial<Metrics>;
  music?: Json;
}
const post = (fields: PostFields) => {
  const text = str(fields.text);
  return {
    network: fields.network,
    id: str(fields.id) ?? '',
    url: str(fields.url),
    type: fields.type,
    author: fields.author ?? noAuthor,
    title: str(fields.title),
    text,
    created_at: iso(fields.created_at),
    media: fields.media ?? [],
    metrics: { ...emptyMetrics, ...fields.metrics },
    hashtags: tagsIn(text, '#'),
    mentions: tagsIn(text, '@'),
    music: fields.music ?? null,
  };
};
const media = (
  type: 'image' | 'video' | 'audio',
  url: unknown,
  extra: { thumbnail?: unknown; width?: unknown; height?: unknown; seconds?: unknown } = {},
) => ({
  type,
  url: str(url),
  thumbnail_url: str(extra.thumbnail),
  width: int(extra.width),
  height: int(extra.height),
  duration_seconds: typeof extra.seconds === 'number' && extra.seconds >= 0 ? extra.seconds : null,
});
const profile = (network: string, fields: Record<string, unknown>) => ({
  network,
  id: str(fields.id) ?? '',
  username: str(fields.username),
  display_name: str(fields.display_name),
  bio: str(fields.bio),
  avatar_url: str(fields.avatar_url),
  url: str(fields.url) ?? '',
  external_url: str(fields.external_url),
  verified: bool(fields.verified),
  private: bool(fields.private),
  category: str(fields.category),
  location: str(fields.location),
  created_at: iso(fields.created_at),
  followers: int(fields.followers),
  following: int(fields.following),
  posts_count: int(fields.posts_count),
  likes_count: int(fields.likes_count),
});
const comment = (network: string, fields: Record<string, unknown> & { author?: ReturnType<typeof author> }) => ({
  network,
  id: str(fields.id) ?? '',
  post_id: str(fields.post_id),
  parent_id: str(fields.parent_id),
  author: fields.author ?? noAuthor,
  text: str(fields.text) ?? '',
  created_at: iso(fields.created_at),
  likes: int(fields.likes),
  reply_count: int(fields.reply_count),
});

// ------------------------------------------------------------------ Instagram

const igUser = (user: Json) =>
  author({
    id: user?.pk ?? user?.id,
    username: user?.username,
    display_name: user?.full_name,
    avatar_url: user?.profile_pic_url,
    url: user?.username ? PROFILE_URL.instagram(user.username) : null,
    verified: user?.is_verified,
  });

/** A feed item (v2 user posts, reels, stories): media_type 1 image, 2 video, 8 carousel. */
const igItem = (item: Json, story = false) => {
  const node = item?.media ?? item;
  const video = node.media_type === 2;
  const type = story ? 'story' : node.media_type === 8 ? 'carousel' : node.product_type === 'clips' ? 'reel' : video ? 'video' : 'image';
  const image = node.image_versions2?.candidates?.[0]?.url ?? node.display_uri;
  return {
    ...post({
      network: 'instagram',
      id: node.pk ?? node.id,
      url: node.code ? `https://www.instagram.com/${type === 'reel' ? 'reel' : 'p'}/${node.code}/` : node.url,
      type,
      author: igUser(node.user ?? node.owner),
      text: node.caption?.text,
      created_at: node.taken_at,
      media: [
        video
          ? media('video', node.video_versions?.[0]?.url ?? node.video_url, { thumbnail: image, seconds: node.video_duration })
          : media('image', image, { width: node.original_width, height: node.original_height }),
      ],
      metrics: { views: int(node.play_count ?? node.ig_play_count), likes: int(node.like_count), comments: int(node.comment_count) },
      music: node.music_metadata?.music_info?.music_asset_info
        ? {
            id: str(node.music_metadata.music_info.music_asset_info.audio_cluster_id),
            title: str(node.music_metadata.music_info.music_asset_info.title),
            artist: str(node.music_metadata.music_info.music_asset_info.display_artist),
            url: null,
          }
        : null,
    }),
    ...(story ? { expires_at: iso(node.expiring_at) } : {}),
  };
};

const igHighlight = (h: Json) => ({
  network: 'instagram',
  id: str(h.id)?.replace(/^highlight:/, '') ?? '',
  title: str(h.title) ?? '',
  cover_url: str(h.cover_media?.thumbnail_src ?? h.cover_media_cropped_thumbnail?.url ?? h.cover_media?.cropped_image_version?.url),
  media_count: int(h.media_count),
});

const instagram: Record<string, Mapping> = {
  instagram_profile: {
    path: '/v1/instagram/profile',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    translate: (body) => {
      const user = body.data.user;
      return profile('instagram', {
        id: user.id,
        username: user.username,
        display_name: user.full_name,
        bio: user.biography,
        avatar_url: user.profile_pic_url_hd ?? user.profile_pic_url,
        url: user.username ? PROFILE_URL.instagram(user.username) : null,
        external_url: user.external_url,
        verified: user.is_verified,
        private: user.is_private,
        category: user.category_name,
        followers: user.edge_followed_by?.count,
        following: user.edge_follow?.count,
        posts_count: user.edge_owner_to_timeline_media?.count,
      });
    },
  },
  instagram_user_posts: {
    path: '/v2/instagram/user/posts',
    params: (input) => ({ handle: bareHandle(input.handle), next_max_id: input.cursor }),
    translate: (body) =>
      page(
        arr(body.items).map((item) => igItem(item)),
        body.next_max_id,
        body.more_available,
      ),
  },
  instagram_user_reels: {
    path: '/v1/instagram/user/reels',
    params: (input) => ({ handle: bareHandle(input.handle), max_id: input.cursor }),
    translate: (body) =>
      page(
        arr(body.items).map((item) => igItem(item)),
        body.paging_info?.max_id ?? body.max_id,
        body.paging_info?.more_available,
      ),
  },
  instagram_user_highlights: {
    path: '/v1/instagram/user/highlights',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    translate: (body) => ({ items: arr(body.highlights).map(igHighlight) }),
  },
  instagram_highlight_stories: {
    path: '/v1/instagram/user/highlight/detail',
    params: (input) => ({ id: String(input.highlight_id).replace(/^highlight:/, '') }),
    translate: (body) => ({ ...igHighlight(body), items: arr(body.items).map((item) => igItem(item, true)) }),
  },
  instagram_post: {
    path: '/v1/instagram/post',
    params: (input) => ({ url: input.url }),
    translate: (body) => {
      const m = body.data.xdt_shortcode_media;
      const children = arr(m.edge_sidecar_to_children?.edges).map((edge) => edge.node);
      const mediaOf = (node: Json) =>
        node.is_video
          ? media('video', node.video_url, { thumbnail: node.display_url, seconds: node.video_duration })
          : media('image', node.display_url, { width: node.dimensions?.width, height: node.dimensions?.height });
      return post({
        network: 'instagram',
        id: m.id,
        url: `https://www.instagram.com/${m.product_type === 'clips' ? 'reel' : 'p'}/${m.shortcode}/`,
        type: children.length > 0 ? 'carousel' : m.product_type === 'clips' ? 'reel' : m.is_video ? 'video' : 'image',
        author: igUser(m.owner),
        text: m.edge_media_to_caption?.edges?.[0]?.node?.text,
        created_at: m.taken_at_timestamp,
        media: children.length > 0 ? children.map(mediaOf) : [mediaOf(m)],
        metrics: {
          views: int(m.video_play_count ?? m.video_view_count),
          likes: int(m.edge_media_preview_like?.count),
          comments: int(m.edge_media_to_parent_comment?.count),
        },
        music: m.clips_music_attribution_info
          ? {
              id: str(m.clips_music_attribution_info.audio_id),
              title: str(m.clips_music_attribution_info.song_name),
              artist: str(m.clips_music_attribution_info.artist_name),
              url: null,
            }
          : null,
      });
    },
  },
  instagram_post_comments: {
    path: '/v2/instagram/post/comments',
    params: (input) => ({ url: input.url, cursor: input.cursor }),
    translate: (body) =>
      page(
        arr(body.comments).map((c) =>
          comment('instagram', {
            id: c.id,
            text: c.text,
            created_at: c.created_at,
            likes: c.comment_like_count,
            reply_count: c.child_comment_count,
            author: igUser(c.user),
          }),
        ),
        body.cursor,
      ),
  },
};

// ------------------------------------------------------------------ TikTok

const ttAuthor = (a: Json) =>
  author({
    id: a?.uid ?? a?.id,
    username: a?.unique_id ?? a?.uniqueId,
    display_name: a?.nickname,
    avatar_url: a?.avatar_thumb?.url_list?.[0] ?? a?.avatarThumb,
    url: (a?.unique_id ?? a?.uniqueId) ? PROFILE_URL.tiktok(a.unique_id ?? a.uniqueId) : null,
    verified: a?.verified ?? (typeof a?.custom_verify === 'string' ? a.custom_verify !== '' : null),
  });

/** TikTok's "aweme" video object (video.duration is in milliseconds). */
const aweme = (a: Json) => {
  const images = arr(a.image_post_info?.images);
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

const tiktok: Record<string, Mapping> = {
  tiktok_profile: {
    path: '/v1/tiktok/profile',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    translate: (body) =>
      profile('tiktok', {
        id: body.user.id,
        username: body.user.uniqueId,
        display_name: body.user.nickname,
        bio: body.user.signature,
        avatar_url: body.user.avatarLarger ?? body.user.avatarMedium,
        url: PROFILE_URL.tiktok(body.user.uniqueId),
        external_url: body.user.bioLink?.link,
        verified: body.user.verified,
        private: body.user.privateAccount,
        created_at: body.user.createTime,
        followers: body.stats?.followerCount,
        following: body.stats?.followingCount,
        posts_count: body.stats?.videoCount,
        likes_count: body.stats?.heartCount ?? body.stats?.heart,
      }),
  },
  tiktok_user_posts: {
    path: '/v3/tiktok/profile/videos',
    params: (input) => ({ handle: bareHandle(input.handle), sort_by: input.sort, max_cursor: input.cursor, region: input.region }),
    translate: (body) => page(arr(body.aweme_list).map(aweme), body.max_cursor, body.has_more),
  },
  tiktok_post: {
    path: '/v2/tiktok/video',
    params: (input) => ({ url: input.url, region: input.region }),
    translate: (body) => aweme(body.aweme_detail),
  },
  tiktok_post_comments: {
    path: '/v1/tiktok/video/comments',
    params: (input) => ({ url: input.url, cursor: input.cursor }),
    translate: (body) =>
      page(
        arr(body.comments).map((c) =>
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
  },
  tiktok_search: {
    path: '/v1/tiktok/search/keyword',
    params: (input) => ({
      query: input.query,
      date_posted: input.date_posted,
      sort_by: input.sort,
      region: input.region,
      cursor: input.cursor,
    }),
    translate: (body) =>
      page(
        arr(body.search_item_list).map((entry) => aweme(entry.aweme_info)),
        body.cursor,
      ),
  },
  tiktok_hashtag_posts: {
    path: '/v1/tiktok/search/hashtag',
    params: (input) => ({ hashtag: String(input.hashtag).replace(/^#/, ''), region: input.region, cursor: input.cursor }),
    translate: (body) => page(arr(body.aweme_list).map(aweme), body.cursor, body.has_more),
  },
  tiktok_music_posts: {
    path: '/v1/tiktok/song/videos',
    params: (input) => ({ clipId: input.music_id, cursor: input.cursor }),
    translate: (body) => page(arr(body.aweme_list).map(aweme), body.cursor, body.has_more),
  },
  tiktok_trending: {
    path: '/v1/tiktok/get-trending-feed',
    params: (input) => ({ region: input.region }),
    translate: (body) => ({ items: arr(body.aweme_list).map(aweme) }),
  },
};

// ------------------------------------------------------------------ YouTube

/** SC accepts a channel as handle, channelId or url: pass what the caller gave. */
const ytChannel = (channel: string): Params =>
  /^https?:\/\//.test(channel)
    ? { url: channel }
    : /^UC[A-Za-z0-9_-]{22}$/.test(channel)
      ? { channelId: channel }
      : { handle: bareHandle(channel) };

const ytVideo = (v: Json, type: 'video' | 'short') =>
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

const youtube: Record<string, Mapping> = {
  youtube_channel: {
    path: '/v1/youtube/channel',
    params: (input) => ytChannel(input.channel),
    translate: (body) =>
      profile('youtube', {
        id: body.channelId,
        username: typeof body.handle === 'string' ? bareHandle(body.handle) : null,
        display_name: body.name,
        bio: body.description,
        avatar_url: body.avatar?.image?.sources?.at(-1)?.url,
        url: body.channel ?? `https://www.youtube.com/channel/${body.channelId}`,
        external_url: arr(body.links)[0] ?? null,
        location: body.country,
        followers: body.subscriberCount,
        posts_count: int(String(body.videoCountText ?? '').replace(/[^0-9]/g, '') || null),
      }),
  },
  youtube_channel_videos: {
    path: '/v1/youtube/channel-videos',
    params: (input) => ({ ...ytChannel(input.channel), sort: input.sort, continuationToken: input.cursor }),
    translate: (body) =>
      page(
        arr(body.videos).map((v) => ytVideo(v, 'video')),
        body.continuationToken,
      ),
  },
  youtube_channel_playlists: {
    path: '/v1/youtube/channel/playlists',
    params: (input) => ({ ...ytChannel(input.channel), continuationToken: input.cursor }),
    translate: (body) =>
      page(
        arr(body.playlists).map((p) => ({
          network: 'youtube',
          id: str(p.id) ?? '',
          title: str(p.title) ?? '',
          url: str(p.playlistUrl) ?? `https://www.youtube.com/playlist?list=${p.id}`,
          thumbnail_url: str(p.thumbnail),
          video_count: int(p.videoCount),
        })),
        body.continuationToken,
      ),
  },
  youtube_channel_shorts: {
    path: '/v1/youtube/channel/shorts',
    params: (input) => ({
      ...ytChannel(input.channel),
      sort: input.sort === 'latest' ? 'newest' : 'popular',
      continuationToken: input.cursor,
    }),
    translate: (body) =>
      page(
        arr(body.shorts).map((v) => ytVideo(v, 'short')),
        body.continuationToken,
      ),
  },
  youtube_video: {
    path: '/v1/youtube/video',
    params: (input) => ({ url: input.url }),
    translate: (body) => ytVideo(body, body.type === 'short' ? 'short' : 'video'),
  },
  youtube_search: {
    path: '/v1/youtube/search',
    params: (input) => ({
      query: input.query,
      type: input.type,
      uploadDate: input.upload_date === 'any-time' ? undefined : input.upload_date.replaceAll('-', '_'),
      duration: { any: undefined, 'under-3-min': 'under_3_min', '3-to-20-min': 'between_3_and_20_min', 'over-20-min': 'over_20_min' }[
        input.duration as string
      ],
      sortBy: input.sort,
      region: input.region,
      continuationToken: input.cursor,
    }),
    translate: (body, input) =>
      page(
        input.type === 'shorts' ? arr(body.shorts).map((v) => ytVideo(v, 'short')) : arr(body.videos).map((v) => ytVideo(v, 'video')),
        body.continuationToken,
      ),
  },
};

// ------------------------------------------------------------------ Facebook

const fbAuthor = (a: Json) =>
  author({ id: a?.id, display_name: a?.name, avatar_url: a?.image ?? a?.profile_picture_url, url: a?.url, verified: a?.is_verified });
const fbPost = (p: Json, type?: string) =>
  post({
    network: 'facebook',
    id: p.post_id ?? p.id,
    url: p.url ?? p.permalink,
    type: type ?? (p.videoDetails || p.video ? 'video' : p.image_url ? 'image' : 'text'),
    author: fbAuthor(p.author),
    text: p.text ?? p.description,
    created_at: p.publishTime ?? p.creation_time,
    media: p.videoDetails
      ? [media('video', p.videoDetails.hdUrl ?? p.videoDetails.sdUrl, { thumbnail: p.videoDetails.thumbnailUrl })]
      : p.video
        ? [
            media('video', p.video.hd_url ?? p.video.sd_url, {
              thumbnail: p.video.thumbnail,
              width: p.video.width,
              height: p.video.height,
              seconds: p.video.length_in_second,
            }),
          ]
        : p.video_url
          ? [
              media('video', p.video_url, {
                thumbnail: p.thumbnail,
                seconds: typeof p.play_time_in_ms === 'number' ? p.play_time_in_ms / 1000 : null,
              }),
            ]
          : p.image_url
            ? [media('image', p.image_url)]
            : [],
    metrics: {
      views: int(p.videoViewCount ?? p.view_count),
      likes: int(p.reactionCount ?? p.like_count),
      comments: int(p.commentCount ?? p.comment_count),
      shares: int(p.share_count),
    },
  });

/** facebook_page_reels pages with two values; our cursor carries both. */
const reelsCursor = (nextPageId: unknown, cursor: unknown) =>
  str(cursor) ? Buffer.from(JSON.stringify({ next_page_id: str(nextPageId), cursor: str(cursor) })).toString('base64url') : null;
const readReelsCursor = (cursor: string | undefined): Params => {
  if (!cursor) return {};
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return { next_page_id: parsed.next_page_id ?? undefined, cursor: parsed.cursor ?? undefined };
  } catch {
    return { cursor };
  }
};

const facebook: Record<string, Mapping> = {
  facebook_page: {
    path: '/v1/facebook/profile',
    params: (input) => ({ url: input.url }),
    translate: (body) =>
      profile('facebook', {
        id: body.id,
        username: new URL(body.url).pathname.split('/').filter(Boolean)[0] ?? null,
        display_name: body.name,
        bio: body.pageIntro,
        avatar_url: body.profilePicLarge ?? body.profilePicMedium,
        url: body.url,
        external_url: body.website,
        private: body.isPrivate,
        category: body.category,
        location: body.address,
        followers: body.followerCount,
        likes_count: body.likeCount,
      }),
  },
  facebook_page_posts: {
    path: '/v1/facebook/profile/posts',
    params: (input) => ({ url: input.url, cursor: input.cursor }),
    translate: (body) =>
      page(
        arr(body.posts).map((p) => fbPost(p)),
        body.cursor,
      ),
  },
  facebook_page_reels: {
    path: '/v1/facebook/profile/reels',
    params: (input) => ({ url: input.url, ...readReelsCursor(input.cursor) }),
    translate: (body) =>
      page(
        arr(body.reels).map((p) => fbPost(p, 'reel')),
        reelsCursor(body.next_page_id, body.cursor),
      ),
  },
  facebook_post: {
    path: '/v1/facebook/post',
    params: (input) => ({ url: input.url }),
    translate: (body) => fbPost(body),
  },
  facebook_post_comments: {
    path: '/v1/facebook/post/comments',
    params: (input) => ({ url: input.url, cursor: input.cursor }),
    translate: (body) =>
      page(
        arr(body.comments).map((c) =>
          comment('facebook', {
            id: c.id,
            text: c.text,
            created_at: c.created_at,
            likes: c.reaction_count,
            reply_count: c.reply_count,
            author: fbAuthor(c.author),
          }),
        ),
        body.cursor,
        body.has_next_page,
      ),
  },
  facebook_group: {
    path: '/v1/facebook/group',
    params: (input) => ({ url: input.url }),
    translate: (body) => ({
      network: 'facebook',
      id: str(body.id) ?? '',
      name: str(body.name) ?? '',
      url: str(body.url) ?? '',
      description: str(body.description),
      privacy: /private/i.test(body.privacy?.label ?? '') ? 'private' : /public/i.test(body.privacy?.label ?? '') ? 'public' : null,
      member_count: int(body.member_count),
      created_at: iso(body.created_at),
      posts_last_month: int(body.activity?.posts_last_month),
    }),
  },
  facebook_group_posts: {
    path: '/v1/facebook/group/posts',
    params: (input) => ({
      url: input.url,
      sort_by: { chronological: 'CHRONOLOGICAL', 'recent-activity': 'RECENT_ACTIVITY', top: 'TOP_POSTS' }[input.sort as string],
      cursor: input.cursor,
    }),
    translate: (body) =>
      page(
        arr(body.posts).map((p) => fbPost(p)),
        body.cursor,
      ),
  },
};

// ------------------------------------------------------------------ Reddit

const redditPost = (p: Json) =>
  post({
    network: 'reddit',
    id: p.id,
    url: p.permalink ? `https://www.reddit.com${p.permalink}` : p.url,
    type: p.is_video ? 'video' : p.is_self === false && p.url ? 'link' : 'text',
    author: author({ id: p.author_fullname, username: p.author, url: p.author ? `https://www.reddit.com/user/${p.author}` : null }),
    title: p.title,
    text: p.selftext,
    created_at: p.created_at_iso ?? p.created_utc,
    media: typeof p.thumbnail === 'string' && p.thumbnail.startsWith('http') ? [media('image', p.thumbnail)] : [],
    metrics: { likes: int(p.score ?? p.ups), comments: int(p.num_comments) },
  });

/** Comments come nested (replies.data.children); flattened here, each with its parent_id. */
function flattenComments(list: Json[], postId: string | null, out: unknown[] = []): unknown[] {
  for (const entry of list) {
    const c = entry?.data ?? entry;
    if (!c || entry?.kind === 'more' || c.body === undefined) continue;
    out.push(
      comment('reddit', {
        id: c.id,
        post_id: postId,
        parent_id: typeof c.parent_id === 'string' && c.parent_id.startsWith('t1_') ? c.parent_id.slice(3) : null,
        text: c.body,
        created_at: c.created_at_iso ?? c.created_utc,
        likes: c.score ?? c.ups,
        reply_count: null,
        author: author({ id: c.author_fullname, username: c.author, url: c.author ? `https://www.reddit.com/user/${c.author}` : null }),
      }),
    );
    const replies = c.replies?.data?.children ?? c.replies?.items ?? (Array.isArray(c.replies) ? c.replies : []);
    flattenComments(replies, postId, out);
  }
  return out;
}

const subredditName = (name: string) => name.replace(/^r\//, '');

const reddit: Record<string, Mapping> = {
  reddit_search: {
    path: '/v1/reddit/search',
    params: (input) => ({
      query: input.subreddit ? `${input.query} subreddit:${subredditName(input.subreddit)}` : input.query,
      sort: input.sort === 'comments' ? 'comment_count' : input.sort,
      timeframe: input.timeframe === 'hour' ? 'day' : input.timeframe,
      after: input.cursor,
    }),
    translate: (body) => page(arr(body.posts).map(redditPost), body.after),
  },
  reddit_subreddit_posts: {
    path: '/v1/reddit/subreddit',
    params: (input) => ({
      subreddit: subredditName(input.subreddit),
      sort: input.sort,
      timeframe: input.timeframe === 'hour' ? 'day' : input.timeframe,
      after: input.cursor,
    }),
    translate: (body) => page(arr(body.posts).map(redditPost), body.after),
  },
  reddit_post: {
    path: '/v1/reddit/post',
    params: (input) => ({ url: input.url }),
    translate: (body) => redditPost(body.post ?? body),
  },
  reddit_post_comments: {
    path: '/v1/reddit/post/comments',
    params: (input) => ({ url: input.url, cursor: input.cursor }),
    translate: (body) => page(flattenComments(arr(body.comments), str(body.post?.id)), body.more?.cursor, body.more?.has_more ?? false),
  },
};

// ------------------------------------------------------------------ LinkedIn

const slugOf = (url: string) => new URL(url).pathname.split('/').filter(Boolean)[1] ?? null;

const linkedin: Record<string, Mapping> = {
  linkedin_profile: {
    path: '/v1/linkedin/profile',
    params: (input) => ({ url: input.url }),
    translate: (body, input) =>
      profile('linkedin', {
        // SC has no id field for a profile: the public identifier in the URL is the stable one.
        id: body.id ?? slugOf(input.url),
        username: slugOf(input.url),
        display_name: body.name,
        bio: body.about,
        avatar_url: body.image,
        url: input.url,
        location: body.location,
        followers: body.followers,
        following: null,
      }),
  },
  linkedin_company: {
    path: '/v1/linkedin/company',
    params: (input) => ({ url: input.url }),
    translate: (body, input) => ({
      network: 'linkedin',
      id: str(body.id) ?? slugOf(input.url) ?? '',
      name: str(body.name) ?? '',
      url: input.url,
      tagline: str(body.slogan),
      description: str(body.description),
      website: str(body.website),
      industry: str(body.industry),
      size: str(body.size),
      employee_count: int(body.employeeCount),
      followers: null,
      headquarters: str(body.headquarters),
      founded_year: typeof body.founded === 'number' ? body.founded : int(body.founded),
      logo_url: str(body.logo),
      specialties: arr(body.specialties).filter((s) => typeof s === 'string'),
    }),
  },
  linkedin_company_posts: {
    path: '/v1/linkedin/company/posts',
    // LinkedIn shows 7 pages at most; our cursor is the next page number.
    params: (input) => ({ url: input.url, page: input.cursor ? Number(input.cursor) || 1 : 1 }),
    translate: (body, input) => {
      const current = input.cursor ? Number(input.cursor) || 1 : 1;
      const items = arr(body.posts).map((p) =>
        post({ network: 'linkedin', id: p.id ?? p.url, url: p.url, type: 'text', text: p.text, created_at: p.datePublished }),
      );
      return page(items, current < 7 && items.length > 0 ? String(current + 1) : null);
    },
  },
  linkedin_post: {
    path: '/v1/linkedin/post',
    params: (input) => ({ url: input.url }),
    translate: (body, input) =>
      post({
        network: 'linkedin',
        id: /activity[-:]([0-9]+)/.exec(input.url)?.[1] ?? input.url,
        url: body.url ?? input.url,
        type: body.headline ? 'article' : 'text',
        author: author({ display_name: body.author?.name, url: body.author?.url }),
        title: body.name ?? body.headline,
        text: body.description,
        created_at: body.datePublished,
        metrics: { likes: int(body.likeCount), comments: int(body.commentCount) },
      }),
  },
  linkedin_search_posts: {
    path: '/v1/linkedin/search/posts',
    params: (input) => ({
      query: input.query,
      date_posted: input.date_posted === 'any-time' ? undefined : input.date_posted,
      cursor: input.cursor,
    }),
    translate: (body) =>
      page(
        arr(body.posts).map((p) =>
          post({
            network: 'linkedin',
            id: /activity[-:]([0-9]+)/.exec(p.url ?? '')?.[1] ?? p.url,
            url: p.url,
            type: 'text',
            author: author({ display_name: p.author?.name, url: p.author?.url, avatar_url: p.author?.image }),
            text: p.description,
            created_at: p.datePublished,
            media: arr(p.images).map((image) => media('image', image)),
            metrics: { likes: int(p.likeCount), comments: int(p.commentCount) },
          }),
        ),
        body.cursor,
      ),
  },
};

// ------------------------------------------------------------------ X

const xUser = (u: Json) => {
  const legacy = u?.legacy ?? {};
  return author({
    id: u?.rest_id,
    username: legacy.screen_name,
    display_name: legacy.name,
    avatar_url: legacy.profile_image_url_https,
    url: legacy.screen_name ? PROFILE_URL.x(legacy.screen_name) : null,
    verified: u?.is_blue_verified ?? legacy.verified,
  });
};
const tweet = (t: Json) => {
  const legacy = t.legacy ?? {};
  const user = xUser(t.core?.user_results?.result);
  const mediaList = arr(legacy.extended_entities?.media).map((m) =>
    m.type === 'photo'
      ? media('image', m.media_url_https, { width: m.original_info?.width, height: m.original_info?.height })
      : media(
          'video',
          arr(m.video_info?.variants)
            .filter((v) => v.content_type === 'video/mp4')
            .at(-1)?.url,
          {
            thumbnail: m.media_url_https,
            seconds: typeof m.video_info?.duration_millis === 'number' ? m.video_info.duration_millis / 1000 : null,
          },
        ),
  );
  return post({
    network: 'x',
    id: t.rest_id,
    url: t.url ?? (user.username ? `https://x.com/${user.username}/status/${t.rest_id}` : null),
    type: mediaList.some((m) => m.type === 'video')
      ? 'video'
      : mediaList.length > 1
        ? 'carousel'
        : mediaList.length === 1
          ? 'image'
          : 'text',
    author: user,
    text: legacy.full_text,
    created_at: legacy.created_at,
    media: mediaList,
    metrics: {
      views: int(t.views?.count),
      likes: int(legacy.favorite_count),
      comments: int(legacy.reply_count),
      shares: int(legacy.retweet_count),
      saves: int(legacy.bookmark_count),
      quotes: int(legacy.quote_count),
    },
  });
};

const x: Record<string, Mapping> = {
  x_profile: {
    path: '/v1/twitter/profile',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    translate: (body) => {
      const legacy = body.legacy ?? {};
      return profile('x', {
        id: body.rest_id,
        username: legacy.screen_name,
        display_name: legacy.name,
        bio: legacy.description,
        avatar_url: legacy.profile_image_url_https,
        url: PROFILE_URL.x(legacy.screen_name),
        external_url: legacy.url,
        verified: body.is_blue_verified ?? legacy.verified,
        private: legacy.protected ?? null,
        location: legacy.location,
        created_at: legacy.created_at,
        followers: legacy.followers_count,
        following: legacy.friends_count,
        posts_count: legacy.statuses_count,
        likes_count: legacy.favourites_count,
      });
    },
  },
  x_user_posts: {
    // SC returns about 100 of the account's most popular posts in one piece: no paging.
    path: '/v1/twitter/user-tweets',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    translate: (body, input) => page(arr(body.tweets).slice(0, input.count).map(tweet), null, false),
  },
  x_post: {
    path: '/v1/twitter/tweet',
    params: (input) => ({ url: input.url }),
    translate: (body) => tweet(body),
  },
};

export const MAPPINGS: Readonly<Record<string, Mapping>> = {
  ...instagram,
  ...tiktok,
  ...youtube,
  ...facebook,
  ...reddit,
  ...linkedin,
  ...x,
};

// served.ts lists these names for the listing (which must not import this module): a mapping
// added or removed here without it is a load-time error, not a listing that disagrees with runs.
if (
  Object.keys(MAPPINGS).length !== SCRAPECREATORS_OPERATIONS.size ||
  Object.keys(MAPPINGS).some((operation) => !SCRAPECREATORS_OPERATIONS.has(operation))
) {
  throw new Error('ScrapeCreators: MAPPINGS do not match SCRAPECREATORS_OPERATIONS in served.ts');
}

/** Which profile operation verifies a resolved mention, and with what input. */
export function verificationFor(mention: string, hint?: string): { operation: string; input: Input } | null {
  const { match } = parseMention(mention, hint as never);
  if (!match) return null;
  switch (match.network) {
    case 'instagram':
      return { operation: 'instagram_profile', input: { handle: match.handle } };
    case 'tiktok':
      return { operation: 'tiktok_profile', input: { handle: match.handle } };
    case 'x':
      return { operation: 'x_profile', input: { handle: match.handle } };
    case 'youtube':
      return { operation: 'youtube_channel', input: { channel: match.url } };
    case 'facebook':
      return match.kind === 'group' ? null : { operation: 'facebook_page', input: { url: match.url } };
    case 'linkedin':
      return { operation: match.kind === 'company' ? 'linkedin_company' : 'linkedin_profile', input: { url: match.url } };
    default:
      return null;
  }
}
