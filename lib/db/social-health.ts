/**
 * Storage of the providers' health (lib/social/health/): one item per (operation, provider)
 * under one partition, its counters per bucket as flat attributes (`ok_<bucket>`, `fail_<bucket>`,
 * `lat_<bucket>_<band>`), added to by the table stream's health consumer only. Read whole, one
 * Query, by the status page and (at most every HEALTH_REFRESH_SECONDS) by each instance's
 * breakers, never on a run's path.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { SOCIAL_HEALTH_PK, socialHealthKey } from './keys.ts';

/** One bucket of one (operation, provider): calls that answered, calls that failed, and their latencies by band. */
export interface Bucket {
  ok: number;
  fail: number;
  /** Count per latency band (LATENCY_BANDS_MS). */
  latency: number[];
}

/** What is stored for one (operation, provider). */
export interface ProviderHealth {
  operation: string;
  provider: string;
  /** By bucket number (epoch seconds / bucket width). */
  buckets: Map<number, Bucket>;
  lastOkMs: number | undefined;
  lastFailMs: number | undefined;
  /** When its breaker opened (or last reopened on a failed probe); undefined: closed. */
  openedAtMs: number | undefined;
}

/** Upper bounds of the latency bands (ms); the last band is everything slower. */
export const LATENCY_BANDS_MS = [100, 250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000] as const;

export const emptyBucket = (): Bucket => ({ ok: 0, fail: 0, latency: new Array(LATENCY_BANDS_MS.length + 1).fill(0) });

const BANDS = LATENCY_BANDS_MS.length + 1;

/** An item as read: its counters gathered by bucket. */
export function healthOf(item: Record<string, unknown>): ProviderHealth | undefined {
  const sk = String(item.SK ?? '');
  const at = sk.lastIndexOf('#');
  if (at <= 0) return undefined;
  const buckets = new Map<number, Bucket>();
  const bucket = (n: number): Bucket => {
    let found = buckets.get(n);
    if (!found) {
      found = emptyBucket();
      buckets.set(n, found);
    }
    return found;
  };
  for (const [name, value] of Object.entries(item)) {
    const match = /^(ok|fail|lat)_([0-9]+)(?:_([0-9]+))?$/.exec(name);
    if (!match || typeof value !== 'number') continue;
    const counts = bucket(Number(match[2]));
    if (match[1] === 'ok') counts.ok = value;
    else if (match[1] === 'fail') counts.fail = value;
    else if (Number(match[3]) < BANDS) counts.latency[Number(match[3])] = value;
  }
  const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return {
    operation: sk.slice(0, at),
    provider: sk.slice(at + 1),
    buckets,
    lastOkMs: num(item.last_ok_ms),
    lastFailMs: num(item.last_fail_ms),
    openedAtMs: num(item.opened_at_ms),
  };
}

/** Every (operation, provider)'s health, by `<operation>#<provider>`. */
export async function readAllHealth(): Promise<Map<string, ProviderHealth>> {
  const found = new Map<string, ProviderHealth>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': SOCIAL_HEALTH_PK },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const health = healthOf(item);
      if (health) found.set(`${health.operation}#${health.provider}`, health);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

export interface HealthAdds {
  buckets: Map<number, Bucket>;
  lastOkMs: number | undefined;
  lastFailMs: number | undefined;
}

/** Adds a batch's counts to one (operation, provider), answering the item as it now is. */
export async function addHealth(operation: string, provider: string, adds: HealthAdds): Promise<ProviderHealth | undefined> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const add: string[] = [];
  let n = 0;
  const addCount = (attribute: string, count: number) => {
    if (count === 0) return;
    n += 1;
    names[`#a${n}`] = attribute;
    values[`:a${n}`] = count;
    add.push(`#a${n} :a${n}`);
  };
  for (const [bucket, counts] of adds.buckets) {
    addCount(`ok_${bucket}`, counts.ok);
    addCount(`fail_${bucket}`, counts.fail);
    for (const [band, count] of counts.latency.entries()) addCount(`lat_${bucket}_${band}`, count);
  }
  const set: string[] = [];
  if (adds.lastOkMs !== undefined) {
    set.push('last_ok_ms = :lok');
    values[':lok'] = adds.lastOkMs;
  }
  if (adds.lastFailMs !== undefined) {
    set.push('last_fail_ms = :lfail');
    values[':lfail'] = adds.lastFailMs;
  }
  if (add.length === 0 && set.length === 0) return undefined;
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: socialHealthKey(operation, provider),
      UpdateExpression: [add.length > 0 ? `ADD ${add.join(', ')}` : '', set.length > 0 ? `SET ${set.join(', ')}` : ''].join(' ').trim(),
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return Attributes ? healthOf(Attributes) : undefined;
}

/**
 * Moves a breaker from what it was read as (`from`: its `opened_at_ms`, undefined for closed) to
 * `to` (undefined: closed), and drops buckets older than `dropBefore`; false when another writer
 * moved it first (the next batch decides again).
 */
export async function moveBreaker(
  operation: string,
  provider: string,
  from: number | undefined,
  to: number | undefined,
  drop: readonly string[] = [],
): Promise<boolean> {
  const values: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  const remove = drop.map((attribute, index) => {
    names[`#d${index}`] = attribute;
    return `#d${index}`;
  });
  let set = '';
  if (to === undefined) remove.push('opened_at_ms');
  else {
    set = 'SET opened_at_ms = :to';
    values[':to'] = to;
  }
  let condition = 'attribute_not_exists(opened_at_ms)';
  if (from !== undefined) {
    condition = 'opened_at_ms = :from';
    values[':from'] = from;
  }
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: socialHealthKey(operation, provider),
        UpdateExpression: [set, remove.length > 0 ? `REMOVE ${remove.join(', ')}` : ''].join(' ').trim(),
        ConditionExpression: `attribute_exists(PK) AND ${condition}`,
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error | null)?.name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
