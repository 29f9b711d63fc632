/**
 * Usage counters and the markers that keep them exact (docs/data-model.md). The aggregator
 * (lib/usage/aggregate.ts) decides what to add; this module builds the items and sends them:
 * one transaction puts a marker per billing event (only if absent) together with the counters'
 * ADDs, so an event is in the counters exactly once, whatever is delivered again.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, type TransactItem, tableName, transact } from './client.ts';
import { type UsageGranularity, usageCounterKey, usageCounterRange, usageMarkerKey } from './keys.ts';

/**
 * How long counters and markers are kept: more than 13 months (at most 397 days), the oldest
 * window the usage route answers, so a counter is never gone while it can be asked for.
 */
export const USAGE_RETENTION_DAYS = 400;
const expiresAt = (fromIso: string) => Math.floor(Date.parse(fromIso) / 1000) + USAGE_RETENTION_DAYS * 86_400;

/** What to add to one counter. */
export interface UsageDelta {
  granularity: UsageGranularity;
  /** The bucket's start, ISO 8601 UTC. */
  bucketStart: string;
  operation: string;
  /** Exactly one of the two: the user whose token ran it, or the API key. */
  member: string | null;
  apiKey: string | null;
  runs: number;
  charged: number;
  refunded: number;
}

/** One counter as read: a bucket, an operation, a payer. */
export interface UsageCounter {
  bucketStart: string;
  operation: string;
  member: string | null;
  apiKey: string | null;
  runs: number;
  charged: number;
  refunded: number;
}

/** The marker of one counted event (must not exist: a second one cancels the transaction). */
export const usageMarkerPut = (eventId: string, createdAt: string): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...usageMarkerKey(eventId), entity: 'usage_marker', expires_at: expiresAt(createdAt) },
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});

/** ADDs to one counter, creating it with its descriptive attributes on first use. */
export const usageCounterUpdate = (orgId: string, delta: UsageDelta): TransactItem => {
  const payer = delta.apiKey ?? delta.member ?? '';
  return {
    Update: {
      TableName: tableName(),
      Key: usageCounterKey(orgId, delta.granularity, delta.bucketStart, delta.operation, payer),
      // Every name through a placeholder: `bucket` is one of DynamoDB's reserved words.
      UpdateExpression:
        'ADD #runs :runs, #charged :charged, #refunded :refunded SET #entity = :entity, #bucket = :bucket, #operation = :operation, #payer = :payer, #expires = :expires',
      ExpressionAttributeNames: {
        '#runs': 'runs',
        '#charged': 'charged',
        '#refunded': 'refunded',
        '#entity': 'entity',
        '#bucket': 'bucket',
        '#operation': 'operation',
        '#payer': delta.apiKey ? 'api_key' : 'member',
        '#expires': 'expires_at',
      },
      ExpressionAttributeValues: {
        ':runs': delta.runs,
        ':charged': delta.charged,
        ':refunded': delta.refunded,
        ':entity': 'usage_counter',
        ':bucket': delta.bucketStart,
        ':operation': delta.operation,
        ':payer': payer,
        ':expires': expiresAt(delta.bucketStart),
      },
    },
  };
};

/** The transaction found some events counted already: their positions among the markers. */
export class AlreadyCounted extends Error {
  constructor(readonly markerIndexes: number[]) {
    super(`${markerIndexes.length} events were counted already`);
    this.name = 'AlreadyCounted';
  }
}

/**
 * Counts events at once: their markers (first, in this order) and the counters' deltas, in one
 * transaction (at most 100 items). Throws AlreadyCounted naming the markers that exist (nothing
 * was written: count the others again), or the storage error.
 */
export async function countUsage(orgId: string, markers: { eventId: string; createdAt: string }[], deltas: UsageDelta[]): Promise<void> {
  const items = [
    ...markers.map((marker) => usageMarkerPut(marker.eventId, marker.createdAt)),
    ...deltas.map((delta) => usageCounterUpdate(orgId, delta)),
  ];
  await transact(items, (reasons) => {
    const counted = markers.flatMap((_, index) => (reasons[index]?.Code === 'ConditionalCheckFailed' ? [index] : []));
    return counted.length > 0 ? new AlreadyCounted(counted) : null;
  });
}

/** Whose counters a read returns: the whole organization's, or one payer's. */
export type UsageScope = { member: string } | { apiKey: string } | 'organization';

/**
 * The counters of the buckets from `fromIso` (included) to `toIso` (excluded): one Query on the
 * organization's usage partition, following its pages (1 MB of counters each, ~6,000 of them).
 * A payer's scope is a filter: the same items are read, only theirs come back.
 */
export async function readUsageCounters(
  orgId: string,
  granularity: UsageGranularity,
  window: { fromIso: string; toIso: string },
  scope: UsageScope,
): Promise<UsageCounter[]> {
  const range = usageCounterRange(orgId, granularity, window.fromIso, window.toIso);
  const filter =
    scope === 'organization'
      ? {}
      : {
          FilterExpression: '#payer = :payer',
          ExpressionAttributeValues: { ':payer': 'member' in scope ? scope.member : scope.apiKey },
        };
  const payerName = scope === 'organization' || 'member' in scope ? 'member' : 'api_key';
  const counters: UsageCounter[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ...filter,
        ExpressionAttributeValues: { ':pk': range.PK, ':from': range.from, ':to': range.to, ...filter.ExpressionAttributeValues },
        // What a counter says, not its keys and upkeep: less to send and parse (the capacity read is the same).
        ProjectionExpression: '#bucket, #operation, #member, #api_key, #runs, #charged, #refunded',
        ExpressionAttributeNames: {
          '#bucket': 'bucket',
          '#operation': 'operation',
          '#member': 'member',
          '#api_key': 'api_key',
          '#runs': 'runs',
          '#charged': 'charged',
          '#refunded': 'refunded',
          ...(scope === 'organization' ? {} : { '#payer': payerName }),
        },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) counters.push(counterOf(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return counters;
}

const counterOf = (item: Record<string, unknown>): UsageCounter => ({
  bucketStart: String(item.bucket),
  operation: String(item.operation),
  member: typeof item.member === 'string' ? item.member : null,
  apiKey: typeof item.api_key === 'string' ? item.api_key : null,
  runs: Number(item.runs ?? 0),
  charged: Number(item.charged ?? 0),
  refunded: Number(item.refunded ?? 0),
});
