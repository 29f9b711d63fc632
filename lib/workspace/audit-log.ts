/**
 * The audit log as its owners read it (`GET /organizations/{id}/audit-events`, docs/audit.md) and
 * as an operator does (`npm run admin -- audit list`): newest first, every filter applied, paged by
 * a cursor bound to the organization and every filter. One round trip for a page without filters:
 * the owner check and the page's consistent Query together, so an event is listed the moment its
 * change is answered.
 */
import { createHash } from 'node:crypto';
import { membershipOfCaller, refuseApiKeys } from '../auth/access.ts';
import { cursorSigningKey } from '../config.ts';
import { AUDIT_EVENT_TYPES, type AuditEvent, type AuditEventType, type AuditFilters, listAuditEventsPage } from '../db/audit-events.ts';
import { type Issue, notFound, onlyOwnersReadAuditLog, validationFailed } from '../errors.ts';
import type { Caller } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';

/** The most types one `type` filter names. */
export const MAX_TYPES = 20;

/** The query as the route and the CLI take it: strings, checked here. */
export interface AuditLogQuery {
  type?: string | undefined;
  actor_id?: string | undefined;
  target_id?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface AuditLogPage {
  events: AuditEvent[];
  next_cursor: string | null;
  has_more: boolean;
}

const KNOWN = new Set<string>(AUDIT_EVENT_TYPES);

/**
 * The filters of a query, or a 400 naming each bad one: `type` 1 to 20 known types, comma-separated;
 * `from` before `to` when both are given (a reversed window names `to`). Each parameter's own form
 * (a timestamp, an id's length) is the route's schema's to check.
 */
export function auditFiltersOf(query: Omit<AuditLogQuery, 'limit' | 'cursor'>): AuditFilters {
  const issues: Issue[] = [];
  let types: AuditEventType[] | undefined;
  if (query.type !== undefined) {
    const named = query.type.split(',');
    const unknown = named.filter((type) => !KNOWN.has(type));
    if (unknown.length > 0 || named.length > MAX_TYPES)
      issues.push({
        path: ['query', 'type'],
        code: 'invalid_type',
        message:
          unknown.length > 0
            ? `names no audit event type: "${unknown[0]}" (the types: ${AUDIT_EVENT_TYPES.join(', ')})`
            : `must name at most ${MAX_TYPES} types`,
      });
    else types = named as AuditEventType[];
  }
  const [from, to] = [query.from, query.to].map((instant) => (instant === undefined ? null : new Date(instant).toISOString()));
  if (from && to && to <= from) issues.push({ path: ['query', 'to'], code: 'invalid_window', message: 'must be after from' });
  if (issues.length > 0) throw validationFailed(issues);
  return { from: from ?? null, to: to ?? null, types, actorId: query.actor_id, targetId: query.target_id };
}

/** A cursor's scope: the listing, the organization and a digest of every filter, as given. */
const cursorScope = (orgId: string, filters: AuditFilters) =>
  `audit-events:${orgId}:${createHash('sha256')
    .update(JSON.stringify([filters.types ?? null, filters.actorId ?? null, filters.targetId ?? null, filters.from, filters.to]))
    .digest('base64url')}`;

/** A query's filters, its cursor's scope and key, and where the page starts: a 400 before anything is read. */
function positionOf(orgId: string, query: AuditLogQuery, key: string) {
  const filters = auditFiltersOf(query);
  const scope = cursorScope(orgId, filters);
  const opened = query.cursor === undefined ? undefined : openCursor(query.cursor, key, scope);
  if (opened && 'problem' in opened)
    throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: opened.problem }]);
  return { filters, scope, key, after: opened?.position };
}

async function readPage(
  orgId: string,
  filters: AuditFilters,
  limit: number,
  scope: string,
  key: string,
  after?: string,
): Promise<AuditLogPage> {
  const page = await listAuditEventsPage(orgId, filters, limit, after);
  return {
    events: page.events,
    next_cursor: page.hasMore && page.next ? sealCursor(scope, page.next, key) : null,
    has_more: page.hasMore,
  };
}

/**
 * Owners with a user's token; an API key 403 `api_key_not_allowed`, another member 403, anyone else
 * 404. The filters and the cursor are checked before anything is read.
 */
export async function listAuditLog(caller: Caller, orgId: string, query: AuditLogQuery): Promise<AuditLogPage> {
  const { filters, scope, key, after } = positionOf(orgId, query, cursorSigningKey());
  refuseApiKeys(caller, orgId);
  const [member, page] = await Promise.all([membershipOfCaller(caller, orgId), readPage(orgId, filters, query.limit, scope, key, after)]);
  if (!member) throw notFound();
  if (member.role !== 'owner') throw onlyOwnersReadAuditLog();
  return page;
}

/**
 * The operator's read (the admin CLI): the route's filters and page, of any organization, its
 * cursors signed with `cursorKey` (the CLI's own: it has not the deployment's).
 */
export async function readAuditLog(orgId: string, query: AuditLogQuery, cursorKey: string): Promise<AuditLogPage> {
  const { filters, scope, key, after } = positionOf(orgId, query, cursorKey);
  return readPage(orgId, filters, query.limit, scope, key, after);
}
