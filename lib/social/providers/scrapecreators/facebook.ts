/**
 * Facebook on ScrapeCreators: pages, posts, reels and groups by URL. Posts come in two
 * spellings (the feed's camelCase, the post endpoint's snake_case); reels page with two values
 * (social-operations.md, "Facebook").
 */
import * as z from 'zod/mini';
import { type Mappings, mapping, type Params, type Vendor } from './mapping.ts';
import { author, comment, media, page, post, profile } from './output.ts';
import { given, int, iso, str } from './read.ts';
import { count, flag, id, list, object, text, time } from './vendor-shapes.ts';

// ------------------------------------------------------------------ the vendor's shapes

const person = () => object({ id: id(), name: text(), image: text(), profile_picture_url: text(), url: text(), is_verified: flag() });

/** A post of a page or group feed (camelCase), of the post endpoint (snake_case), or a reel. */
const postShape = () =>
  z.object({
    id: id(),
    post_id: id(),
    url: text(),
    permalink: text(),
    text: text(),
    description: text(),
    publishTime: time(),
    creation_time: time(),
    author: person(),
    reactionCount: count(),
    like_count: count(),
    commentCount: count(),
    comment_count: count(),
    share_count: count(),
    videoViewCount: count(),
    view_count: count(),
    image_url: text(),
    videoDetails: object({ hdUrl: text(), sdUrl: text(), thumbnailUrl: text() }),
    video: object({ hd_url: text(), sd_url: text(), thumbnail: text(), width: count(), height: count(), length_in_second: count() }),
    video_url: text(),
    thumbnail: text(),
    play_time_in_ms: count(),
  });
type Post = Vendor<typeof postShape>;

// ------------------------------------------------------------------ translation

const fbAuthor = (a: Vendor<typeof person>) =>
  author({ id: a?.id, display_name: a?.name, avatar_url: a?.image ?? a?.profile_picture_url, url: a?.url, verified: a?.is_verified });

const postMedia = (p: Post) =>
  p.videoDetails
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
          : [];

const fbPost = (p: Post, type?: 'reel') =>
  post({
    network: 'facebook',
    id: p.post_id ?? p.id,
    url: p.url ?? p.permalink,
    type: type ?? (p.videoDetails || p.video ? 'video' : p.image_url ? 'image' : 'text'),
    author: fbAuthor(p.author),
    text: p.text ?? p.description,
    created_at: p.publishTime ?? p.creation_time,
    media: postMedia(p),
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
const reelsCursorShape = () => z.object({ next_page_id: text(), cursor: text() });
const readReelsCursor = (cursor: string | undefined): Params => {
  if (!cursor) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return { cursor };
  }
  // Not one of ours (a client's own text): passed on as the vendor's cursor.
  const ours = reelsCursorShape().safeParse(parsed);
  return ours.success ? { next_page_id: ours.data.next_page_id ?? undefined, cursor: ours.data.cursor ?? undefined } : { cursor };
};

const GROUP_SORT: Readonly<Record<string, string | undefined>> = {
  chronological: 'CHRONOLOGICAL',
  'recent-activity': 'RECENT_ACTIVITY',
  top: 'TOP_POSTS',
};

export const facebook = {
  facebook_page: mapping({
    path: '/v1/facebook/profile',
    params: (input) => ({ url: given(input.url) }),
    response: () =>
      z.object({
        id: id(),
        url: z.string(),
        name: text(),
        pageIntro: text(),
        profilePicLarge: text(),
        profilePicMedium: text(),
        website: text(),
        isPrivate: flag(),
        category: text(),
        address: text(),
        followerCount: count(),
        likeCount: count(),
      }),
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
  }),
  facebook_page_posts: mapping({
    path: '/v1/facebook/profile/posts',
    params: (input) => ({ url: given(input.url), cursor: given(input.cursor) }),
    response: () => z.object({ posts: list(postShape()), cursor: id() }),
    translate: (body) =>
      page(
        (body.posts ?? []).map((p) => fbPost(p)),
        body.cursor,
      ),
  }),
  facebook_page_reels: mapping({
    path: '/v1/facebook/profile/reels',
    params: (input) => ({ url: given(input.url), ...readReelsCursor(given(input.cursor)) }),
    response: () => z.object({ reels: list(postShape()), next_page_id: id(), cursor: id() }),
    translate: (body) =>
      page(
        (body.reels ?? []).map((p) => fbPost(p, 'reel')),
        reelsCursor(body.next_page_id, body.cursor),
      ),
  }),
  facebook_post: mapping({
    path: '/v1/facebook/post',
    params: (input) => ({ url: given(input.url) }),
    response: postShape,
    translate: (body) => fbPost(body),
  }),
  facebook_post_comments: mapping({
    path: '/v1/facebook/post/comments',
    params: (input) => ({ url: given(input.url), cursor: given(input.cursor) }),
    response: () =>
      z.object({
        comments: list(
          z.object({ id: id(), text: text(), created_at: time(), reaction_count: count(), reply_count: count(), author: person() }),
        ),
        cursor: id(),
        has_next_page: flag(),
      }),
    translate: (body) =>
      page(
        (body.comments ?? []).map((c) =>
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
  }),
  facebook_group: mapping({
    path: '/v1/facebook/group',
    params: (input) => ({ url: given(input.url) }),
    response: () =>
      z.object({
        id: id(),
        name: text(),
        url: text(),
        description: text(),
        privacy: object({ label: text() }),
        member_count: count(),
        created_at: time(),
        activity: object({ posts_last_month: count() }),
      }),
    translate: (body) => {
      const privacy = body.privacy?.label ?? '';
      return {
        network: 'facebook',
        id: str(body.id) ?? '',
        name: str(body.name) ?? '',
        url: str(body.url) ?? '',
        description: str(body.description),
        privacy: /private/i.test(privacy) ? 'private' : /public/i.test(privacy) ? 'public' : null,
        member_count: int(body.member_count),
        created_at: iso(body.created_at),
        posts_last_month: int(body.activity?.posts_last_month),
      };
    },
  }),
  facebook_group_posts: mapping({
    path: '/v1/facebook/group/posts',
    params: (input) => ({ url: given(input.url), sort_by: GROUP_SORT[String(input.sort)], cursor: given(input.cursor) }),
    response: () => z.object({ posts: list(postShape()), cursor: id() }),
    translate: (body) =>
      page(
        (body.posts ?? []).map((p) => fbPost(p)),
        body.cursor,
      ),
  }),
} satisfies Mappings;
