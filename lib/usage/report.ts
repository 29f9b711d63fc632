/**
 * A usage report's shape, pure: the window asked for (checked before any read), and the counters
 * grouped into every bucket of it. lib/usage/usage.ts reads; this decides.
 */
import type { UsageCounter } from '../db/usage.ts';
import { type Issue, validationFailed } from '../errors.ts';
import { BUCKET_MS, bucketStartMs, networkOfOperation, type UsageGranularity } from './buckets.ts';

export const GROUP_KEYS = ['operation', 'network', 'member', 'api_key'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

/** Buckets one report may hold: a week of hours, a quarter of days. */
export const MAX_BUCKETS: Record<UsageGranularity, number> = { hour: 168, day: 93 };
/** How far back a window may start: usage is kept 13 months (lib/db/usage.ts keeps counters 400 days). */
export const RETENTION_MONTHS = 13;

export interface UsageQuery {
  from: string;
  to: string;
  granularity: UsageGranularity;
  /** As sent: comma-separated keys, or undefined for none. */
  group_by?: string | undefined;
}

export interface UsageWindow {
  fromMs: number;
  toMs: number;
  granularity: UsageGranularity;
  groupBy: GroupKey[];
}

export type UsageResult = Partial<Record<GroupKey, string | null>> & { runs: number; charged: number; refunded: number; net: number };

export interface UsageReport {
  from: string;
  to: string;
  granularity: UsageGranularity;
  group_by: GroupKey[];
  buckets: { start: string; end: string; results: UsageResult[] }[];
}

/** The same instant `months` calendar months earlier (UTC), the day clamped to the shorter month's last. */
function monthsBefore(atMs: number, months: number): number {
  const at = new Date(atMs);
  const target = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  return Date.UTC(
    target.getUTCFullYear(),
    target.getUTCMonth(),
    Math.min(at.getUTCDate(), lastDay),
    at.getUTCHours(),
    at.getUTCMinutes(),
    at.getUTCSeconds(),
    at.getUTCMilliseconds(),
  );
}

/** The earliest `from` accepted at `nowMs`: the bucket holding the instant 13 months ago. */
export const earliestFromMs = (nowMs: number, granularity: UsageGranularity): number =>
  bucketStartMs(monthsBefore(nowMs, RETENTION_MONTHS), granularity);

function groupKeysOf(raw: string | undefined, issues: Issue[]): GroupKey[] {
  if (raw === undefined) return [];
  const keys: GroupKey[] = [];
  const rule = `one or more of ${GROUP_KEYS.join(', ')}, comma-separated`;
  for (const entry of raw.split(',').map((part) => part.trim())) {
    if (!(GROUP_KEYS as readonly string[]).includes(entry)) {
      issues.push({
        path: ['query', 'group_by'],
        code: 'invalid_value',
        message: entry === '' ? `has an empty entry: ${rule}` : `has an unknown key "${entry.slice(0, 40)}": ${rule}`,
      });
    } else if (keys.includes(entry as GroupKey)) {
      issues.push({ path: ['query', 'group_by'], code: 'repeated', message: `names "${entry}" twice` });
    } else keys.push(entry as GroupKey);
  }
  return keys;
}

const BUCKET_WORD: Record<UsageGranularity, string> = {
  hour: 'a UTC hour (minutes, seconds and milliseconds zero)',
  day: 'a UTC day (00:00:00Z)',
};

/**
 * The window of `query` (its timestamps already valid ISO 8601 `Z` instants), or a 400 naming
 * each parameter at fault: `from`/`to` off the granularity's boundaries, `to` not after `from`,
 * too many buckets (naming `to`), `from` older than 13 months, a bad `group_by`. Pure.
 */
export function usageWindow(query: UsageQuery, nowMs: number): UsageWindow {
  const { granularity } = query;
  const issues: Issue[] = [];
  const fromMs = Date.parse(query.from);
  const toMs = Date.parse(query.to);
  for (const [name, atMs] of [
    ['from', fromMs],
    ['to', toMs],
  ] as const) {
    if (bucketStartMs(atMs, granularity) !== atMs) {
      issues.push({
        path: ['query', name],
        code: 'invalid_format',
        message: `must be the start of ${BUCKET_WORD[granularity]} with granularity=${granularity}`,
      });
    }
  }
  if (toMs <= fromMs) issues.push({ path: ['query', 'to'], code: 'too_small', message: 'must be after from' });
  else if ((toMs - fromMs) / BUCKET_MS[granularity] > MAX_BUCKETS[granularity]) {
    issues.push({
      path: ['query', 'to'],
      code: 'too_big',
      message: `must be at most ${MAX_BUCKETS[granularity]} ${granularity}s after from (${MAX_BUCKETS[granularity]} buckets)`,
    });
  }
  const earliest = earliestFromMs(nowMs, granularity);
  if (fromMs < earliest) {
    issues.push({
      path: ['query', 'from'],
      code: 'too_small',
      message: `must be at most ${RETENTION_MONTHS} months ago (${new Date(earliest).toISOString()} or later): usage is kept ${RETENTION_MONTHS} months`,
    });
  }
  const groupBy = groupKeysOf(query.group_by, issues);
  if (issues.length > 0) throw validationFailed(issues);
  return { fromMs, toMs, granularity, groupBy };
}

const groupValueOf = (counter: UsageCounter, key: GroupKey): string | null =>
  key === 'operation'
    ? counter.operation
    : key === 'network'
      ? networkOfOperation(counter.operation)
      : key === 'member'
        ? counter.member
        : counter.apiKey;

/** Ascending by each key in the order asked, null last. */
function compareResults(groupBy: readonly GroupKey[]) {
  return (a: UsageResult, b: UsageResult): number => {
    for (const key of groupBy) {
      const [x, y] = [a[key] ?? null, b[key] ?? null];
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return x < y ? -1 : 1;
    }
    return 0;
  };
}

/** A group's running sums: one shape for every group, so the hot loop stays monomorphic. */
interface Sums {
  values: (string | null)[];
  runs: number;
  charged: number;
  refunded: number;
}

/** A group's result: its keys in the order asked, then its figures (assigned, not spread: spreading a dynamic object is V8's slow path). */
function resultOf(groupBy: readonly GroupKey[], sums: Sums): UsageResult {
  const result = {} as UsageResult;
  for (const [i, key] of groupBy.entries()) result[key] = sums.values[i] ?? null;
  result.runs = sums.runs;
  result.charged = sums.charged;
  result.refunded = sums.refunded;
  result.net = sums.charged - sums.refunded;
  return result;
}

/** Every bucket of the window, oldest first, each with its counters summed per group (pure). */
export function usageReport(window: UsageWindow, counters: readonly UsageCounter[]): UsageReport {
  const { fromMs, toMs, granularity, groupBy } = window;
  const step = BUCKET_MS[granularity];
  const byBucket = new Map<string, Map<string, Sums>>();
  for (const counter of counters) {
    const values = groupBy.map((key) => groupValueOf(counter, key));
    // Ids and operation names hold no control characters: U+0000 stands for null, U+001F separates.
    const id = values.map((value) => value ?? '\u0000').join('\u001f');
    let groups = byBucket.get(counter.bucketStart);
    if (!groups) {
      groups = new Map<string, Sums>();
      byBucket.set(counter.bucketStart, groups);
    }
    let sums = groups.get(id);
    if (!sums) {
      sums = { values, runs: 0, charged: 0, refunded: 0 };
      groups.set(id, sums);
    }
    sums.runs += counter.runs;
    sums.charged += counter.charged;
    sums.refunded += counter.refunded;
  }
  const buckets: UsageReport['buckets'] = [];
  for (let startMs = fromMs; startMs < toMs; startMs += step) {
    const start = new Date(startMs).toISOString();
    const results = [...(byBucket.get(start)?.values() ?? [])].map((sums) => resultOf(groupBy, sums));
    buckets.push({ start, end: new Date(startMs + step).toISOString(), results: results.sort(compareResults(groupBy)) });
  }
  return { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), granularity, group_by: groupBy, buckets };
}

/** The report as CSV rows: `start,end,<group_by keys>,runs,charged,refunded,net`, one per result. */
export function usageRows(report: UsageReport): { header: string[]; rows: (string | number | null)[][] } {
  return {
    header: ['start', 'end', ...report.group_by, 'runs', 'charged', 'refunded', 'net'],
    rows: report.buckets.flatMap((bucket) =>
      bucket.results.map((result) => [
        bucket.start,
        bucket.end,
        ...report.group_by.map((key) => result[key] ?? null),
        result.runs,
        result.charged,
        result.refunded,
        result.net,
      ]),
    ),
  };
}
