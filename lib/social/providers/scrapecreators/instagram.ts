/**
 * Instagram on ScrapeCreators: profile and post come nested under `data` (Instagram's GraphQL
 * `edge_*` shapes); feeds, reels and highlights are the app's v1 items (social-operations.md,
 * "Instagram").
 */
import * as z from 'zod/mini';
import { PROFILE_URL } from '../../mention.ts';
import { type Mappings, mapping, type Vendor } from './mapping.ts';
import { author, comment, media, page, post, profile } from './output.ts';
import { bareHandle, given, int, iso, str } from './read.ts';
import { count, flag, id, list, object, text, time } from './vendor-shapes.ts';

// ------------------------------------------------------------------ the vendor's shapes

const user = () => object({ pk: id(), id: id(), username: text(), full_name: text(), profile_pic_url: text(), is_verified: flag() });

/** An app feed item (v2 user posts, reels, story items): media_type 1 image, 2 video, 8 carousel. */
const feedItem = () =>
  z.object({
    pk: id(),
    id: id(),
    code: text(),
    url: text(),
    taken_at: time(),
    expiring_at: time(),
    media_type: count(),
    product_type: text(),
    caption: object({ text: text() }),
    like_count: count(),
    comment_count: count(),
    play_count: count(),
    ig_play_count: count(),
    video_duration: count(),
    video_versions: list(z.object({ url: text() })),
    video_url: text(),
    image_versions2: object({ candidates: list(z.object({ url: text() })) }),
    display_uri: text(),
    original_width: count(),
    original_height: count(),
    user: user(),
    owner: user(),
    music_metadata: object({
      music_info: object({ music_asset_info: object({ audio_cluster_id: id(), title: text(), display_artist: text() }) }),
    }),
  });
type FeedItem = Vendor<typeof feedItem>;
/** Reels wrap each item in `media`; the other feeds do not. */
const feedEntry = () => z.extend(feedItem(), { media: z.nullish(feedItem()) });
const feed = () => list(feedEntry());

const highlight = () =>
  z.object({
    id: id(),
    title: text(),
    media_count: count(),
    cover_media: object({ thumbnail_src: text(), cropped_image_version: object({ url: text() }) }),
    cover_media_cropped_thumbnail: object({ url: text() }),
  });

/** A node of a GraphQL post (the post itself, or one of its carousel children). */
const postNode = () =>
  z.object({
    is_video: flag(),
    video_url: text(),
    display_url: text(),
    video_duration: count(),
    dimensions: object({ width: count(), height: count() }),
  });
const shortcodeMedia = () =>
  z.extend(postNode(), {
    id: id(),
    shortcode: text(),
    product_type: text(),
    owner: user(),
    taken_at_timestamp: time(),
    video_play_count: count(),
    video_view_count: count(),
    edge_sidecar_to_children: object({ edges: list(z.object({ node: postNode() })) }),
    edge_media_to_caption: object({ edges: list(z.object({ node: object({ text: text() }) })) }),
    edge_media_preview_like: object({ count: count() }),
    edge_media_to_parent_comment: object({ count: count() }),
    clips_music_attribution_info: object({ audio_id: id(), song_name: text(), artist_name: text() }),
  });

// ------------------------------------------------------------------ translation

const igUser = (u: Vendor<typeof user>) =>
  author({
    id: u?.pk ?? u?.id,
    username: u?.username,
    display_name: u?.full_name,
    avatar_url: u?.profile_pic_url,
    url: u?.username ? PROFILE_URL.instagram(u.username) : null,
    verified: u?.is_verified,
  });

const igItem = (node: FeedItem, story = false) => {
  const video = node.media_type === 2;
  const type = story ? 'story' : node.media_type === 8 ? 'carousel' : node.product_type === 'clips' ? 'reel' : video ? 'video' : 'image';
  const image = node.image_versions2?.candidates?.[0]?.url ?? node.display_uri;
  const music = node.music_metadata?.music_info?.music_asset_info;
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
      music: music ? { id: str(music.audio_cluster_id), title: str(music.title), artist: str(music.display_artist), url: null } : null,
    }),
    ...(story ? { expires_at: iso(node.expiring_at) } : {}),
  };
};

const feedPost = (entry: Vendor<typeof feedEntry>, story = false) => igItem(entry.media ?? entry, story);

const igHighlight = (h: Vendor<typeof highlight>) => ({
  network: 'instagram',
  id: str(h.id)?.replace(/^highlight:/, '') ?? '',
  title: str(h.title) ?? '',
  cover_url: str(h.cover_media?.thumbnail_src ?? h.cover_media_cropped_thumbnail?.url ?? h.cover_media?.cropped_image_version?.url),
  media_count: int(h.media_count),
});

const postMedia = (node: Vendor<typeof postNode>) =>
  node.is_video
    ? media('video', node.video_url, { thumbnail: node.display_url, seconds: node.video_duration })
    : media('image', node.display_url, { width: node.dimensions?.width, height: node.dimensions?.height });

export const instagram = {
  instagram_profile: mapping({
    path: '/v1/instagram/profile',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    response: () =>
      z.object({
        data: z.object({
          user: z.object({
            id: id(),
            username: text(),
            full_name: text(),
            biography: text(),
            profile_pic_url: text(),
            profile_pic_url_hd: text(),
            external_url: text(),
            is_verified: flag(),
            is_private: flag(),
            category_name: text(),
            edge_followed_by: object({ count: count() }),
            edge_follow: object({ count: count() }),
            edge_owner_to_timeline_media: object({ count: count() }),
          }),
        }),
      }),
    translate: ({ data: { user: u } }) =>
      profile('instagram', {
        id: u.id,
        username: u.username,
        display_name: u.full_name,
        bio: u.biography,
        avatar_url: u.profile_pic_url_hd ?? u.profile_pic_url,
        url: u.username ? PROFILE_URL.instagram(u.username) : null,
        external_url: u.external_url,
        verified: u.is_verified,
        private: u.is_private,
        category: u.category_name,
        followers: u.edge_followed_by?.count,
        following: u.edge_follow?.count,
        posts_count: u.edge_owner_to_timeline_media?.count,
      }),
  }),
  instagram_user_posts: mapping({
    path: '/v2/instagram/user/posts',
    params: (input) => ({ handle: bareHandle(input.handle), next_max_id: given(input.cursor) }),
    response: () => z.object({ items: feed(), next_max_id: id(), more_available: flag() }),
    translate: (body) =>
      page(
        (body.items ?? []).map((item) => feedPost(item)),
        body.next_max_id,
        body.more_available,
      ),
  }),
  instagram_user_reels: mapping({
    path: '/v1/instagram/user/reels',
    params: (input) => ({ handle: bareHandle(input.handle), max_id: given(input.cursor) }),
    response: () => z.object({ items: feed(), max_id: id(), paging_info: object({ max_id: id(), more_available: flag() }) }),
    translate: (body) =>
      page(
        (body.items ?? []).map((item) => feedPost(item)),
        body.paging_info?.max_id ?? body.max_id,
        body.paging_info?.more_available,
      ),
  }),
  instagram_user_highlights: mapping({
    path: '/v1/instagram/user/highlights',
    params: (input) => ({ handle: bareHandle(input.handle) }),
    response: () => z.object({ highlights: list(highlight()) }),
    translate: (body) => ({ items: (body.highlights ?? []).map(igHighlight) }),
  }),
  instagram_highlight_stories: mapping({
    path: '/v1/instagram/user/highlight/detail',
    params: (input) => ({ id: String(input.highlight_id).replace(/^highlight:/, '') }),
    response: () => z.extend(highlight(), { items: feed() }),
    translate: (body) => ({ ...igHighlight(body), items: (body.items ?? []).map((item) => feedPost(item, true)) }),
  }),
  instagram_post: mapping({
    path: '/v1/instagram/post',
    params: (input) => ({ url: given(input.url) }),
    response: () => z.object({ data: z.object({ xdt_shortcode_media: shortcodeMedia() }) }),
    translate: ({ data: { xdt_shortcode_media: m } }) => {
      const children = (m.edge_sidecar_to_children?.edges ?? []).map((edge) => edge.node);
      const music = m.clips_music_attribution_info;
      return post({
        network: 'instagram',
        id: m.id,
        url: `https://www.instagram.com/${m.product_type === 'clips' ? 'reel' : 'p'}/${m.shortcode}/`,
        type: children.length > 0 ? 'carousel' : m.product_type === 'clips' ? 'reel' : m.is_video ? 'video' : 'image',
        author: igUser(m.owner),
        text: m.edge_media_to_caption?.edges?.[0]?.node?.text,
        created_at: m.taken_at_timestamp,
        media: children.length > 0 ? children.map(postMedia) : [postMedia(m)],
        metrics: {
          views: int(m.video_play_count ?? m.video_view_count),
          likes: int(m.edge_media_preview_like?.count),
          comments: int(m.edge_media_to_parent_comment?.count),
        },
        music: music ? { id: str(music.audio_id), title: str(music.song_name), artist: str(music.artist_name), url: null } : null,
      });
    },
  }),
  instagram_post_comments: mapping({
    path: '/v2/instagram/post/comments',
    params: (input) => ({ url: given(input.url), cursor: given(input.cursor) }),
    response: () =>
      z.object({
        comments: list(
          z.object({ id: id(), text: text(), created_at: time(), comment_like_count: count(), child_comment_count: count(), user: user() }),
        ),
        cursor: id(),
      }),
    translate: (body) =>
      page(
        (body.comments ?? []).map((c) =>
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
  }),
} satisfies Mappings;
