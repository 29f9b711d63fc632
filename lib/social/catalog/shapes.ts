/**
 * Shared shapes of the social catalog: the input fields users pass (handles, URLs, cursors,
 * counts, regions) and the normalized output entities every network maps into (profile, post,
 * comment, …). One zod schema per fact; the descriptors' JSON Schemas are generated from these.
 *
 * Output conventions: ids are strings (platform ids overflow JS numbers), times are ISO 8601
 * UTC, counts are non-negative integers or null when the network does not expose them, and
 * pages are `{ items, next_cursor, has_more }`.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { NETWORKS, type Network } from '../../model.ts';

export type { Network };

// Classic zod registered English (process-wide) on its first schema; zod/mini registers no
// locale, and every default message would be "Invalid input". The 400 bodies reword zod's
// defaults anyway (lib/issue-messages.ts), but the output issues logged when a provider breaks
// an output schema (provider-call.ts) keep zod's own, which should say what was wrong. Only
// English: `z.locales` would bundle every locale.
z.config(en());

/**
 * A value built on first call and kept. Every shared schema here is one of these, so that a
 * function builds only the schemas of the operations it uses (and each of them once).
 */
export const lazy = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

// ---------------------------------------------------------------- inputs

/**
 * A string input's length bound, for validation and the JSON Schemas alike (`maxLength`: agent
 * hosts, gateways and scanners read it, a pattern they do not). Checked first and aborting: a
 * longer value gets this one issue, worded as the pattern's, and no pattern runs over it. Each
 * bound admits every value its pattern does (in UTF-16 units, which zod counts).
 */
export const atMost = (max: number, error: string) => z.maxLength(max, { error, abort: true });

/** A handle as users type it: with or without the leading "@". */
export const handle = (network: string) =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(100),
      z.regex(/^@?[A-Za-z0-9._-]{1,100}$/, `must be a handle on ${network} (letters, digits, ".", "_" or "-", with or without "@")`),
      z.describe(`${network} handle, with or without the leading "@"`),
    );

/** A public URL on one of `hosts` (subdomains such as www. and m. allowed). */
export const urlOn = (hosts: string[], what: string) => {
  const alternatives = hosts.map((host) => host.replaceAll('.', '\\.')).join('|');
  return z
    .string()
    .check(
      z.maxLength(2048),
      z.regex(new RegExp(`^https?://([a-z0-9-]+\\.)*(${alternatives})(/|$)`, 'i'), `must be ${what}`),
      z.describe(what),
    );
};

export const cursor = lazy(() =>
  z.string().check(z.minLength(1), z.maxLength(4096), z.describe('next_cursor of the previous page; omit for the first page')),
);

export const count = (max: number, fallback: number) =>
  z
    ._default(z.number().check(z.int(), z.minimum(1), z.maximum(max)), fallback)
    .check(z.describe(`how many items to return, 1 to ${max} (default ${fallback})`));

const REGION_RULE = 'must be an ISO 3166-1 alpha-2 country code in capitals, e.g. US';

export const region = lazy(() =>
  z.string().check(atMost(2, REGION_RULE), z.regex(/^[A-Z]{2}$/, REGION_RULE), z.describe('ISO 3166-1 alpha-2 country code, e.g. US')),
);

export const query = lazy(() => z.string().check(z.trim(), z.minLength(1), z.maxLength(500), z.describe('search terms')));

// ---------------------------------------------------------------- outputs

const id = lazy(() => z.string().check(z.minLength(1)));
const isoTime = lazy(() => z.iso.datetime());
const countValue = lazy(() => z.number().check(z.int(), z.minimum(0)));
const nullableCount = lazy(() => z.nullable(countValue()));

export const networkEnum = lazy(() => z.enum(NETWORKS));

/** A reference to an account, as embedded in posts and comments. */
export const author = lazy(() =>
  z.object({
    id: z.nullable(id()),
    username: z.nullable(z.string()),
    display_name: z.nullable(z.string()),
    avatar_url: z.nullable(z.string()),
    url: z.nullable(z.string()),
    verified: z.nullable(z.boolean()),
  }),
);

/** A full account: person, creator, brand account, channel, page or company page. */
export const profile = lazy(() =>
  z.object({
    network: networkEnum(),
    id: id(),
    username: z.nullable(z.string()),
    display_name: z.nullable(z.string()),
    bio: z.nullable(z.string()),
    avatar_url: z.nullable(z.string()),
    url: z.string().check(z.minLength(1)),
    external_url: z.nullable(z.string()),
    verified: z.nullable(z.boolean()),
    private: z.nullable(z.boolean()),
    category: z.nullable(z.string()),
    location: z.nullable(z.string()),
    created_at: z.nullable(isoTime()),
    followers: nullableCount(),
    following: nullableCount(),
    posts_count: nullableCount(),
    likes_count: nullableCount(),
  }),
);

export const media = lazy(() =>
  z.object({
    type: z.enum(['image', 'video', 'audio']),
    url: z.nullable(z.string()),
    thumbnail_url: z.nullable(z.string()),
    width: nullableCount(),
    height: nullableCount(),
    duration_seconds: z.nullable(z.number().check(z.minimum(0))),
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
    id: z.nullable(id()),
    title: z.nullable(z.string()),
    artist: z.nullable(z.string()),
    url: z.nullable(z.string()),
  }),
);

export const postType = lazy(() => z.enum(['video', 'image', 'carousel', 'text', 'link', 'short', 'reel', 'story', 'article']));

export const post = lazy(() =>
  z.object({
    network: networkEnum(),
    id: id(),
    url: z.nullable(z.string()),
    type: postType(),
    author: author(),
    title: z.nullable(z.string()),
    text: z.nullable(z.string()),
    created_at: z.nullable(isoTime()),
    media: z.array(media()),
    metrics: metrics(),
    hashtags: z.array(z.string()),
    mentions: z.array(z.string()),
    music: z.nullable(music()),
  }),
);

export const comment = lazy(() =>
  z.object({
    network: networkEnum(),
    id: id(),
    post_id: z.nullable(id()),
    parent_id: z.nullable(id()),
    author: author(),
    text: z.string(),
    created_at: z.nullable(isoTime()),
    likes: nullableCount(),
    reply_count: nullableCount(),
  }),
);

export const story = lazy(() => z.extend(post(), { expires_at: z.nullable(isoTime()) }));

export const highlight = lazy(() =>
  z.object({
    network: z.literal('instagram'),
    id: id(),
    title: z.string(),
    cover_url: z.nullable(z.string()),
    media_count: nullableCount(),
  }),
);

export const playlist = lazy(() =>
  z.object({
    network: z.literal('youtube'),
    id: id(),
    title: z.string(),
    url: z.string(),
    thumbnail_url: z.nullable(z.string()),
    video_count: nullableCount(),
  }),
);

export const company = lazy(() =>
  z.object({
    network: z.literal('linkedin'),
    id: id(),
    name: z.string(),
    url: z.string(),
    tagline: z.nullable(z.string()),
    description: z.nullable(z.string()),
    website: z.nullable(z.string()),
    industry: z.nullable(z.string()),
    size: z.nullable(z.string()),
    employee_count: nullableCount(),
    followers: nullableCount(),
    headquarters: z.nullable(z.string()),
    founded_year: z.nullable(z.number().check(z.int())),
    logo_url: z.nullable(z.string()),
    specialties: z.array(z.string()),
  }),
);

export const group = lazy(() =>
  z.object({
    network: z.literal('facebook'),
    id: id(),
    name: z.string(),
    url: z.string(),
    description: z.nullable(z.string()),
    privacy: z.nullable(z.enum(['public', 'private'])),
    member_count: nullableCount(),
    created_at: z.nullable(isoTime()),
    posts_last_month: nullableCount(),
  }),
);

export const trend = lazy(() =>
  z.object({
    network: networkEnum(),
    kind: z.enum(['hashtag', 'sound', 'video', 'creator', 'topic']),
    name: z.string(),
    url: z.nullable(z.string()),
    rank: z.number().check(z.int(), z.minimum(1)),
    rank_change: z.nullable(z.number().check(z.int())),
    is_new: z.nullable(z.boolean()),
    post_count: nullableCount(),
    view_count: nullableCount(),
  }),
);

/** The paging convention of every list: `cursor` in; `next_cursor` and `has_more` out. */
export const page = <T extends z.ZodMiniType>(item: T) =>
  z.object({
    items: z.array(item),
    next_cursor: z.nullable(z.string()),
    has_more: z.boolean(),
  });

/** A list the network returns in one piece (no paging). */
export const list = <T extends z.ZodMiniType>(item: T) => z.object({ items: z.array(item) });

// ---------------------------------------------------------------- operation definitions

export interface OperationDefinition {
  readonly name: string;
  /** Undefined only for cross-network operations (resolve_mention). */
  readonly network: Network | undefined;
  readonly description: string;
  /** Credits charged per successful run (refunded when the upstream fails). */
  readonly cost: number;
  /** Credits charged for a run answered from the organization's cached result (`Cache-Control: max-age`). */
  readonly cachedCost: number;
  /** Built on first read and kept (see `operation`). */
  readonly input: z.ZodMiniObject;
  /** Built on first read and kept (see `operation`). */
  readonly output: z.ZodMiniType;
}

/** What a network file writes per operation: the schemas as functions that build them. */
export interface OperationSpec extends Omit<OperationDefinition, 'input' | 'output' | 'cachedCost'> {
  /** Default 0: a result the organization already paid for is free to read again. */
  cachedCost?: number;
  input: () => z.ZodMiniObject;
  output: () => z.ZodMiniType;
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
    cachedCost: spec.cachedCost ?? 0,
    get input() {
      return input();
    },
    get output() {
      return output();
    },
  };
}
