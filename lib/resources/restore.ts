/**
 * The one restore mechanism behind the four restore endpoints (asset, skill, conversation,
 * project). Two sequential DynamoDB round trips: the resource and the caller's memberships are
 * read together (alongside the rate-limit counter), then one conditional write or transaction.
 */
import { auditSourceOf, membershipsOfCaller } from '../auth/access.ts';
import { config } from '../config.ts';
import type { Membership } from '../db/memberships.ts';
import { getResource, restoreResourceWrite } from '../db/resources.ts';
import { defined } from '../defined.ts';
import { internalError, mayNotRestore, notFound, restoreWindowPassed } from '../errors.ts';
import { logger } from '../log.ts';
import type { Caller, ResourceKind, Role } from '../model.ts';
import { type AnyRecord, type RecordOf, workspaceRole } from './model.ts';

/** What the caller may do with a resource, decided from the stored item alone. */
export type Access =
  | { allowed: true; role: Role }
  | { allowed: false; status: 403 | 404 }
  /** A member who could read it asks after the restore window: told so (404 all the same). */
  | { allowed: false; status: 404; windowPassedAtMs: number };

/** A stored item may carry the TTL attribute next to the API fields. */
type Stored = AnyRecord & { expires_at?: number };

/**
 * When a deleted resource stops being restorable: its stored TTL (`expires_at`, set at deletion
 * from RESTORE_WINDOW_DAYS), or deleted_at + the window for an item deleted without one.
 */
export function purgeTimeMs(record: Stored): number | null {
  if (!record.deleted_at) return null;
  if (typeof record.expires_at === 'number') return record.expires_at * 1000;
  return Date.parse(record.deleted_at) + config().restoreWindowDays * 86_400_000;
}

/**
 * DESIGN.md "Authentication and roles", in the documented order: whoever cannot read the
 * resource gets 404 (no such id, other organization, not a member, purged, not a custom skill,
 * private and neither its creator nor an owner); whoever can read it but may not restore it
 * (a viewer) gets 403. The rules are the same whether the resource is deleted or live, so a
 * retry after a successful restore gets the same answer as the first try.
 */
export function restoreAccess(kind: ResourceKind, record: Stored | null, userId: string, memberships: Membership[], now: Date): Access {
  const hidden: Access = { allowed: false, status: 404 };
  if (!record?.organization_id) return hidden;
  if (kind === 'skill' && (record as RecordOf['skill']).source !== 'custom') return hidden;
  const membership = memberships.find((m) => m.organization_id === record.organization_id);
  if (!membership) return hidden;
  const isCreator = record.created_by_id === userId;
  const canRead = record.visibility !== 'private' || isCreator || membership.role === 'owner';
  if (!canRead) return hidden;
  const purgeAt = purgeTimeMs(record);
  if (purgeAt !== null && purgeAt <= now.getTime()) return { allowed: false, status: 404, windowPassedAtMs: purgeAt };
  if (membership.role === 'viewer') return { allowed: false, status: 403 };
  return { allowed: true, role: workspaceRole(record, userId, membership.role) };
}

/** How often a write that lost a race to another transaction is tried again (real DynamoDB only). */
const MAX_ATTEMPTS = 5;
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));

export interface Restored<K extends ResourceKind> {
  record: RecordOf[K];
  /** The caller's `workspace_role` on the resource. */
  role: Role;
}

/**
 * Restores resource `id` of `kind` for `caller`.
 *
 * A resource that is not deleted is returned unchanged (retries are safe; no event is written).
 * A restore writes its `<kind>.restored` event with it. When the write
 * finds the item changed since it was read (a concurrent restore, a new deletion), the checks
 * run again on the state the failed write returned, without another read: concurrent restores
 * all answer 200 with the state the winner wrote.
 */
export async function restoreResource<K extends ResourceKind>(kind: K, id: string, caller: Caller): Promise<Restored<K>> {
  const { userId } = caller;
  const [read, memberships] = await Promise.all([getResource(kind, id), membershipsOfCaller(caller)]);
  // The organization is known only now: on this request's later log lines, its `request` line included.
  if (read?.organization_id) logger.appendKeys({ organization_id: read.organization_id });
  let record: RecordOf[K] | null = read;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const now = new Date();
    const access = restoreAccess(kind, record, userId, memberships, now);
    if (!access.allowed) {
      if ('windowPassedAtMs' in access) throw restoreWindowPassed(new Date(access.windowPassedAtMs).toISOString());
      throw access.status === 404 ? notFound() : mayNotRestore();
    }
    const found = defined(record, `${kind} ${id}`);
    if (!found.deleted_at) return { record: found, role: access.role };
    const write = await restoreResourceWrite(kind, found, await auditSourceOf(caller), now);
    if (write.outcome === 'restored') return { record: write.record, role: access.role };
    if (write.outcome === 'stale') record = write.current;
    else await pause(attempt);
  }
  throw internalError('the resource is being changed by other requests; retry with backoff');
}
