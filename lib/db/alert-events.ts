/**
 * Alert events as stored, one item per event id (`ALERT_EVENT#<id>`): the first writer of an event
 * fixes its time and data; any later producer of the same id (a stream record delivered again, a
 * second charge crossing the same threshold in the same period) finds it and sends what is stored.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName, updateIf } from './client.ts';
import { alertEventKey } from './keys.ts';

export interface StoredEvent {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  data: unknown;
}

/** Kept past any period an event is unique in (a month), then the table's TTL removes it. */
const EVENT_RETENTION_SECONDS = 40 * 86_400;

/** Writes `event` unless its id exists; answers the event as stored (this one, or the first). */
export async function claimEvent(event: StoredEvent, nowMs: number): Promise<StoredEvent> {
  const written = await updateIf({
    TableName: tableName(),
    Key: alertEventKey(event.id),
    UpdateExpression: 'SET entity = :entity, #type = :type, created_at = :at, organization_id = :org, #data = :data, expires_at = :ttl',
    ConditionExpression: 'attribute_not_exists(PK)',
    ExpressionAttributeNames: { '#type': 'type', '#data': 'data' },
    ExpressionAttributeValues: {
      ':entity': 'alert_event',
      ':type': event.type,
      ':at': event.created_at,
      ':org': event.organization_id,
      ':data': event.data,
      ':ttl': Math.floor(nowMs / 1000) + EVENT_RETENTION_SECONDS,
    },
  });
  if (written) return event;
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: alertEventKey(event.id), ConsistentRead: true }));
  if (!Item) return event;
  return {
    id: event.id,
    type: Item.type as string,
    created_at: Item.created_at as string,
    organization_id: Item.organization_id as string,
    data: Item.data,
  };
}

/** One item's attributes (a scope's record, to read its limits), or undefined. */
export async function readItem(key: { PK: string; SK: string }): Promise<Record<string, unknown> | undefined> {
  return (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
}
