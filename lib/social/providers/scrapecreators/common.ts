/**
 * What every network's ScrapeCreators mapping shares: the shape of a mapping, the vendor's leaf
 * values as zod/mini schemas, and the builders of our normalized output (profile, post,
 * comment, media, pages). Output conventions: docs/social-operations.md ("Outputs").
 */
import * as z from 'zod/mini';
import { logger } from '../../../log.ts';
import type { OperationName } from '../../catalog/names.ts';
import { readBody } from './read-body.ts';

/** The operation's input, already validated by its catalog schema (defaults applied). */
export type Input = Readonly<Record<string, unknown>>;
/** The query string of the vendor call; undefined and '' are left out. */
export type Params = Record<string, string | number | undefined>;

/** One operation served by ScrapeCreators: its endpoint, its query, the reading of its answer. */
export interface Mapping {
  readonly path: string;
  params(input: Input): Params;
  /** The vendor's JSON body in our output shape; throws if the body is not the recorded shape. */
  translate(body: unknown, input: Input): unknown;
}

/** What a vendor shape (a function building its schema) reads as. */
export type Vendor<Shape extends () => z.ZodMiniType> = z.output<ReturnType<Shape>>;

/** A network's mappings, by operation name. */
export type Mappings = Readonly<Partial<Record<OperationName, Mapping>>>;

interface MappingSpec<Response extends z.ZodMiniType> {
  path: string;
  params(input: Input): Params;
  /** What the vendor answers (social-operations.md): the fields the translation reads, no more. Built on first use. */
  response: () => Response;
  translate(body: z.output<Response>, input: Input): unknown;
}

/**
 * Declares a mapping. `translate` reads the body as `response` types it (read-body.ts): a vendor
 * shape change is logged or refused with the path that changed, instead of being met as a
 * property of undefined in the middle of a translation.
 */
export function mapping<Response extends z.ZodMiniType>(spec: MappingSpec<Response>): Mapping {
  let response: Response | undefined;
  return {
    path: spec.path,
    params: spec.params,
    translate(body, input) {
      response ??= spec.response();
      const { data, unreadable } = readBody(response, body);
      if (unreadable.length > 0) {
        logger.warn('ScrapeCreators answered values of an unexpected type: read as absent', { vendor_path: spec.path, unreadable });
      }
      return spec.translate(data, input);
    },
  };
}

// ------------------------------------------------------------------ the vendor's leaf values

// Every field is optional and nullable: the vendor leaves out what a platform does not show, and
// the translation turns anything absent into null. Ids, counts and times take both the numbers
// and the text the platforms send; anything else of another type is read as absent (read-body.ts).
// Each leaf is built on first use and then shared: even these few schemas cost a cold start about
// 2 ms of CPU when built at load (zod compiling its code for unions and nullables the first time).

/** A value built on first call and kept. */
const once = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

/** Ids and cursors: text, or numbers for those that fit a double ("7016…337" and 7016…000). */
export const id = once(() => z.nullish(z.union([z.string(), z.number()])));
/** Counts: numbers, or text where the platform sends text (X views "99000", "1,234"). */
export const count = id;
/** Times: unix seconds (number or digits), ISO 8601, or X's "Thu Sep 12 00:08:39 +0000 2024". */
export const time = id;
export const text = once(() => z.nullish(z.string()));
/** Flags: booleans, or 0/1 (TikTok's has_more, is_top). */
export const flag = once(() => z.nullish(z.union([z.boolean(), z.number()])));
/** A field whose type the record does not give: the value readers narrow it (a non-string URL is null). */
export const loose = once(() => z.unknown());
export const list = <T extends z.ZodMiniType>(item: T) => z.nullish(z.array(item));
export const object = <Shape extends z.core.$ZodShape>(shape: Shape) => z.nullish(z.object(shape));
/** `{ url_list: [...] }`, TikTok's way of giving a URL (the first is used). */
export const urlList = once(() => object({ url_list: list(z.string()) }));

// ------------------------------------------------------------------ value readers

export const str = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;

/** Non-negative integers from numbers or numeric strings ("1,234" too); anything else is null. */
export const int = (value: unknown): number | null => {
  const n = typeof value === 'string' ? Number(value.replaceAll(',', '')) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.floor(n) : null;
};

/** Unix seconds (number or digits), ISO 8601 with any offset, or X's "Thu Sep 12 00:08:39 +0000 2024" → ISO UTC. */
export const iso = (value: unknown): string | null => {
  if (value === null || value === undefined || value === '') return null;
  const ms =
    typeof value === 'number' || (typeof value === 'string' && /^[0-9]{9,11}$/.test(value))
      ? Number(value) * 1000
      : Date.parse(String(value));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
};

export const bool = (value: unknown): boolean | null =>
  typeof value === 'boolean' ? value : value === 1 || value === 0 ? value === 1 : null;

/** A text field of the input, or undefined when the caller left it out. */
export const given = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const bareHandle = (handle: unknown) => String(handle).replace(/^@/, '');

const tagsIn = (text: string | null, mark: '#' | '@') =>
  [...(text ?? '').matchAll(mark === '#' ? /#([\p{L}\p{N}_]+)/gu : /@([A-Za-z0-9._]+)/g)].map((match) => match[1]!);

// ------------------------------------------------------------------ output builders

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
