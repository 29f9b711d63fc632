/**
 * The audit log as stored (docs/audit.md): one item per change, in its organization's own
 * partition, put by the very transaction that makes the change (never a write of its own, so a
 * change never stands without its event, nor an event without its change), kept
 * AUDIT_RETENTION_DAYS and never updated or deleted. Item builders and the listing's Query; who
 * writes which event is the domain's.
 *
 * Adding an event to a change: put `auditEventPut(orgId, source, { type, target, changes, details }, now)`
 * last in the change's transaction, and name the type in the route's `audit` (lib/routes.ts).
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { auditRetentionDays } from '../config.ts';
import type { BillingEvent } from './billing-events.ts';
import { db, type TransactItem, tableName } from './client.ts';
import { auditEventAt, auditEventKey, auditEventPosition, auditEventRange } from './keys.ts';

/** Every type of the contract's table (DESIGN.md, "An audit log"), in its order. */
export const AUDIT_EVENT_TYPES = [
  'organization.created',
  'organization.updated',
  'member.added',
  'member.removed',
  'member.updated',
  'invitation.created',
  'invitation.resent',
  'invitation.revoked',
  'invitation.accepted',
  'api_key.created',
  'api_key.updated',
  'api_key.revoked',
  'alerts.updated',
  'webhook.created',
  'webhook.deleted',
  'asset.restored',
  'skill.restored',
  'conversation.restored',
  'project.restored',
  'credits.granted',
  'credits.deducted',
  'auto_recharge.updated',
  'payment_method.saved',
  'payment_method.removed',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'operator', 'system'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/** What an event is about. */
export const AUDIT_TARGET_TYPES = [
  'organization',
  'member',
  'invitation',
  'api_key',
  'webhook',
  'asset',
  'skill',
  'conversation',
  'project',
  'payment_method',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/**
 * Who made a change: a user (`id` their `sub`), an API key (its id, and `client_id` when an OAuth
 * consent minted it), an operator (their AWS principal ARN, or locally the OS user name), or the
 * system (`id` the mechanism: `oauth` for a reused token revoking its grant).
 */
export interface AuditActor {
  type: AuditActorType;
  id: string;
  client_id: string | null;
}

/** The actor and the request behind a change: what every event of that change records of its origin. */
export interface AuditSource {
  actor: AuditActor;
  /** The `x-request-id` of the answer; null for the operator and the system. */
  request_id: string | null;
  /** The address the request came from, as `allowed_ips` reads it; null for the operator and the system. */
  source_ip: string | null;
}

/** A change of one field, as the object's route shows it. */
export interface FieldChange {
  before: unknown;
  after: unknown;
}
export type AuditChanges = Record<string, FieldChange>;

/** An audit event exactly as the API shows it. */
export interface AuditEvent {
  id: string;
  organization_id: string;
  type: AuditEventType;
  /** ISO 8601 UTC with milliseconds: the change's instant. */
  occurred_at: string;
  actor: AuditActor;
  target: { type: AuditTargetType; id: string };
  changes: AuditChanges | null;
  details: Record<string, unknown>;
  request_id: string | null;
  source_ip: string | null;
}

/** What a change says of itself; the id, instant and origin are added when it is written. */
export interface AuditEventInput {
  type: AuditEventType;
  target: { type: AuditTargetType; id: string };
  changes?: AuditChanges | null;
  details?: Record<string, unknown>;
}

/** The operator of an admin CLI command (no request, no address). */
export const operatorSource = (principal: string): AuditSource => ({
  actor: { type: 'operator', id: principal, client_id: null },
  request_id: null,
  source_ip: null,
});

/**
 * A mechanism of the service itself: `oauth`, a reused token revoking its grant; `stripe`, a
 * completed setup checkout saving its card (the webhook, the reconciler or the CLI bringing
 * Stripe's event).
 */
export const systemSource = (mechanism: 'oauth' | 'stripe'): AuditSource => ({
  actor: { type: 'system', id: mechanism, client_id: null },
  request_id: null,
  source_ip: null,
});

/**
 * `aud_`, the instant in 12 hex digits of epoch ms, then a random UUID's 32 hex digits: ids sort as
 * their events do, and two events of one millisecond still differ.
 */
export const newAuditEventId = (at: Date): string =>
  `aud_${at.getTime().toString(16).padStart(12, '0')}${randomUUID().replaceAll('-', '')}`;

const sameSet = (a: unknown, b: unknown): boolean => {
  if (!Array.isArray(a) || !Array.isArray(b)) return JSON.stringify(a) === JSON.stringify(b);
  const left = new Set(a.map(String));
  const right = new Set(b.map(String));
  return left.size === right.size && [...left].every((value) => right.has(value));
};

/** Fields compared as sets (an organization's networks: their order means nothing). */
const SET_FIELDS = new Set(['networks']);

/**
 * Exactly the fields among `fields` whose value differs between `before` and `after`, each `{
 * before, after }`; null when none does (a change of nothing writes no event).
 */
export function changesOf<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]): AuditChanges | null {
  const changes: AuditChanges = {};
  for (const field of fields) {
    const [was, is] = [before[field] ?? null, after[field] ?? null];
    const same = SET_FIELDS.has(field) ? sameSet(was, is) : JSON.stringify(was) === JSON.stringify(is);
    if (!same) changes[field] = { before: was, after: is };
  }
  return Object.keys(changes).length > 0 ? changes : null;
}

/** The event a change writes: its id and instant (the change's `now`), its origin, and what it says. */
export function newAuditEvent(orgId: string, source: AuditSource, input: AuditEventInput, now: Date): AuditEvent {
  return {
    id: newAuditEventId(now),
    organization_id: orgId,
    type: input.type,
    occurred_at: now.toISOString(),
    actor: source.actor,
    target: input.target,
    changes: input.changes ?? null,
    details: input.details ?? {},
    request_id: source.request_id,
    source_ip: source.source_ip,
  };
}

/**
 * The transaction item that writes the event: a conditional put of a new item (an event is
 * written once and never replaced), expiring after AUDIT_RETENTION_DAYS. Put it last in the
 * change's transaction: a failure of its condition fails the change, answered 500
 * (`AuditWriteFailed`, lib/db/client.ts).
 */
export function auditEventPut(orgId: string, source: AuditSource, input: AuditEventInput, now: Date): TransactItem {
  const event = newAuditEvent(orgId, source, input, now);
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...auditEventKey(orgId, event.occurred_at, event.id),
        entity: 'audit_event',
        ...event,
        expires_at: Math.floor(now.getTime() / 1000) + auditRetentionDays() * 86_400,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

const EVENT_FIELDS = [
  'id',
  'organization_id',
  'type',
  'occurred_at',
  'actor',
  'target',
  'changes',
  'details',
  'request_id',
  'source_ip',
] as const;

/** An event item as the API shows it (the table's keys and TTL left out). */
export const auditEventOf = (item: Record<string, unknown>): AuditEvent =>
  Object.fromEntries(EVENT_FIELDS.map((field) => [field, item[field] ?? (field === 'details' ? {} : null)])) as unknown as AuditEvent;

/** The filters of a listing, all applied. */
export interface AuditFilters {
  /** Inclusive, ISO 8601 UTC with milliseconds; null: from the first event kept. */
  from: string | null;
  /** Exclusive; null: to the last. */
  to: string | null;
  types?: readonly AuditEventType[] | undefined;
  actorId?: string | undefined;
  targetId?: string | undefined;
}

export interface AuditEventsPage {
  events: AuditEvent[];
  hasMore: boolean;
  /** Where the next page starts (the sort key of the last event read, without its prefix), when hasMore. */
  next: string | undefined;
}

/**
 * Queries a page may send while a filter skips events: each reads up to 1 MB of the partition
 * (some 2,000 events), so a page looks through about 10,000 before answering what it found, with
 * `has_more` and a cursor where it stopped.
 */
const MAX_QUERIES_A_PAGE = 5;

/**
 * One page of an organization's events, newest first, within the window and matching every
 * filter: consistent Queries of its partition (an event is listed the moment its change is
 * answered), never a Scan. Without a filter but the window, one Query of `limit + 1`.
 */
export async function listAuditEventsPage(orgId: string, filters: AuditFilters, limit: number, after?: string): Promise<AuditEventsPage> {
  const range = auditEventRange(orgId, filters.from, filters.to);
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': range.PK, ':from': range.from, ':to': range.to };
  if (filters.types?.length) {
    names['#type'] = 'type';
    const keys = filters.types.map((type, i) => {
      values[`:type${i}`] = type;
      return `:type${i}`;
    });
    conditions.push(`#type IN (${keys.join(', ')})`);
  }
  if (filters.actorId !== undefined) {
    Object.assign(names, { '#actor': 'actor', '#id': 'id' });
    values[':actor'] = filters.actorId;
    conditions.push('#actor.#id = :actor');
  }
  if (filters.targetId !== undefined) {
    Object.assign(names, { '#target': 'target', '#id': 'id' });
    values[':target'] = filters.targetId;
    conditions.push('#target.#id = :target');
  }
  const filtered = conditions.length > 0;
  const events: AuditEvent[] = [];
  const positions: string[] = [];
  let start: Record<string, unknown> | undefined = after === undefined ? undefined : auditEventAt(orgId, after);
  for (let query = 1; query <= MAX_QUERIES_A_PAGE; query += 1) {
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: values,
        ...(filtered ? { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names } : {}),
        ConsistentRead: true,
        ScanIndexForward: false,
        // One more than the page: whether more remain is known without another Query.
        ...(filtered ? {} : { Limit: limit + 1 - events.length }),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of result.Items ?? []) {
      events.push(auditEventOf(item));
      positions.push(auditEventPosition(String(item.SK)));
    }
    if (events.length > limit) return { events: events.slice(0, limit), hasMore: true, next: positions[limit - 1] };
    if (!result.LastEvaluatedKey) return { events, hasMore: false, next: undefined };
    start = result.LastEvaluatedKey;
  }
  // The page's reads are spent: what was found, and a cursor where the reading stopped.
  return { events, hasMore: true, next: auditEventPosition(String(start?.SK)) };
}

/** The event of an operator's grant or deduction (the admin CLI): its signed amount, reason and billing event. */
export const creditsEvent = (orgId: string, event: BillingEvent, reason: string, source: AuditSource, now: Date): TransactItem =>
  auditEventPut(
    orgId,
    source,
    {
      type: event.amount < 0 ? 'credits.deducted' : 'credits.granted',
      target: { type: 'organization', id: orgId },
      details: { amount: event.amount, reason, billing_event_id: event.id },
    },
    now,
  );
