import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.ts';
import { billingEventKey, billingEventRange } from './keys.ts';

export type BillingEventType = 'credits.granted' | 'credits.deducted' | 'social_operation.charged' | 'social_operation.refunded';

/** A billing event exactly as the API returns it. */
export interface BillingEvent {
  id: string;
  type: BillingEventType;
  title: string;
  description: string;
  /** ISO 8601 UTC with milliseconds. */
  created_at: string;
  /** Signed: grants and refunds positive, charges negative. */
  amount: number;
  currency: 'credits';
}

export function newBillingEvent(input: {
  type: BillingEventType;
  title: string;
  description: string;
  amount: number;
  now?: Date;
  id?: string;
}): BillingEvent {
  return {
    id: input.id ?? `evt_${randomUUID()}`,
    type: input.type,
    title: input.title,
    description: input.description,
    created_at: (input.now ?? new Date()).toISOString(),
    amount: input.amount,
    currency: 'credits',
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

const FIELDS = ['id', 'type', 'title', 'description', 'created_at', 'amount', 'currency'] as const;

/**
 * Events created at or after `since`, newest first (ties: higher id first), at most `limit`.
 * One Query on the organization's partition; the sort key orders by time then id.
 */
export async function listBillingEvents(orgId: string, since: Date, limit: number): Promise<BillingEvent[]> {
  const range = billingEventRange(orgId, since.toISOString());
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': range.PK, ':from': range.from, ':to': range.to },
      ScanIndexForward: false,
      Limit: limit,
      ProjectionExpression: FIELDS.map((_, i) => `#f${i}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(FIELDS.map((field, i) => [`#f${i}`, field])),
    }),
  );
  return (result.Items ?? []).map((item) => ({
    id: item.id,
    type: item.type,
    title: item.title,
    description: item.description,
    created_at: item.created_at,
    amount: Number(item.amount),
    currency: item.currency,
  }));
}
