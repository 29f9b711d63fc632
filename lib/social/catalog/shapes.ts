/**
 * Shared shapes of the social catalog: the input fields users pass (handles, URLs, cursors,
 * counts, regions) and the normalized output entities every network maps into (profile, post,
 * comment, …). One zod schema per fact; the descriptors' JSON Schemas are generated from these.
 *
 * Output conventions: ids are strings (platform ids overflow JS numbers), times are ISO 8601
 * UTC, counts are non-negative integers or null when the network does not expose them, and
 * pages are `{ items, next_cursor, has_more }`.
 */
import * as z from 'zod';
import type { Network } from '../../model.ts';

export type { Network };

/**
 * A value built on first call and kept. Every shared schema here is one of these, so that a
 * function builds only the schemas of the operations it uses (and each of them once).
 */
export const lazy = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

// ---------------------------------------------------------------- inputs

/** A handle as users type it: with or without the leading "@". */
export const handle = (network: string) =>
  z
    .string()
    .min(1)
    .max(100)
    .regex(/^@?[A-Za-z0-9._-]{1,100}$/, `must be a handle on ${network} (letters, digits, ".", "_" or "-", with or without "@")`)
    .describe(`${network} handle, with or without the leading "@"`);

/** A public URL on one of `hosts` (subdomains such as www. and m. allowed). */
export const urlOn = (hosts: string[], what: string) => {
  const alternatives = hosts.map((host) => host.replaceAll('.', '\\.')).join('|');
  return z
    .string()
    .max(2048)
    .regex(new RegExp(`^https?://([a-z0-9-]+\\.)*(${alternatives})(/|$)`, 'i'), `must be ${what}`)
    .describe(what);
};

export const cursor = lazy(() => z.string().min(1).max(4096).describe('next_cursor of the previous page; omit for the first page'));

export const count = (max: number, fallback: number) =>
  z.number().int().min(1).max(max).default(fallback).describe(`how many items to return, 1 to ${max} (default ${fallback})`);

export const region = lazy(() =>
  z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code in capitals, e.g. US')
    .describe('ISO 3166-1 alpha-2 country code, e.g. US'),
);

export const query = lazy(() => z.string().trim().min(1).max(500).describe('search terms'));

// ---------------------------------------------------------------- outputs

const id = lazy(() => z.string().min(1));
const isoTime = lazy(() => z.iso.datetime());
const countValue = lazy(() => z.number().int().min(0));
const nullableCount = lazy(() => countValue().nullable());

export const networkEnum = lazy(() => z.enum(['instagram', 'x', 'tiktok', 'youtube', 'facebook', 'linkedin', 'reddit']));

/** A reference to an account, as embedded in posts and comments. */
export const author = lazy(() =>
  z.object({
    id: id().nullable(),
    username: z.string().nullable(),
    display_name: z.string().nullable(),
    avatar_url: z.string().nullable(),
    url: z.string().nullable(),
    verified: z.boolean().nullable(),
  }),
);

/** A full account: person, creator, brand account, channel, page or company page. */
export const profile = lazy(() =>
  z.object({
    network: networkEnum(),
    id: id(),
    username: z.string().nullable(),
    display_name: z.string().nullable(),
    bio: z.string().nullable(),
    avatar_url: z.string().nullable(),
    url: z.string().min(1),
    external_url: z.string().nullable(),
    verified: z.boolean().nullable(),
    private: z.boolean().nullable(),
    category: z.string().nullable(),
    location: z.string().nullable(),
    created_at: isoTime().nullable(),
    followers: nullableCount(),
    following: nullableCount(),
    posts_count: nullableCount(),
    likes_count: nullableCount(),
  }),
);

export const media = lazy(() =>
  z.object({
    type: z.enum(['image', 'video', 'audio']),
    url: z.string().nullable(),
    thumbnail_url: z.string().nullable(),
    width: nullableCount(),
    height: nullableCount(),
    duration_seconds: z.number().min(0).nullable(),
  }),
);

export const metrics = lazy(() =>
  z.object({
    views: nullableCount(),
    likes: nullableCount(),
    comments: nullableCount(),
    shares: nullableCount(),
    saves: nullableCount(),
    quotes: nullableCount(),
  }),
);

export const music = lazy(() =>
  z.object({
    id: id().nullable(),
    title: z.string().nullable(),
    artist: z.string().nullable(),
    url: z.string().nullable(),
  }),
);

export const postType = lazy(() => z.enum(['video', 'image', 'carousel', 'text', 'link', 'short', 'reel', 'story', 'article']));

export const post = lazy(() =>
  z.object({
    network: networkEnum(),
    id: id(),
    url: z.string().nullable(),
    type: postType(),
    author: author(),
    title: z.string().nullable(),
    text: z.string().nullable(),
    created_at: isoTime().nullable(),
    media: z.array(media()),
    metrics: metrics(),
    hashtags: z.array(z.string()),
    mentions: z.array(z.string()),
    music: music().nullable(),
  }),
);

export const comment = lazy(() =>
  z.object({
    network: networkEnum(),
    id: id(),
    post_id: id().nullable(),
    parent_id: id().nullable(),
    author: author(),
    text: z.string(),
    created_at: isoTime().nullable(),
    likes: nullableCount(),
    reply_count: nullableCount(),
  }),
);

export const story = lazy(() => post().extend({ expires_at: isoTime().nullable() }));

export const highlight = lazy(() =>
  z.object({
    network: z.literal('instagram'),
    id: id(),
    title: z.string(),
    cover_url: z.string().nullable(),
    media_count: nullableCount(),
  }),
);

export const playlist = lazy(() =>
  z.object({
    network: z.literal('youtube'),
    id: id(),
    title: z.string(),
    url: z.string(),
    thumbnail_url: z.string().nullable(),
    video_count: nullableCount(),
  }),
);

export const company = lazy(() =>
  z.object({
    network: z.literal('linkedin'),
    id: id(),
    name: z.string(),
    url: z.string(),
    tagline: z.string().nullable(),
    description: z.string().nullable(),
    website: z.string().nullable(),
    industry: z.string().nullable(),
    size: z.string().nullable(),
    employee_count: nullableCount(),
    followers: nullableCount(),
    headquarters: z.string().nullable(),
    founded_year: z.number().int().nullable(),
    logo_url: z.string().nullable(),
    specialties: z.array(z.string()),
  }),
);

export const group = lazy(() =>
  z.object({
    network: z.literal('facebook'),
    id: id(),
    name: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    privacy: z.enum(['public', 'private']).nullable(),
    member_count: nullableCount(),
    created_at: isoTime().nullable(),
    posts_last_month: nullableCount(),
  }),
);

export const trend = lazy(() =>
  z.object({
    network: networkEnum(),
    kind: z.enum(['hashtag', 'sound', 'video', 'creator', 'topic']),
    name: z.string(),
    url: z.string().nullable(),
    rank: z.number().int().min(1),
    rank_change: z.number().int().nullable(),
    is_new: z.boolean().nullable(),
    post_count: nullableCount(),
    view_count: nullableCount(),
  }),
);

/** The paging convention of every list: `cursor` in; `next_cursor` and `has_more` out. */
export const page = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
  });

/** A list the network returns in one piece (no paging). */
export const list = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

// ---------------------------------------------------------------- operation definitions

export interface OperationDefinition {
  readonly name: string;
  /** Undefined only for cross-network operations (resolve_mention). */
  readonly network: Network | undefined;
  readonly description: string;
  /** Credits charged per successful run (refunded when the upstream fails). */
  readonly cost: number;
  /** Built on first read and kept (see `operation`). */
  readonly input: z.ZodObject;
  /** Built on first read and kept (see `operation`). */
  readonly output: z.ZodType;
}

/** What a network file writes per operation: the schemas as functions that build them. */
export interface OperationSpec extends Omit<OperationDefinition, 'input' | 'output'> {
  input: () => z.ZodObject;
  output: () => z.ZodType;
}

/**
 * Declares an operation. Its schemas are built on first read of `input` or `output`, then kept:
 * a function runs one operation, so building all 52 operations' schemas at module load would
 * cost every cold start (about 14 ms) for schemas it never uses.
 */
export function operation(spec: OperationSpec): OperationDefinition {
  const input = lazy(spec.input);
  const output = lazy(spec.output);
  return {
    name: spec.name,
    network: spec.network,
    description: spec.description,
    cost: spec.cost,
    get input() {
      return input();
    },
    get output() {
      return output();
    },
  };
}
