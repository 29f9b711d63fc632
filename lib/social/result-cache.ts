/**
 * Cached results, the domain side (docs/social-operations.md, "Cached results"): whether a stored
 * result answers a run that asked for one at most `max-age` seconds old, and what the answer's
 * `Cache-Status` (RFC 9211) says. Storage is lib/db/result-cache.ts.
 */
import { type CachedResult, putCachedResult } from '../db/result-cache.ts';
import type { TableKey } from '../db/table.ts';
import { logError } from '../log.ts';
import type { OperationDefinition } from './catalog/index.ts';

/** The cache's name in `Cache-Status`. */
const CACHE_NAME = 'workspace';

/** A stored result that may answer the run. */
export interface CacheHit {
  output: unknown;
  ageSeconds: number;
  /** The provider that produced it (registry name), when stored with one. */
  provider?: string | undefined;
}

/** Why a run went to the provider (RFC 9211 `fwd`): not asked to use the cache, nothing usable stored, or stored but older than asked. */
export type Forward = 'bypass' | 'miss' | 'request';

/**
 * What the cache offers a run that accepts results up to `maxAgeSeconds` old (undefined: it did
 * not ask). A stored output that no longer passes the operation's output schema is a miss, never
 * served (and the fresh result replaces it). Pure.
 */
export function lookUp(
  stored: CachedResult | null,
  operation: OperationDefinition,
  maxAgeSeconds: number | undefined,
  nowMs: number,
): { hit: CacheHit } | { forward: Forward } {
  if (maxAgeSeconds === undefined) return { forward: 'bypass' };
  if (!stored) return { forward: 'miss' };
  const parsed = operation.output.safeParse(stored.output);
  if (!parsed.success) return { forward: 'miss' };
  // Compared in milliseconds, so that max-age=0 never accepts a stored result; Age is whole seconds (RFC 9111).
  const ageMs = Math.max(0, nowMs - stored.storedAtMs);
  return ageMs <= maxAgeSeconds * 1000
    ? { hit: { output: parsed.data, ageSeconds: Math.floor(ageMs / 1000), provider: stored.provider } }
    : { forward: 'request' };
}

/** What became of a fresh result: stored, too large to store, or not stored because the write failed. */
export type Stored = 'stored' | 'too-large' | 'failed';

/** Stores a fresh result for later runs; never throws (a result is delivered whether or not it is stored). */
export async function storeResult(
  key: TableKey,
  output: unknown,
  nowMs: number,
  origin: { provider?: string; attempts?: string } = {},
): Promise<Stored> {
  try {
    return await putCachedResult(key, output, nowMs, origin);
  } catch (error) {
    logError('a result could not be stored in the cache', error);
    return 'failed';
  }
}

/** The `Cache-Status` of an answer: a hit, or why it was forwarded and whether its result was stored. */
export function cacheStatus(outcome: { hit: true } | { forward: Forward; stored: Stored }): string {
  if ('hit' in outcome) return `${CACHE_NAME}; hit`;
  const stored = outcome.stored === 'stored' ? '; stored' : `; detail=${outcome.stored === 'too-large' ? 'too-large' : 'store-failed'}`;
  return `${CACHE_NAME}; fwd=${outcome.forward}${stored}`;
}
