/**
 * Owners' notification endpoints and their deliveries, as stored. An endpoint is one item in its
 * organization's partition (`WEBHOOK#<id>`); how many an organization has is a counter item
 * (`WEBHOOKS`) changed in the same transaction as the endpoint, under the condition that it stays
 * within the limit: two creations at once can never both take the tenth place. A delivery (one
 * event to one endpoint) lives in the endpoint's own partition, newest first by its event's time.
 */

import { BatchWriteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type AuditSource, auditEventPut } from './audit-events.ts';
import { conditionFailed, db, queryAll, type TransactItem, tableName, transact, updateIf } from './client.ts';
import {
  webhookCountKey,
  webhookDeliveriesPartition,
  webhookDeliveriesPrefix,
  webhookDeliveryKey,
  webhookEndpointKey,
  webhookEndpointsPrefix,
  webhookIdOf,
} from './keys.ts';
import { notAnOwnerIn, stillAnOwner } from './memberships.ts';

export interface WebhookEndpointRecord {
  id: string;
  organization_id: string;
  url: string;
  events: string[];
  secret: string;
  created_at: string;
}

export interface EndpointDeliveryRecord {
  webhook_id: string;
  /** The event's id: the `webhook-id` header of every attempt. */
  id: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  next_attempt_at: string | null;
  created_at: string;
  /** The event as sent: the same bytes on every attempt. */
  body: string;
}

/** The values of a `PK = :pk AND begins_with(SK, :prefix)` query. */
const prefixValues = (prefix: { PK: string; skPrefix: string }) => ({ ':pk': prefix.PK, ':prefix': prefix.skPrefix });

/** Deliveries are kept this long, then the table's TTL removes them. */
const DELIVERY_RETENTION_SECONDS = 30 * 86_400;

const endpointOf = (item: Record<string, unknown>): WebhookEndpointRecord => ({
  id: webhookIdOf(String(item.SK)),
  organization_id: item.organization_id as string,
  url: item.url as string,
  events: item.events as string[],
  secret: item.secret as string,
  created_at: item.created_at as string,
});

const deliveryOf = (item: Record<string, unknown>): EndpointDeliveryRecord => ({
  webhook_id: webhookIdOf(String(item.PK)),
  id: item.event_id as string,
  type: item.type as string,
  status: item.status as EndpointDeliveryRecord['status'],
  attempts: Number(item.attempts ?? 0),
  last_status_code: item.last_status_code == null ? null : Number(item.last_status_code),
  next_attempt_at: (item.next_attempt_at as string | undefined) ?? null,
  created_at: item.created_at as string,
  body: item.body as string,
});

/** An endpoint's creation or deletion event: its URL and events, never its secret. */
const endpointEvent = (type: 'webhook.created' | 'webhook.deleted', endpoint: WebhookEndpointRecord, source: AuditSource, now: Date) =>
  auditEventPut(
    endpoint.organization_id,
    source,
    { type, target: { type: 'webhook', id: endpoint.id }, details: { url: endpoint.url, events: endpoint.events } },
    now,
  );

/** The organization has as many endpoints as it may: the new one was not written. */
export class EndpointLimitReached extends Error {}

class NoSuchEndpoint extends Error {}

/**
 * Writes a new endpoint, in one transaction: its creator still an owner (NotAnOwner), the
 * organization's count below `max` (EndpointLimitReached) and one more, the endpoint itself.
 */
export async function createEndpoint(
  endpoint: WebhookEndpointRecord,
  creatorId: string,
  max: number,
  source: AuditSource,
  now: Date,
): Promise<void> {
  const items: TransactItem[] = [
    stillAnOwner(endpoint.organization_id, creatorId),
    {
      Update: {
        TableName: tableName(),
        Key: webhookCountKey(endpoint.organization_id),
        UpdateExpression: 'ADD endpoints :one SET entity = :entity',
        ConditionExpression: 'attribute_not_exists(endpoints) OR endpoints < :max',
        ExpressionAttributeValues: { ':one': 1, ':max': max, ':entity': 'webhook_count' },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...webhookEndpointKey(endpoint.organization_id, endpoint.id),
          entity: 'webhook_endpoint',
          organization_id: endpoint.organization_id,
          url: endpoint.url,
          events: endpoint.events,
          secret: endpoint.secret,
          created_at: endpoint.created_at,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    endpointEvent('webhook.created', endpoint, source, now),
  ];
  await transact(items, (reasons) => notAnOwnerIn(reasons) ?? (conditionFailed(reasons, 1) ? new EndpointLimitReached() : null));
}

const getItem = async (key: Record<string, string>): Promise<Record<string, unknown> | undefined> =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

/** One endpoint, or null. */
export async function getEndpoint(orgId: string, webhookId: string): Promise<WebhookEndpointRecord | null> {
  const item = await getItem(webhookEndpointKey(orgId, webhookId));
  return item ? endpointOf(item) : null;
}

/** One page of an organization's endpoints, by id. */
export async function listEndpointsPage(
  orgId: string,
  limit: number,
  afterId?: string,
): Promise<{ endpoints: WebhookEndpointRecord[]; hasMore: boolean }> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: prefixValues(webhookEndpointsPrefix(orgId)),
      ConsistentRead: true,
      Limit: limit + 1,
      ...(afterId === undefined ? {} : { ExclusiveStartKey: webhookEndpointKey(orgId, afterId) }),
    }),
  );
  const endpoints = (result.Items ?? []).map(endpointOf);
  return { endpoints: endpoints.slice(0, limit), hasMore: endpoints.length > limit || result.LastEvaluatedKey !== undefined };
}

/** Every endpoint of an organization (at most the limit's few): whom an event goes to. */
export async function listEndpoints(orgId: string): Promise<WebhookEndpointRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: prefixValues(webhookEndpointsPrefix(orgId)),
    ConsistentRead: true,
  });
  return items.map(endpointOf);
}

/**
 * Deletes an endpoint (`read`: as read beside the owner check; an endpoint never changes) and
 * gives its place back, in one transaction with its `webhook.deleted` event and the condition that
 * its deleter is still an owner (NotAnOwner: an owner demoted since the request's role check
 * deletes nothing); then its deliveries. A delivery still queued finds no endpoint and sends
 * nothing. False when there is no such endpoint.
 */
export async function deleteEndpoint(
  read: WebhookEndpointRecord | null,
  deleterId: string,
  source: AuditSource,
  now: Date,
): Promise<boolean> {
  if (!read) return false;
  const { organization_id: orgId, id: webhookId } = read;
  try {
    await transact(
      [
        stillAnOwner(orgId, deleterId),
        { Delete: { TableName: tableName(), Key: webhookEndpointKey(orgId, webhookId), ConditionExpression: 'attribute_exists(PK)' } },
        {
          Update: {
            TableName: tableName(),
            Key: webhookCountKey(orgId),
            UpdateExpression: 'ADD endpoints :minus',
            ExpressionAttributeValues: { ':minus': -1 },
          },
        },
        endpointEvent('webhook.deleted', read, source, now),
      ],
      (reasons) => notAnOwnerIn(reasons) ?? (conditionFailed(reasons, 1) ? new NoSuchEndpoint() : null),
    );
  } catch (error) {
    if (error instanceof NoSuchEndpoint) return false;
    throw error;
  }
  const deliveries = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': webhookDeliveriesPartition(webhookId) },
    ProjectionExpression: 'PK, SK',
  });
  for (let start = 0; start < deliveries.length; start += 25) {
    const batch = deliveries.slice(start, start + 25).map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } }));
    await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: batch } }));
  }
  return true;
}

/**
 * Writes a new pending delivery, once: false when it exists already (the same event for the same
 * endpoint, from a redelivered stream record or a concurrent consumer).
 */
export async function putDelivery(
  delivery: Omit<EndpointDeliveryRecord, 'status' | 'attempts' | 'last_status_code' | 'next_attempt_at'>,
  nowMs: number,
): Promise<boolean> {
  const written = await updateIf({
    TableName: tableName(),
    Key: webhookDeliveryKey(delivery.webhook_id, delivery.created_at, delivery.id),
    UpdateExpression:
      'SET entity = :entity, event_id = :id, #type = :type, #status = :pending, attempts = :zero, created_at = :created, body = :body, expires_at = :ttl',
    ConditionExpression: 'attribute_not_exists(PK)',
    ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
    ExpressionAttributeValues: {
      ':entity': 'webhook_delivery',
      ':id': delivery.id,
      ':type': delivery.type,
      ':pending': 'pending',
      ':zero': 0,
      ':created': delivery.created_at,
      ':body': delivery.body,
      ':ttl': Math.floor(nowMs / 1000) + DELIVERY_RETENTION_SECONDS,
    },
  });
  return written !== null;
}

/**
 * Claims attempt `attempt` of a delivery until `untilMs` (its message's deadline): the delivery as
 * claimed, or null when it is over, that attempt is made already, or another copy of the same
 * attempt holds a live claim. So two messages for one attempt (an event published twice at once,
 * a message delivered again) make one request; a claim whose holder died lapses at its deadline,
 * when the holder's own message comes back.
 */
export async function claimDelivery(
  webhookId: string,
  createdAt: string,
  eventId: string,
  attempt: number,
  nowMs: number,
  untilMs: number,
): Promise<EndpointDeliveryRecord | null> {
  const claimed = await updateIf({
    TableName: tableName(),
    Key: webhookDeliveryKey(webhookId, createdAt, eventId),
    UpdateExpression: 'SET claimed_attempt = :attempt, claimed_until = :until',
    ConditionExpression:
      'attribute_exists(PK) AND #status = :pending AND attempts < :attempt AND (attribute_not_exists(claimed_attempt) OR claimed_attempt < :attempt OR claimed_until < :now)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':attempt': attempt, ':until': untilMs, ':now': nowMs, ':pending': 'pending' },
    ReturnValues: 'ALL_NEW',
  });
  return claimed ? deliveryOf(claimed) : null;
}

/** Records attempt `attempts`' outcome, unless a later attempt's is recorded already (a late, redelivered message). */
export async function recordDelivery(
  webhookId: string,
  createdAt: string,
  eventId: string,
  outcome: { status: EndpointDeliveryRecord['status']; attempts: number; statusCode: number | null; nextAttemptAt: string | null },
): Promise<void> {
  await updateIf({
    TableName: tableName(),
    Key: webhookDeliveryKey(webhookId, createdAt, eventId),
    UpdateExpression: 'SET #status = :status, attempts = :attempts, last_status_code = :code, next_attempt_at = :next',
    ConditionExpression: 'attribute_exists(PK) AND attempts < :attempts',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':status': outcome.status,
      ':attempts': outcome.attempts,
      ':code': outcome.statusCode,
      ':next': outcome.nextAttemptAt,
    },
  });
}

/** One delivery, or null. */
export async function getDelivery(webhookId: string, createdAt: string, eventId: string): Promise<EndpointDeliveryRecord | null> {
  const item = await getItem(webhookDeliveryKey(webhookId, createdAt, eventId));
  return item ? deliveryOf(item) : null;
}

/** An endpoint's delivery of event `eventId`, wherever it sorts (the operator's look-up), or null. */
export async function findDelivery(webhookId: string, eventId: string): Promise<EndpointDeliveryRecord | null> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    FilterExpression: 'event_id = :id',
    ExpressionAttributeValues: { ...prefixValues(webhookDeliveriesPrefix(webhookId)), ':id': eventId },
    ConsistentRead: true,
  });
  return items[0] ? deliveryOf(items[0]) : null;
}

/**
 * Sets a finished delivery (delivered or failed) back to pending for one more round of attempts
 * (the operator's resend): the delivery as reopened, or null when there is none or it is still
 * pending. A pending one has an attempt queued or under way; reopening it would start a second
 * chain of attempts beside it.
 */
export async function reopenDelivery(webhookId: string, createdAt: string, eventId: string): Promise<EndpointDeliveryRecord | null> {
  const reopened = await updateIf({
    TableName: tableName(),
    Key: webhookDeliveryKey(webhookId, createdAt, eventId),
    UpdateExpression:
      'SET #status = :pending, attempts = :zero, last_status_code = :null, next_attempt_at = :null REMOVE claimed_attempt, claimed_until',
    ConditionExpression: 'attribute_exists(PK) AND #status <> :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pending': 'pending', ':zero': 0, ':null': null },
    ReturnValues: 'ALL_NEW',
  });
  return reopened ? deliveryOf(reopened) : null;
}

/**
 * An endpoint's deliveries, newest first, at most `limit`, only those of `status` when given (the
 * operator's look-up): pages of the partition read until enough match. `hasMore`: some older
 * one (that matches) was left out.
 */
export async function listDeliveriesWhere(
  webhookId: string,
  limit: number,
  status?: EndpointDeliveryRecord['status'],
): Promise<{ deliveries: EndpointDeliveryRecord[]; hasMore: boolean }> {
  const found: EndpointDeliveryRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: {
          ...prefixValues(webhookDeliveriesPrefix(webhookId)),
          ...(status ? { ':status': status } : {}),
        },
        ...(status ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } } : {}),
        ConsistentRead: true,
        ScanIndexForward: false,
        Limit: Math.max(limit + 1 - found.length, 100),
        ExclusiveStartKey: start,
      }),
    );
    found.push(...(result.Items ?? []).map(deliveryOf));
    start = result.LastEvaluatedKey;
  } while (start !== undefined && found.length <= limit);
  return { deliveries: found.slice(0, limit), hasMore: found.length > limit };
}

/** One page of an endpoint's deliveries, newest first. */
export async function listDeliveriesPage(
  webhookId: string,
  limit: number,
  afterSk?: string,
): Promise<{ deliveries: EndpointDeliveryRecord[]; hasMore: boolean; lastSk: string | null }> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: prefixValues(webhookDeliveriesPrefix(webhookId)),
      ConsistentRead: true,
      ScanIndexForward: false,
      Limit: limit + 1,
      ...(afterSk === undefined ? {} : { ExclusiveStartKey: { PK: webhookDeliveriesPartition(webhookId), SK: afterSk } }),
    }),
  );
  const items = (result.Items ?? []).slice(0, limit);
  return {
    deliveries: items.map(deliveryOf),
    hasMore: (result.Items ?? []).length > limit || result.LastEvaluatedKey !== undefined,
    lastSk: items.length > 0 ? String(items.at(-1)?.SK) : null,
  };
}
