/**
 * Usage buckets: UTC hours and UTC days, named by their start (ISO 8601, milliseconds, `Z`), and
 * the network of an operation. Pure.
 */
import type { UsageGranularity } from '../db/keys.ts';
import { NETWORKS, type Network } from '../model.ts';

export type { UsageGranularity };

export const BUCKET_MS: Record<UsageGranularity, number> = { hour: 3_600_000, day: 86_400_000 };

/** The start of the bucket holding `atMs`. */
export const bucketStartMs = (atMs: number, granularity: UsageGranularity): number =>
  atMs - (((atMs % BUCKET_MS[granularity]) + BUCKET_MS[granularity]) % BUCKET_MS[granularity]);

export const bucketStart = (atMs: number, granularity: UsageGranularity): string =>
  new Date(bucketStartMs(atMs, granularity)).toISOString();

/**
 * An operation's network is the prefix of its name (`instagram_profile`: instagram); a
 * cross-network operation (`resolve_mention`) has none. test/usage/usage.unit.test.ts checks it
 * against the catalog, which this module does not import (the usage function would bundle it).
 */
export function networkOfOperation(operation: string): Network | null {
  const prefix = operation.slice(0, operation.indexOf('_'));
  return (NETWORKS as readonly string[]).includes(prefix) ? (prefix as Network) : null;
}
