/**
 * Listing billing events page by page. The first page fixes the window (`days` back from now)
 * and every cursor carries that end, so following cursors lists each event of the window once,
 * newest first, while new events (created after the end) are written. One DynamoDB round trip:
 * the membership and the page are read together (with the rate-limit counter over HTTP), and a
 * caller who may not list gets the same answer as if the page had not been read.
 */
import { membershipOfCaller } from '../auth/access.ts';
import { cursorSigningKey } from '../config.ts';
import { type BillingEvent, listBillingEventsPage } from '../db/billing-events.ts';
import { notFound, onlyOwnersListEvents, validationFailed } from '../errors.ts';
import type { Caller } from '../model.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';

const DAY_MS = 86_400_000;

export interface EventsQuery {
  days: number;
  limit: number;
  cursor?: string | undefined;
}

export interface EventsPage {
  events: BillingEvent[];
  next_cursor: string | null;
  has_more: boolean;
}

/** Owners only; a non-member (or an unknown organization) gets 404. A bad cursor is a 400, before any read. */
export async function listEvents(caller: Caller, orgId: string, query: EventsQuery, nowMs = Date.now()): Promise<EventsPage> {
  const key = cursorSigningKey();
  const position = query.cursor === undefined ? undefined : decodeCursor(query.cursor, key, { orgId, days: query.days });
  if (typeof position === 'string') throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: position }]);
  const endMs = position?.endMs ?? nowMs;
  const [membership, page] = await Promise.all([
    membershipOfCaller(caller, orgId),
    listBillingEventsPage(orgId, { since: new Date(endMs - query.days * DAY_MS), until: new Date(endMs) }, query.limit, position?.after),
  ]);
  if (!membership) throw notFound();
  if (membership.role !== 'owner') throw onlyOwnersListEvents();
  return {
    events: page.events,
    next_cursor: page.next === undefined ? null : encodeCursor({ orgId, days: query.days, endMs, after: page.next }, key),
    has_more: page.hasMore,
  };
}
