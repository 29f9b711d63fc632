/**
 * The catalog of social operations: one definition per operation (name, network, description,
 * credit cost, zod input and output schemas, each built on first use), and the descriptors the
 * listing returns, whose JSON Schemas (draft 2020-12) are generated from the zod schemas once
 * per operation, on first use.
 *
 * Only the two social functions import this module (it is large; see docs/social-operations.md).
 */
import * as z from 'zod';
import { crossNetwork } from './cross-network.ts';
import { facebook } from './facebook.ts';
import { instagram } from './instagram.ts';
import { linkedin } from './linkedin.ts';
import { reddit } from './reddit.ts';
import type { Network, OperationDefinition } from './shapes.ts';
import { tiktok } from './tiktok.ts';
import { x } from './x.ts';
import { youtube } from './youtube.ts';

export type { OperationDefinition } from './shapes.ts';

/** The 52 operation names of the spec, in the spec's order. */
export const OPERATION_NAMES = [
  'instagram_profile',
  'instagram_user_posts',
  'instagram_user_reels',
  'instagram_user_stories',
  'instagram_user_highlights',
  'instagram_highlight_stories',
  'instagram_post',
  'instagram_post_comments',
  'tiktok_profile',
  'tiktok_user_posts',
  'tiktok_post',
  'tiktok_post_comments',
  'tiktok_search',
  'tiktok_hashtag_posts',
  'tiktok_music_posts',
  'tiktok_trending',
  'tiktok_trend_scan',
  'linkedin_profile',
  'linkedin_company',
  'linkedin_user_posts',
  'linkedin_company_posts',
  'linkedin_post',
  'linkedin_search_people',
  'linkedin_search_posts',
  'youtube_channel',
  'youtube_channel_videos',
  'youtube_channel_playlists',
  'youtube_channel_shorts',
  'youtube_video',
  'youtube_search',
  'youtube_trending',
  'facebook_page',
  'facebook_page_posts',
  'facebook_page_reels',
  'facebook_post',
  'facebook_post_comments',
  'facebook_group',
  'facebook_group_posts',
  'facebook_search',
  'reddit_search',
  'reddit_subreddit_posts',
  'reddit_post',
  'reddit_post_comments',
  'x_search',
  'x_profile',
  'x_user_posts',
  'x_post',
  'x_post_comments',
  'x_user_connections',
  'x_tweet_engagers',
  'x_trends',
  'resolve_mention',
] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];

const definitions = [...instagram, ...tiktok, ...linkedin, ...youtube, ...facebook, ...reddit, ...x, ...crossNetwork];

export const CATALOG: ReadonlyMap<string, OperationDefinition> = new Map(definitions.map((definition) => [definition.name, definition]));

// The name list and the definitions must agree exactly: a typo in either is a load-time error.
if (CATALOG.size !== definitions.length || OPERATION_NAMES.some((name) => !CATALOG.has(name)) || CATALOG.size !== OPERATION_NAMES.length) {
  throw new Error('social catalog: definitions do not match OPERATION_NAMES');
}

export interface OperationDescriptor {
  name: string;
  network?: Network;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
}

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Record<string, unknown>;

const descriptorCache = new Map<string, OperationDescriptor>();

/**
 * One operation's descriptor, computed on first use and kept for the life of the instance.
 * Lazily, and per operation, because only the listing needs them and only for the operations
 * it lists: the run function would otherwise build every operation's zod schemas and generate
 * 104 JSON Schemas on every cold start for nothing. Input schemas describe what a caller may
 * send (fields with defaults are optional); output schemas describe what comes back.
 */
export function descriptor(definition: OperationDefinition): OperationDescriptor {
  let found = descriptorCache.get(definition.name);
  if (!found) {
    found = {
      name: definition.name,
      ...(definition.network ? { network: definition.network } : {}),
      description: `${definition.description} Costs ${definition.cost} credit${definition.cost === 1 ? '' : 's'}.`,
      input_schema: jsonSchema(definition.input, 'input'),
      output_schema: jsonSchema(definition.output, 'output'),
    };
    descriptorCache.set(definition.name, found);
  }
  return found;
}

/** Every operation's descriptor, in catalog order (the same objects `descriptor` returns). */
export const descriptors = (): ReadonlyMap<string, OperationDescriptor> =>
  new Map(definitions.map((definition) => [definition.name, descriptor(definition)]));

export const operationsOfNetworks = (networks: readonly string[]): OperationDefinition[] =>
  definitions.filter((definition) => definition.network === undefined || networks.includes(definition.network));
