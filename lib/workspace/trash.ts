/**
 * `GET /organizations/{id}/trash`: the soft-deleted resources the caller could restore, newest
 * deletion first, within the restore window. Owners see everything; editors what is not private
 * and what they created (the restore rules, lib/resources/restore.ts); viewers 403; anyone else
 * 404. Served by the trash entries of GSI1 (no Scan); the caller's membership is read beside the
 * first page.
 */
import { membershipOfCaller } from '../auth/access.ts';
import { config, cursorSigningKey } from '../config.ts';
import type { AnyRecord, RecordOf } from '../db/resource-records.ts';
import { readTrashPage, type TrashedRecord } from '../db/trash.ts';
import { forbidden, notFound, validationFailed } from '../errors.ts';
import type { Caller, ResourceKind, Role } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';

export interface TrashItem {
  kind: ResourceKind;
  id: string;
  /** A skill's `name`; the others' `title`. */
  title: string | null;
  deleted_at: string;
  deleted_by_id: string | null;
  /** When the resource can no longer be restored. */
  restore_until: string;
}

export interface TrashPage {
  items: TrashItem[];
  next_cursor: string | null;
  has_more: boolean;
}

const DAY_MS = 86_400_000;
/** Entries read per Query: more than a page, since an editor may see only part of what is read. */
const READ_BATCH = 100;

const cursorScope = (orgId: string, kind: ResourceKind | undefined) => `trash:${orgId}:${kind ?? '*'}`;

/** Whether a member with `role` could restore it (lib/resources/restore.ts: owners all; editors not private, or their own). */
const restorableBy = (record: AnyRecord, userId: string, role: Role): boolean =>
  role === 'owner' || record.visibility !== 'private' || ('created_by_id' in record && record.created_by_id === userId);

const itemOf = (entry: TrashedRecord, windowMs: number): TrashItem => {
  const deletedAt = entry.record.deleted_at ?? '';
  const expires = (entry.record as AnyRecord & { expires_at?: number }).expires_at;
  const until = typeof expires === 'number' ? expires * 1000 : Date.parse(deletedAt) + windowMs;
  const title =
    entry.kind === 'skill' ? (entry.record as RecordOf['skill']).name : ((entry.record as { title?: string | null }).title ?? null);
  return {
    kind: entry.kind,
    id: entry.record.id,
    title: title ?? null,
    deleted_at: deletedAt,
    deleted_by_id: entry.record.deleted_by_id,
    restore_until: new Date(until).toISOString(),
  };
};

export async function listTrash(
  caller: Caller,
  orgId: string,
  query: { limit: number; cursor?: string | undefined; kind?: ResourceKind | undefined },
  now = new Date(),
): Promise<TrashPage> {
  const key = cursorSigningKey();
  const scope = cursorScope(orgId, query.kind);
  const opened = query.cursor === undefined ? undefined : openCursor(query.cursor, key, scope);
  if (opened && 'problem' in opened)
    throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: opened.problem }]);
  const windowMs = config().restoreWindowDays * DAY_MS;
  const since = new Date(now.getTime() - windowMs).toISOString();
  const read = (after: string | undefined) => readTrashPage(orgId, since, { limit: READ_BATCH, after, kind: query.kind });
  const [member, first] = await Promise.all([membershipOfCaller(caller, orgId), read(opened?.position)]);
  if (!member) throw notFound();
  if (member.role === 'viewer') throw forbidden('viewers cannot restore resources, so they have no trash; an editor or owner can');

  // One entry more than the page tells whether another page follows.
  const visible: TrashedRecord[] = [];
  let page = first;
  for (;;) {
    for (const entry of page.entries) {
      const purged = Date.parse(itemOf(entry, windowMs).restore_until) <= now.getTime();
      if (!purged && restorableBy(entry.record, caller.userId, member.role)) visible.push(entry);
      if (visible.length > query.limit) break;
    }
    if (visible.length > query.limit || page.next === undefined) break;
    page = await read(page.next);
  }
  const items = visible.slice(0, query.limit);
  const hasMore = visible.length > query.limit;
  const last = items.at(-1);
  return {
    items: items.map((entry) => itemOf(entry, windowMs)),
    next_cursor: hasMore && last ? sealCursor(scope, last.position, key) : null,
    has_more: hasMore,
  };
}
