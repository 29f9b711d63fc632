/**
 * Builders of our normalized output (profile, post, comment, media, pages), the same for every
 * network. Output conventions: docs/social-operations.md ("Outputs").
 */
import { bool, int, iso, str } from './read.ts';

const tagsIn = (text: string | null, mark: '#' | '@') =>
  [...(text ?? '').matchAll(mark === '#' ? /#([\p{L}\p{N}_]+)/gu : /@([A-Za-z0-9._]+)/g)].map((match) => match[1] ?? '');

/** A page of a list: the vendor's cursor out; `hasMore`, when the vendor gives one, decides. */
export const page = (items: unknown[], next: unknown, hasMore?: unknown) => {
  const nextCursor = str(next);
  const more = hasMore === undefined || hasMore === null ? nextCursor !== null && items.length > 0 : bool(hasMore) === true;
  return { items, next_cursor: more ? nextCursor : null, has_more: more && nextCursor !== null };
};

type Metrics = Record<'views' | 'likes' | 'comments' | 'shares' | 'saves' | 'quotes', number | null>;
const emptyMetrics: Metrics = { views: null, likes: null, comments: null, shares: null, saves: null, quotes: null };

export type Author = ReturnType<typeof author>;
export const author = (fields: Partial<Record<'id' | 'username' | 'display_name' | 'avatar_url' | 'url' | 'verified', unknown>>) => ({
  id: str(fields.id),
  username: str(fields.username),
  display_name: str(fields.display_name),
  avatar_url: str(fields.avatar_url),
  url: str(fields.url),
  verified: bool(fields.verified),
});
const noAuthor = author({});

export type Media = ReturnType<typeof media>;
export const media = (
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

export interface Music {
  id: string | null;
  title: string | null;
  artist: string | null;
  url: string | null;
}

interface PostFields {
  network: string;
  id: unknown;
  url?: unknown;
  type: string;
  author?: Author;
  title?: unknown;
  text?: unknown;
  created_at?: unknown;
  media?: Media[];
  metrics?: Partial<Metrics>;
  music?: Music | null;
}
export const post = (fields: PostFields) => {
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

type ProfileField =
  | 'id'
  | 'username'
  | 'display_name'
  | 'bio'
  | 'avatar_url'
  | 'url'
  | 'external_url'
  | 'verified'
  | 'private'
  | 'category'
  | 'location'
  | 'created_at'
  | 'followers'
  | 'following'
  | 'posts_count'
  | 'likes_count';
export const profile = (network: string, fields: Partial<Record<ProfileField, unknown>>) => ({
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

type CommentField = 'id' | 'post_id' | 'parent_id' | 'text' | 'created_at' | 'likes' | 'reply_count';
export const comment = (network: string, fields: Partial<Record<CommentField, unknown>> & { author?: Author }) => ({
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
