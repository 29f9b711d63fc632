import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { db, queryAll, tableName } from './client.ts';
import { billingEventAt, billingEventKey, billingEventPosition, billingEventRange, billingEventsPrefix } from './keys.ts';

export const BILLING_EVENT_TYPES = [
  'credits.granted',
  'credits.deducted',
  'social_operation.charged',
  'social_operation.refunded',
  'credits.expired',
  'credits.purchased',
  'credits.reversed',
] as const;
export type BillingEventType = (typeof BILLING_EVENT_TYPES)[number];

/** A billing event exactly as the API returns it (the API description's schema of one). */
export const billingEventSchema = z.object({
  id: z.string(),
  type: z.enum(BILLING_EVENT_TYPES),
  title: z.string(),
  description: z.string(),
  /** ISO 8601 UTC with milliseconds. */
  created_at: z.iso.datetime(),
  /** Signed: grants and refunds positive, charges negative. */
  amount: z.int(),
  currency: z.literal('credits'),
  /**
   * Facts a program can follow: for charges and refunds `operation`, `charge_id` (the charge
   * event's id), `user_id` and `request_id`; for grants and deductions `reason`, and a grant's
   * `grant_id`; for an expiry `grant_id`; for purchases `purchase_id`, `payment_intent_id`,
   * `source` and `grant_id`; for reversals `purchase_id`, `reason` (`refund` or `dispute`),
   * `payment_intent_id` and `grant_id`. Empty on events written before metadata was kept.
   */
  metadata: z.record(z.string(), z.string()),
});
export type BillingEvent = z.output<typeof billingEventSchema>;

export function newBillingEvent(input: {
  type: BillingEventType;
  title: string;
  description: string;
  amount: number;
  now?: Date;
  id?: string;
  metadata?: Record<string, string>;
}): BillingEvent {
  return {
    id: input.id ?? `evt_${randomUUID()}`,
    type: input.type,
    title: input.title,
    description: input.description,
    created_at: (input.now ?? new Date()).toISOString(),
    amount: input.amount,
    currency: 'credits',
    metadata: input.metadata ?? {},
  };
}

/** The transaction item that stores an event; charging and granting put it with their update. */
export function billingEventPut(orgId: string, event: BillingEvent) {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...billingEventKey(orgId, event.created_at, event.id), entity: 'billing_event', ...event },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

const FIELDS = ['id', 'type', 'title', 'description', 'created_at', 'amount', 'currency', 'metadata'] as const;

export interface BillingEventsPage {
  events: BillingEvent[];
  /** Whether events remain after this page in the window. */
  hasMore: boolean;
  /** Where the next page starts (billingEventPosition of the last event returned), when hasMore. */
  next: string | undefined;
}

/**
 * One page of the events created from `since` to `until`, newest first (ties: higher id first),
 * at most `limit`, starting after the position `after` (a previous page's `next`). One Query on
 * the organization's partition, asking for one event more than the page so that `hasMore` is
 * exact: a page that ends the window says so, and no empty last page is needed.
 */
export async function listBillingEventsPage(
  orgId: string,
  window: { since: Date; until: Date },
  limit: number,
  after?: string,
): Promise<BillingEventsPage> {
  const range = billingEventRange(orgId, window.since.toISOString(), window.until.toISOString());
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': range.PK, ':from': range.from, ':to': range.to },
      ScanIndexForward: false,
      Limit: limit + 1,
      ...(after ? { ExclusiveStartKey: billingEventAt(orgId, after) } : {}),
      ProjectionExpression: FIELDS.map((_, i) => `#f${i}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(FIELDS.map((field, i) => [`#f${i}`, field])),
    }),
  );
  const events = (result.Items ?? []).slice(0, limit).map(toBillingEvent);
  const last = events.at(-1);
  // More than a page came back, or DynamoDB stopped early (its 1 MB page) with events left.
  const hasMore = (result.Items?.length ?? 0) > limit || result.LastEvaluatedKey !== undefined;
  const next = !hasMore
    ? undefined
    : last
      ? billingEventPosition(billingEventKey(orgId, last.created_at, last.id).SK)
      : billingEventPosition(String(result.LastEvaluatedKey?.SK));
  return { events, hasMore, next };
}

const toBillingEvent = (item: Record<string, unknown>): BillingEvent => ({
  id: item.id as string,
  type: item.type as BillingEventType,
  title: item.title as string,
  description: item.description as string,
  created_at: item.created_at as string,
  amount: Number(item.amount),
  currency: 'credits',
  metadata: (item.metadata as Record<string, string> | undefined) ?? {},
});

/** Every billing event of an organization, oldest first, consistent (the grants ledger's first look at an organization from before grants). */
export async function listAllBillingEvents(orgId: string): Promise<BillingEvent[]> {
  const prefix = billingEventsPrefix(orgId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.skPrefix },
    ProjectionExpression: FIELDS.map((_, i) => `#f${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(FIELDS.map((field, i) => [`#f${i}`, field])),
    ConsistentRead: true,
  });
  return items.map(toBillingEvent);
}
