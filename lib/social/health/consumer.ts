/**
 * The table stream's health consumer: counts each run's provider attempts (attempts.ts), carried
 * by the writes the run makes anyway (a stored result; a refund's billing event), into the
 * (operation, provider) health items, and moves their breakers: open when a window's failures
 * trip it, closed when a probe succeeds after its open period, open again when a probe fails.
 * Off every run's path: a run never waits for it, and it sends nothing a run sends.
 *
 * At least once, like every consumer: a record that comes again is counted again (a health
 * figure, not money: a redelivered batch skews a rate for its hour at most).
 */
import { addHealth, type HealthAdds, moveBreaker } from '../../db/social-health.ts';
import type { ChangeRecord, StreamConsumer } from '../../stream/dispatch.ts';
import type { FilterPattern } from '../../stream/filter.ts';
import { type Attempt, decodeAttempts } from './attempts.ts';
import { healthSettings } from './settings.ts';
import { bandOf, breakerOf, bucketOf, emptyBucket, tripping, windowOf } from './state.ts';

const ANY = [{ prefix: '' }] as const;

export const HEALTH_FILTERS: readonly FilterPattern[] = [
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entity: { S: ['result_cache'] }, attempts: { S: ANY } } } },
  {
    eventName: ['INSERT'],
    dynamodb: {
      NewImage: { entity: { S: ['billing_event'] }, type: { S: ['social_operation.refunded'] }, metadata: { M: { attempts: { S: ANY } } } },
    },
  },
];

interface Observed {
  operation: string;
  atMs: number;
  attempts: Attempt[];
}

/** What a record says: the operation, when, and its attempts; undefined for anything else. */
export function observedIn(record: ChangeRecord): Observed | undefined {
  const image = record.newImage;
  if (!image) return undefined;
  if (image.entity === 'result_cache') {
    const operation = String(image.PK ?? '').split('#')[2];
    const atMs = Number(image.stored_at_ms);
    return operation && Number.isFinite(atMs) ? { operation, atMs, attempts: decodeAttempts(image.attempts) } : undefined;
  }
  const metadata = image.metadata as Record<string, unknown> | undefined;
  const operation = typeof metadata?.operation === 'string' ? metadata.operation : undefined;
  const atMs = Date.parse(String(image.created_at));
  return operation && Number.isFinite(atMs) ? { operation, atMs, attempts: decodeAttempts(metadata?.attempts) } : undefined;
}

const HOUR_MS = 3_600_000;

/** Counts a batch: one write per (operation, provider) it names, then its breaker's move if any. */
export async function countAttempts(observed: readonly Observed[], nowMs = Date.now()): Promise<void> {
  const settings = healthSettings();
  const grouped = new Map<string, HealthAdds & { operation: string; provider: string; okAfter: number[]; failAfter: number[] }>();
  for (const { operation, atMs, attempts } of observed) {
    for (const attempt of attempts) {
      const key = `${operation}#${attempt.provider}`;
      let group = grouped.get(key);
      if (!group) {
        group = {
          operation,
          provider: attempt.provider,
          buckets: new Map(),
          lastOkMs: undefined,
          lastFailMs: undefined,
          okAfter: [],
          failAfter: [],
        };
        grouped.set(key, group);
      }
      const bucket = bucketOf(atMs, settings);
      const counts = group.buckets.get(bucket) ?? emptyBucket();
      group.buckets.set(bucket, counts);
      if (attempt.ok) {
        counts.ok += 1;
        counts.latency[bandOf(attempt.ms)] = (counts.latency[bandOf(attempt.ms)] ?? 0) + 1;
        group.lastOkMs = Math.max(group.lastOkMs ?? 0, atMs);
        group.okAfter.push(atMs);
      } else {
        counts.fail += 1;
        group.lastFailMs = Math.max(group.lastFailMs ?? 0, atMs);
        group.failAfter.push(atMs);
      }
    }
  }
  await Promise.all(
    [...grouped.values()].map(async (group) => {
      const health = await addHealth(group.operation, group.provider, group);
      if (!health) return;
      const breaker = breakerOf(health, nowMs, settings);
      const stale = [...health.buckets.keys()]
        .filter((bucket) => bucket < bucketOf(nowMs - HOUR_MS, settings))
        .flatMap((bucket) => [`ok_${bucket}`, `fail_${bucket}`, ...emptyBucket().latency.map((_, band) => `lat_${bucket}_${band}`)]);
      let to = health.openedAtMs;
      if (breaker.state === 'closed') {
        if (tripping(windowOf(health, nowMs, settings.windowSeconds, settings), settings)) to = nowMs;
      } else {
        // After its open period every run is a probe: one that answered closes it, one that failed opens it again.
        const probed = (times: number[]) => times.some((at) => at >= breaker.probeAtMs);
        if (probed(group.okAfter)) to = undefined;
        else if (probed(group.failAfter)) to = nowMs;
      }
      if (to !== health.openedAtMs || stale.length > 0) await moveBreaker(group.operation, group.provider, health.openedAtMs, to, stale);
    }),
  );
}

export const healthConsumer: StreamConsumer = {
  name: 'provider health',
  filters: HEALTH_FILTERS,
  async handle(records) {
    await countAttempts(records.map(observedIn).filter((found): found is Observed => found !== undefined));
    return undefined;
  },
};
