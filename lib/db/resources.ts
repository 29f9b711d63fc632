import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { config } from '../config.ts';
import { defined } from '../defined.ts';
import { conflict, notFound } from '../errors.ts';
import type { ResourceKind } from '../model.ts';
import { type AuditEventType, type AuditSource, auditEventPut } from './audit-events.ts';
import { cancellationCodes, cancellationReasons, db, type TransactItem, tableName } from './client.ts';
import { projectSlugKey, resourceKey, skillNameKey, trashIndexKey } from './keys.ts';
import type { AnyRecord, ConversationRecord, ProjectRecord, RecordOf, SkillRecord } from './resource-records.ts';
import type { TableKey } from './table.ts';

/**
 * A uniqueness claim held by a live resource: a project's slug, a custom skill's name.
 * Each claim is its own item, so "no two live projects share a slug" is a condition on a
 * single key that a transaction can check and take atomically.
 */
export interface Claim {
  key: TableKey;
  conflictCode: 'slug_taken' | 'name_taken';
  message: string;
}

export function claimsOf(kind: ResourceKind, record: AnyRecord): Claim[] {
  if (kind === 'project') {
    const project = record as ProjectRecord;
    return [
      {
        key: projectSlugKey(project.organization_id, project.slug),
        conflictCode: 'slug_taken',
        message: `slug "${project.slug}" is taken by a live project`,
      },
    ];
  }
  if (kind === 'skill') {
    const skill = record as SkillRecord;
    if (skill.source === 'custom' && skill.organization_id) {
      return [
        {
          key: skillNameKey(skill.organization_id, skill.name),
          conflictCode: 'name_taken',
          message: `name "${skill.name}" is taken by a live custom skill`,
        },
      ];
    }
  }
  return [];
}

/** Takes a claim for `ownerId`; succeeds if free or already held by the same resource (retries). */
export const takeClaim = (claim: Claim, ownerId: string): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...claim.key, entity: 'claim', owner_id: ownerId },
    ConditionExpression: 'attribute_not_exists(PK) OR owner_id = :owner',
    ExpressionAttributeValues: { ':owner': ownerId },
  },
});

/** Releases a claim only if this resource holds it. */
export const releaseClaim = (claim: Claim, ownerId: string): TransactItem => ({
  Delete: {
    TableName: tableName(),
    Key: claim.key,
    ConditionExpression: 'attribute_not_exists(PK) OR owner_id = :owner',
    ExpressionAttributeValues: { ':owner': ownerId },
  },
});

/** A condition that a project exists, belongs to `orgId` and is not deleted. */
export const liveParentCheck = (projectId: string, orgId: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: resourceKey('project', projectId),
    ConditionExpression: 'attribute_exists(PK) AND organization_id = :org AND attribute_type(deleted_at, :null)',
    ExpressionAttributeValues: { ':org': orgId, ':null': 'NULL' },
  },
});

const nowIso = (now: Date) => now.toISOString();

export async function getResource<K extends ResourceKind>(kind: K, id: string): Promise<RecordOf[K] | null> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: resourceKey(kind, id), ConsistentRead: true }));
  return (result.Item as RecordOf[K] | undefined) ?? null;
}

/**
 * Stores a new live resource together with its claims (and, for a conversation in a project,
 * a check that the project is live), in one transaction: a taken slug or name gives 409.
 */
export async function createResource<K extends ResourceKind>(kind: K, record: RecordOf[K]): Promise<RecordOf[K]> {
  const needs = dependencies(kind, record);
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: { ...resourceKey(kind, record.id), entity: kind, ...record },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    ...needs.items,
  ];
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    const codes = cancellationCodes(error);
    if (!codes) throw error;
    if (codes[0] === 'ConditionalCheckFailed') throw new Error(`${kind} ${record.id} already exists`);
    needs.refuse(codes.slice(1));
    throw error;
  }
  return record;
}

/**
 * What a live resource needs besides its own item: its slug or name claims, and for a
 * conversation in a project, that project live. `items` join the resource's write in one
 * transaction; `refuse` throws the 409 their cancellation codes (in the same order) mean.
 */
function dependencies(kind: ResourceKind, record: AnyRecord) {
  const claims = claimsOf(kind, record);
  const projectId = kind === 'conversation' ? (record as ConversationRecord).project_id : null;
  const items: TransactItem[] = claims.map((claim) => takeClaim(claim, record.id));
  if (projectId) items.push(liveParentCheck(projectId, defined(record.organization_id, "a conversation's organization_id")));
  const refuse = (codes: (string | undefined)[]): void => {
    claims.forEach((claim, i) => {
      if (codes[i] === 'ConditionalCheckFailed') throw conflict(claim.conflictCode, claim.message);
    });
    if (projectId && codes[claims.length] === 'ConditionalCheckFailed') {
      throw conflict('parent_deleted', `project ${projectId} is deleted (restore it first) or no longer exists`);
    }
  };
  return { items, refuse };
}

/**
 * Soft-deletes a live resource: stamps deleted_at/deleted_by_id, sets the purge time (TTL)
 * at the end of the restore window, and releases its claims so the slug or name is free.
 * Deleting a deleted resource changes nothing and returns it as it is.
 */
export async function softDeleteResource<K extends ResourceKind>(kind: K, id: string, by: string, at = new Date()): Promise<RecordOf[K]> {
  const current = await getResource(kind, id);
  if (!current) throw notFound();
  if (current.deleted_at) return current;
  const purgeAt = Math.floor(at.getTime() / 1000) + config().restoreWindowDays * 86_400;
  // A skill without an organization (built-in) lists in no organization's trash.
  const trash = trashIndexKey(current.organization_id ?? '', nowIso(at), kind, id);
  const update: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: resourceKey(kind, id),
      UpdateExpression:
        'SET deleted_at = :at, deleted_by_id = :by, updated_at = :at, expires_at = :purge, GSI1PK = :trash, GSI1SK = :trashed',
      ConditionExpression: 'attribute_exists(PK) AND attribute_type(deleted_at, :null)',
      ExpressionAttributeValues: {
        ':at': nowIso(at),
        ':by': by,
        ':purge': purgeAt,
        ':null': 'NULL',
        ':trash': trash.GSI1PK,
        ':trashed': trash.GSI1SK,
      },
    },
  };
  try {
    await db().send(
      new TransactWriteCommand({ TransactItems: [update, ...claimsOf(kind, current).map((claim) => releaseClaim(claim, id))] }),
    );
  } catch (error) {
    // Someone else deleted it first: their deletion stands.
    if (cancellationCodes(error)?.[0] !== 'ConditionalCheckFailed') throw error;
  }
  return defined(await getResource(kind, id), `${kind} ${id} after its write`);
}

/** Archives a project (idempotent: an archived project keeps its first archive stamp). */
export async function archiveProject(id: string, by: string, at = new Date()): Promise<ProjectRecord> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: resourceKey('project', id),
        UpdateExpression: 'SET archived_at = :at, archived_by_id = :by, updated_at = :at',
        ConditionExpression: 'attribute_exists(PK) AND attribute_type(archived_at, :null)',
        ExpressionAttributeValues: { ':at': nowIso(at), ':by': by, ':null': 'NULL' },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return result.Attributes as ProjectRecord;
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    const current = await getResource('project', id);
    if (!current) throw notFound();
    return current;
  }
}

/** What a restore write found: done, or the resource was not in the state it was read in. */
export type RestoreWrite<K extends ResourceKind> =
  | { outcome: 'restored'; record: RecordOf[K] }
  /** The item changed (or vanished) since it was read: `current` is its state now, from the failed write. */
  | { outcome: 'stale'; current: RecordOf[K] | null }
  /** Another transaction held one of the items (real DynamoDB only): try the same write again. */
  | { outcome: 'contended' };

/** The instant a restore stamps: now, but never at or before the stored updated_at (clock skew). */
export function restoreStamp(read: AnyRecord, now: Date): string {
  const previous = Date.parse(read.updated_at);
  return new Date(Number.isNaN(previous) ? now.getTime() : Math.max(now.getTime(), previous + 1)).toISOString();
}

/**
 * Restores a deleted resource exactly as it was read, in ONE request: a transaction of its update,
 * its slug/name claim and (conversation in a project) the check that the project is live, and its
 * `<kind>.restored` audit event (the deletion it undoes in its `changes`).
 *
 * The update is conditional on `deleted_at` and `updated_at` still being what was read, so the
 * returned record is exact, and a concurrent writer makes this write fail with the item's
 * current state (ReturnValuesOnConditionCheckFailure) instead of needing another read. The TTL
 * attribute is removed: a live item must never be purged.
 */
export async function restoreResourceWrite<K extends ResourceKind>(
  kind: K,
  read: RecordOf[K],
  source: AuditSource,
  now = new Date(),
): Promise<RestoreWrite<K>> {
  if (!read.deleted_at) throw new Error(`${kind} ${read.id} is not deleted`);
  const orgId = defined(read.organization_id, `the organization of ${kind} ${read.id}`);
  const updatedAt = restoreStamp(read, now);
  const restored = { ...read, deleted_at: null, deleted_by_id: null, updated_at: updatedAt } as RecordOf[K] & { expires_at?: number };
  delete restored.expires_at;
  const update = {
    TableName: tableName(),
    Key: resourceKey(kind, read.id),
    UpdateExpression: 'SET deleted_at = :null, deleted_by_id = :null, updated_at = :now REMOVE expires_at, GSI1PK, GSI1SK',
    ConditionExpression: 'deleted_at = :deleted AND updated_at = :read',
    ExpressionAttributeValues: { ':null': null, ':now': updatedAt, ':deleted': read.deleted_at, ':read': read.updated_at },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  const needs = dependencies(kind, read);
  const changes = {
    deleted_at: { before: read.deleted_at, after: null },
    deleted_by_id: { before: read.deleted_by_id ?? null, after: null },
  };
  const event = auditEventPut(orgId, source, { type: RESTORED[kind], target: { type: kind, id: read.id }, changes }, now);

  try {
    await db().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...needs.items, event] }));
    return { outcome: 'restored', record: restored };
  } catch (error) {
    const codes = cancellationCodes(error);
    if (!codes) throw error;
    // The resource itself first: if it moved on, the other checks were made against a stale read.
    if (codes[0] === 'ConditionalCheckFailed') {
      const reasons = cancellationReasons(error) ?? [];
      return { outcome: 'stale', current: oldItem<K>(reasons[0]?.Item) };
    }
    needs.refuse(codes.slice(1));
    if (codes.includes('TransactionConflict')) return { outcome: 'contended' };
    throw error;
  }
}

/** Each kind's restore event. */
const RESTORED = {
  asset: 'asset.restored',
  skill: 'skill.restored',
  conversation: 'conversation.restored',
  project: 'project.restored',
} as const satisfies Record<ResourceKind, AuditEventType>;

/** The item a failed condition returned (raw attribute values), or null if it does not exist. */
function oldItem<K extends ResourceKind>(item: Record<string, AttributeValue> | undefined): RecordOf[K] | null {
  return item ? (unmarshall(item) as RecordOf[K]) : null;
}
