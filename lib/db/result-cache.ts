/**
 * Cached run results (docs/social-operations.md, "Cached results"): every result a provider
 * delivers is stored for 24 hours, gzip-compressed, under its organization, operation and input;
 * a run that asks for it (`Cache-Control: max-age`) is answered from it. Results are never shared
 * between organizations: the organization is part of the key.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_CACHED_AGE_SECONDS } from '../model.ts';
import { db, tableName } from './client.ts';
import type { TableKey } from './table.ts';

/** How long a result is kept (TTL; also checked on read, since TTL deletion lags). */
const RESULT_TTL_SECONDS = MAX_CACHED_AGE_SECONDS;
/** A compressed result above this is not stored: a DynamoDB item stops at 400 KB. */
export const MAX_STORED_RESULT_BYTES = 350 * 1024;

export interface CachedResult {
  /** The output as stored (unchecked: the domain checks it against the operation's schema). */
  output: unknown;
  storedAtMs: number;
  /** The provider that produced it (results stored before failover have none). */
  provider: string | undefined;
}

/** A stored result, or null when there is none, it expired, or it cannot be decoded (a miss). */
export async function getCachedResult(key: TableKey, nowMs: number): Promise<CachedResult | null> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: key }));
  if (!item || Number(item.expires_at) <= Math.floor(nowMs / 1000)) return null;
  try {
    const output: unknown = JSON.parse(gunzipSync(item.output_gzip as Uint8Array).toString('utf8'));
    const storedAtMs = Number(item.stored_at_ms);
    const provider = typeof item.provider === 'string' ? item.provider : undefined;
    return Number.isFinite(storedAtMs) ? { output, storedAtMs, provider } : null;
  } catch {
    return null;
  }
}

/**
 * Stores a result unless it is too large; says which. One PutItem, replacing any older result.
 * `origin`: the provider that produced it and what each provider tried did (lib/social/health/attempts.ts).
 */
export async function putCachedResult(
  key: TableKey,
  output: unknown,
  nowMs: number,
  origin: { provider?: string; attempts?: string } = {},
): Promise<'stored' | 'too-large'> {
  const gzipped = gzipSync(JSON.stringify(output));
  if (gzipped.byteLength > MAX_STORED_RESULT_BYTES) return 'too-large';
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...key,
        entity: 'result_cache',
        output_gzip: gzipped,
        stored_at_ms: nowMs,
        expires_at: Math.floor(nowMs / 1000) + RESULT_TTL_SECONDS,
        ...(origin.provider ? { provider: origin.provider } : {}),
        ...(origin.attempts ? { attempts: origin.attempts } : {}),
      },
    }),
  );
  return 'stored';
}
