/**
 * An instance's view of the breakers, for the run path: what the deployment's health items said
 * when this instance last read them (at most every HEALTH_REFRESH_SECONDS, one Query, started by
 * a run but never awaited by it and outside its request: no round trip on any run's path), joined
 * with what this instance's own runs saw since (so that it stops calling a provider that fails
 * under it at once, before the stream has counted anything). A provider skipped by either is
 * skipped; once its open period ends, runs probe it again.
 */
import { AsyncResource } from 'node:async_hooks';
import { readAllHealth } from '../../db/social-health.ts';
import { logError } from '../../log.ts';
import type { Attempt } from './attempts.ts';
import { healthSettings } from './settings.ts';
import { type BreakerState, breakerOf, bucketOf, emptyBucket, type ProviderHealth, tripping, windowOf } from './state.ts';

let shared = new Map<string, ProviderHealth>();
let readAtMs = Number.NEGATIVE_INFINITY;
let reading: Promise<void> | undefined;
const local = new Map<string, ProviderHealth>();

/**
 * Reads the deployment's health in the context this module was loaded in (no request's): the
 * read is no request's round trip, and a request's scope (its logger keys, its command count)
 * never sees it.
 */
const detached = AsyncResource.bind((run: () => Promise<void>) => {
  void run();
});

function refresh(nowMs: number): void {
  const { refreshSeconds } = healthSettings();
  if (reading || nowMs - readAtMs < refreshSeconds * 1000) return;
  readAtMs = nowMs;
  detached(async () => {
    reading = readAllHealth().then(
      (found) => {
        shared = found;
      },
      (error: unknown) => logError("the providers' health could not be read; breakers keep the last view", error),
    );
    await reading;
    reading = undefined;
  });
}

/** For tests and the status page's own read: replace the shared view now, awaited. */
export async function refreshNow(nowMs = Date.now()): Promise<Map<string, ProviderHealth>> {
  shared = await readAllHealth();
  readAtMs = nowMs;
  return shared;
}

/** Forget every view (tests). */
export function forgetHealth(): void {
  shared = new Map();
  readAtMs = Number.NEGATIVE_INFINITY;
  local.clear();
}

/** What this instance's own runs saw: counted at once into its local view, and its local breaker moved. */
export function noteAttempts(operation: string, attempts: readonly Attempt[], nowMs: number): void {
  const settings = healthSettings();
  for (const attempt of attempts) {
    const key = `${operation}#${attempt.provider}`;
    let health = local.get(key);
    if (!health) {
      health = {
        operation,
        provider: attempt.provider,
        buckets: new Map(),
        lastOkMs: undefined,
        lastFailMs: undefined,
        openedAtMs: undefined,
      };
      local.set(key, health);
    }
    const bucket = bucketOf(nowMs, settings);
    const counts = health.buckets.get(bucket) ?? emptyBucket();
    health.buckets.set(bucket, counts);
    for (const old of health.buckets.keys())
      if (old < bucketOf(nowMs - settings.windowSeconds * 1000, settings)) health.buckets.delete(old);
    const breaker = breakerOf(health, nowMs, settings);
    if (attempt.ok) {
      counts.ok += 1;
      health.lastOkMs = nowMs;
      if (breaker.state === 'half_open') health.openedAtMs = undefined;
    } else {
      counts.fail += 1;
      health.lastFailMs = nowMs;
      if (breaker.state === 'half_open') health.openedAtMs = nowMs;
      else if (breaker.state === 'closed' && tripping(windowOf(health, nowMs, settings.windowSeconds, settings), settings))
        health.openedAtMs = nowMs;
    }
  }
}

export interface BreakerView {
  state: BreakerState;
  /** When runs may probe it again (for Retry-After). */
  probeAtMs: number;
}

/** A provider's breaker on an operation as this instance sees it: the stricter of the deployment's and its own. */
export function breakerFor(operation: string, provider: string, nowMs: number): BreakerView {
  refresh(nowMs);
  const settings = healthSettings();
  const key = `${operation}#${provider}`;
  const views = [breakerOf(shared.get(key), nowMs, settings), breakerOf(local.get(key), nowMs, settings)];
  const open = views.filter((view) => view.state === 'open');
  if (open.length > 0) return { state: 'open', probeAtMs: Math.max(...open.map((view) => view.probeAtMs)) };
  if (views.some((view) => view.state === 'half_open')) return { state: 'half_open', probeAtMs: nowMs };
  return { state: 'closed', probeAtMs: nowMs };
}
