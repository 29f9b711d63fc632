/**
 * Health and breakers, the pure part: from the counters of each (operation, provider) as stored
 * (lib/db/social-health.ts), whether its breaker is closed, open or letting probes through, and
 * the status page's words for it (Statuspage's vocabulary: docs/social-operations.md, "Status").
 */
import { type Bucket, emptyBucket, LATENCY_BANDS_MS, type ProviderHealth } from '../../db/social-health.ts';
import type { HealthSettings } from './settings.ts';

export { type Bucket, emptyBucket, LATENCY_BANDS_MS, type ProviderHealth };

export const bandOf = (ms: number): number => {
  const at = LATENCY_BANDS_MS.findIndex((bound) => ms <= bound);
  return at === -1 ? LATENCY_BANDS_MS.length : at;
};

export const bucketOf = (ms: number, settings: Pick<HealthSettings, 'bucketSeconds'>): number =>
  Math.floor(ms / 1000 / settings.bucketSeconds);

/** The counts of the buckets within `seconds` before `nowMs`. */
export function windowOf(health: ProviderHealth, nowMs: number, seconds: number, settings: HealthSettings): Bucket {
  const total = emptyBucket();
  const first = bucketOf(nowMs - seconds * 1000, settings);
  for (const [bucket, counts] of health.buckets) {
    if (bucket < first) continue;
    total.ok += counts.ok;
    total.fail += counts.fail;
    counts.latency.forEach((count, band) => {
      total.latency[band] = (total.latency[band] ?? 0) + count;
    });
  }
  return total;
}

/** Whether the window's failures trip the breaker: enough of them, and a large enough share. */
export function tripping(window: Bucket, settings: HealthSettings): boolean {
  const calls = window.ok + window.fail;
  return window.fail >= settings.minFailures && window.fail * 100 >= settings.failurePercent * calls;
}

export type BreakerState = 'closed' | 'open' | 'half_open';

/**
 * A breaker: open for `openSeconds` after it opened (its provider skipped), then half-open (runs
 * go to it again: each is a probe) until a probe succeeds (closed) or fails (open again).
 */
export function breakerOf(
  health: ProviderHealth | undefined,
  nowMs: number,
  settings: HealthSettings,
): { state: BreakerState; probeAtMs: number } {
  if (health?.openedAtMs === undefined) return { state: 'closed', probeAtMs: nowMs };
  const probeAtMs = health.openedAtMs + settings.openSeconds * 1000;
  return { state: nowMs < probeAtMs ? 'open' : 'half_open', probeAtMs };
}

/** Statuspage's component statuses, best first. */
export const STATUSES = ['operational', 'degraded_performance', 'partial_outage', 'major_outage'] as const;
export type Status = (typeof STATUSES)[number];
export type Indicator = 'none' | 'minor' | 'major' | 'critical';

const SEVERITY: readonly Status[] = ['operational', 'degraded_performance', 'partial_outage', 'major_outage'];
const worst = (statuses: readonly Status[]): Status =>
  statuses.reduce<Status>((a, b) => (SEVERITY.indexOf(b) > SEVERITY.indexOf(a) ? b : a), 'operational');

/** The median's band, as its upper bound in ms (the slowest band: twice the last bound); null without calls. */
export function p50Of(bucket: Bucket): number | null {
  const calls = bucket.latency.reduce((sum, count) => sum + count, 0);
  if (calls === 0) return null;
  let seen = 0;
  for (const [band, count] of bucket.latency.entries()) {
    seen += count;
    if (seen * 2 >= calls) return LATENCY_BANDS_MS[band] ?? 2 * (LATENCY_BANDS_MS.at(-1) as number);
  }
  return null;
}

export interface ProviderStatus {
  name: string;
  status: Status;
  breaker: BreakerState;
  success_rate_1h: number | null;
  p50_ms: number | null;
}

const HOUR_SECONDS = 3_600;

/**
 * A provider's status: its breaker open or probing → `major_outage`; failures in the breaker's
 * window short of tripping it → `degraded_performance`; otherwise `operational`.
 */
export function providerStatus(name: string, health: ProviderHealth | undefined, nowMs: number, settings: HealthSettings): ProviderStatus {
  const breaker = breakerOf(health, nowMs, settings).state;
  const hour = health ? windowOf(health, nowMs, HOUR_SECONDS, settings) : emptyBucket();
  const recent = health ? windowOf(health, nowMs, settings.windowSeconds, settings) : emptyBucket();
  const calls = hour.ok + hour.fail;
  const status: Status = breaker !== 'closed' ? 'major_outage' : recent.fail > 0 ? 'degraded_performance' : 'operational';
  return {
    name,
    status,
    breaker,
    success_rate_1h: calls === 0 ? null : Math.round((hour.ok / calls) * 1000) / 1000,
    p50_ms: p50Of(hour),
  };
}

/**
 * An operation's status from its providers': every one out (or none configured) → `major_outage`;
 * some out → `partial_outage` (served by the others); else the worst of them.
 */
export function operationStatus(providers: readonly ProviderStatus[]): Status {
  if (providers.length === 0 || providers.every((provider) => provider.status === 'major_outage')) return 'major_outage';
  if (providers.some((provider) => provider.status === 'major_outage')) return 'partial_outage';
  return worst(providers.map((provider) => provider.status));
}

/** Since when an operation has been in its status, as well as the counters tell (docs: "since" is approximate). */
export function sinceOf(
  status: Status,
  healths: readonly (ProviderHealth | undefined)[],
  nowMs: number,
  settings: HealthSettings,
): number | null {
  const known = healths.filter((health): health is ProviderHealth => health !== undefined);
  if (status === 'partial_outage' || status === 'major_outage') {
    const opened = known.map((health) => health.openedAtMs).filter((at): at is number => at !== undefined);
    return opened.length > 0 ? Math.min(...opened) : null;
  }
  if (status === 'degraded_performance') {
    const first = bucketOf(nowMs - settings.windowSeconds * 1000, settings);
    const failing = known.flatMap((health) => [...health.buckets].filter(([bucket, counts]) => bucket >= first && counts.fail > 0));
    return failing.length > 0 ? Math.min(...failing.map(([bucket]) => bucket * settings.bucketSeconds * 1000)) : null;
  }
  // Operational since the last failure it recovered from (null: none recorded).
  const failures = known.map((health) => health.lastFailMs).filter((at): at is number => at !== undefined);
  return failures.length > 0 ? Math.max(...failures) : null;
}

/** The page's indicator: the worst status among the operations a provider serves. */
export function indicatorOf(statuses: readonly Status[]): Indicator {
  const status = worst(statuses);
  return status === 'major_outage'
    ? 'critical'
    : status === 'partial_outage'
      ? 'major'
      : status === 'degraded_performance'
        ? 'minor'
        : 'none';
}
