/**
 * The grants ledger (docs/funding.md, "Grants and expiry"): a consumer of the table's change stream
 * that applies each billing event to the organization's grants, off the request path, as usage
 * derives its counters (lib/usage/aggregate.ts). A run's charge keeps its one transaction and its
 * round trips; the ledger draws it within seconds.
 *
 * - A charge, a deduction or a reversal draws the grants with credits left, the one expiring
 *   soonest first (no expiry last; ties: the oldest), a reversal its own grant (`grant_id`) first;
 *   what no grant has becomes the ledger's `debt`. Its marker records what it drew.
 * - A refund returns to the grants its charge drew (its marker), its debt part paying the debt
 *   (any rest: to the newest grant). Credits returned to an expired grant expire at once: one more
 *   `credits.expired` event in the same transaction (if the balance still holds them; else the
 *   grant is due to the expiry function again, which never takes the balance below zero).
 * - A grant (or purchase) event: its grant, written with it at `remaining` = `credits`, pays the
 *   debt first. An event that added credits without a grant (history written before grants, a
 *   test's sample) gets one here.
 *
 * Exactly once: every event's marker goes in the transaction that applies it (only if absent), and
 * that transaction holds only while the ledger and every grant it changes are at the versions read;
 * a conflict (a concurrent batch, the expiry) reads again. Out of order: a refund whose charge is
 * not drawn yet fails its record, and the batch comes again from it (the mapping's retries,
 * `TABLE_STREAM_RETRY_ATTEMPTS`) while the charge's shard catches up.
 *
 * An organization from before grants: the first time the ledger meets it, its history up to a
 * cutoff 15 minutes back (no transaction commits later than that after its `created_at`: the longest
 * function runs 15 minutes) becomes one `operator` grant, and the events after the cutoff are
 * applied from the table, each under its marker, so the stream's copies of them are skipped.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { type BillingEvent, billingEventPut, listAllBillingEvents, newBillingEvent } from '../db/billing-events.ts';
import { type TransactItem, transact } from '../db/client.ts';
import {
  type Draw,
  type Grant,
  type GrantLedger,
  type GrantRecord,
  grantPut,
  grantUpdate,
  ledgerPut,
  ledgerUpdate,
  markerPut,
  readGrantState,
  readMarkers,
  statusOf,
} from '../db/grants.ts';
import { grantKey, ORG_PARTITION_PREFIX, orgIdOfPartition } from '../db/keys.ts';
import { expiryOrgItem } from '../db/organizations.ts';
import { defined } from '../defined.ts';
import { logError, logger } from '../log.ts';
import { type ChangeRecord, compareSequenceNumbers, type StreamConsumer } from '../stream/dispatch.ts';
import type { FilterPattern } from '../stream/filter.ts';

/** What draws (negative), returns (a refund) or adds (a grant, a purchase). `credits.expired` is written with its grant's change: never applied twice. */
export const LEDGER_EVENT_TYPES = [
  'social_operation.charged',
  'social_operation.refunded',
  'credits.granted',
  'credits.deducted',
  'credits.purchased',
  'credits.reversed',
] as const;

export const LEDGER_FILTERS: readonly FilterPattern[] = [
  { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['billing_event'] }, type: { S: LEDGER_EVENT_TYPES } } } },
];

/** How far back a legacy organization's history is taken as settled: the longest a function runs. */
export const LEGACY_CUTOFF_MS = 15 * 60_000;

const ledgerEventSchema = z.object({
  PK: z.string().check(z.startsWith(ORG_PARTITION_PREFIX)),
  id: z.string().check(z.minLength(1)),
  type: z.enum(LEDGER_EVENT_TYPES),
  created_at: z.iso.datetime(),
  amount: z.int(),
  metadata: z.optional(z.record(z.string(), z.string())),
});

export interface LedgerEvent {
  sequenceNumber: string;
  orgId: string;
  id: string;
  type: (typeof LEDGER_EVENT_TYPES)[number];
  amount: number;
  createdAt: string;
  metadata: Record<string, string>;
}

export function ledgerEventOf(record: ChangeRecord): LedgerEvent | string {
  const parsed = ledgerEventSchema.safeParse(record.newImage);
  if (!parsed.success) return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  const { PK, id, type, created_at, amount, metadata } = parsed.data;
  if (type === 'social_operation.refunded' && !metadata?.charge_id) return 'metadata.charge_id: a refund names no charge';
  return {
    sequenceNumber: record.sequenceNumber,
    orgId: orgIdOfPartition(PK),
    id,
    type,
    amount,
    createdAt: created_at,
    metadata: metadata ?? {},
  };
}

/** Transaction items at most: room left for the ledger, an immediate expiry's two items and a grant's put. */
const MAX_ITEMS = 90;
/** Attempts of one organization's events before its first record fails (a conflict per attempt). */
const MAX_ATTEMPTS = 8;

/** Draw order: soonest expiry first (none last), then the oldest, then by id. */
export function drawOrder(a: Grant, b: Grant): number {
  const ax = a.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(a.expires_at);
  const bx = b.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(b.expires_at);
  if (ax !== bx) return ax < bx ? -1 : 1;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

interface Working extends GrantRecord {
  next: number;
  expiredNow: number;
  dueAt?: string | null;
  isNew: boolean;
}

/** One transaction's worth of events applied in memory to the state read. */
interface Plan {
  items: TransactItem[];
  /** Events handled (applied, or skipped as applied already / settled by the legacy grant). */
  consumed: number;
  /** A refund whose charge is not drawn yet: its record fails. */
  waitingOn?: LedgerEvent;
  /** The immediate expiry in this plan: its organization update is the transaction's last-but-one item. */
  expiryItemIndex?: number;
}

const fallbackGrantId = (eventId: string): string => `grt_${createHash('sha256').update(eventId).digest('hex').slice(0, 32)}`;

function plan(
  orgId: string,
  ledger: GrantLedger,
  grants: GrantRecord[],
  events: readonly LedgerEvent[],
  markers: Map<string, Draw | undefined>,
  now: Date,
  expireLater: ReadonlySet<string>,
): Plan {
  const working = new Map<string, Working>(
    grants.map((grant) => [grant.id, { ...grant, next: grant.remaining, expiredNow: 0, isNew: false }]),
  );
  const touched = new Set<string>();
  const markerItems: TransactItem[] = [];
  const drawn = new Map(markers);
  let debt = ledger.debt;
  let expiry: { grant: Working; credits: number; eventId: string } | undefined;
  let consumed = 0;
  const size = () => touched.size + markerItems.length;

  const take = (amount: number, preferred: string | undefined): Draw => {
    const open = [...working.values()].filter((grant) => grant.next > 0).sort(drawOrder);
    const first = open.findIndex((grant) => grant.id === preferred);
    if (first > 0) open.unshift(...open.splice(first, 1));
    const draw: Draw = { grants: [], debt: 0 };
    let left = amount;
    for (const grant of open) {
      if (left === 0) break;
      const credits = Math.min(grant.next, left);
      grant.next -= credits;
      left -= credits;
      touched.add(grant.id);
      draw.grants.push({ id: grant.id, sk: grant.key.SK, credits });
    }
    debt += left;
    draw.debt = left;
    return draw;
  };
  const add = (grant: Working, credits: number, eventId: string): void => {
    if (grant.status === 'expired') {
      // Returned to an expired grant: it expires at once (one expiry a transaction: it is the
      // transaction's one balance update). Else, or when the balance no longer holds it, the grant
      // is due to the expiry function again, which takes no more than the balance.
      if (!expireLater.has(eventId) && expiry === undefined) {
        expiry = { grant, credits, eventId };
        grant.expiredNow += credits;
        touched.add(grant.id);
        return;
      }
      grant.dueAt = now.toISOString();
    }
    grant.next += credits;
    touched.add(grant.id);
  };
  /** An `operator` grant the ledger makes for credits that came without one. */
  const opened = (id: string, credits: number, createdAt: string): Working => {
    const grant: Working = {
      id,
      source: 'operator',
      credits,
      remaining: credits,
      status: 'active',
      expires_at: null,
      expired_credits: 0,
      purchase_id: null,
      created_at: createdAt,
      orgId,
      key: grantKey(orgId, createdAt, id),
      version: 0,
      warned_at: null,
      next: credits,
      expiredNow: 0,
      isNew: true,
    };
    working.set(id, grant);
    touched.add(id);
    return grant;
  };
  const newest = (): Working | undefined => [...working.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0];

  for (const event of events) {
    if (size() + 4 > MAX_ITEMS) break;
    if (markers.has(event.id) || (ledger.cutoff !== null && event.createdAt <= ledger.cutoff)) {
      consumed += 1;
      continue;
    }
    if (event.type === 'social_operation.refunded') {
      if (expiry) break;
      const chargeId = defined(event.metadata.charge_id, "a refund's charge_id");
      const draw = drawn.get(chargeId);
      const legacyCharge = ledger.cutoff !== null && Date.parse(event.createdAt) <= Date.parse(ledger.cutoff) + LEGACY_CUTOFF_MS;
      if (!draw && !drawn.has(chargeId) && !legacyCharge) return finish({ waitingOn: event });
      const returns = draw ? draw.grants.map((part) => ({ grant: working.get(part.id), credits: part.credits })) : [];
      let owed = draw ? draw.debt : event.amount;
      const paid = Math.min(debt, owed);
      debt -= paid;
      owed -= paid;
      if (owed > 0) {
        // Only a legacy charge's refund finds no grant (its history summed to zero or less): the
        // credits come back as a grant of their own, never as a debt below zero.
        const rest = newest();
        if (rest) returns.push({ grant: rest, credits: owed });
        else opened(fallbackGrantId(event.id), owed, event.createdAt);
      }
      for (const part of returns) if (part.grant) add(part.grant, part.credits, event.id);
      markerItems.push(markerPut(orgId, event.id, undefined, now.getTime()));
    } else if (event.amount < 0) {
      const draw = take(-event.amount, event.type === 'credits.reversed' ? event.metadata.grant_id : undefined);
      drawn.set(event.id, draw);
      markerItems.push(markerPut(orgId, event.id, draw, now.getTime()));
    } else {
      const grant =
        working.get(event.metadata.grant_id ?? '') ??
        opened(event.metadata.grant_id ?? fallbackGrantId(event.id), event.amount, event.createdAt);
      // A new grant pays the debt first.
      const paid = Math.min(debt, grant.next);
      grant.next -= paid;
      debt -= paid;
      touched.add(grant.id);
      markerItems.push(markerPut(orgId, event.id, undefined, now.getTime()));
    }
    consumed += 1;
    if (expiry) break;
  }
  return finish({});

  function finish(extra: Pick<Plan, 'waitingOn'>): Plan {
    const items: TransactItem[] = [];
    for (const id of touched) {
      const grant = defined(working.get(id), 'a touched grant');
      if (grant.isNew) {
        items.push(grantPut(orgId, { ...grant, remaining: grant.next, status: statusOf(grant.next, false) }, null));
        continue;
      }
      const expired = grant.status === 'expired';
      items.push(
        grantUpdate(grant, {
          remaining: grant.next,
          status: statusOf(grant.next, expired),
          ...(grant.expiredNow > 0 ? { expired: grant.expiredNow } : {}),
          ...(grant.dueAt !== undefined ? { dueAt: grant.dueAt } : {}),
        }),
      );
    }
    items.push(...markerItems);
    if (items.length > 0) items.push(ledgerUpdate(orgId, ledger, debt));
    let expiryItemIndex: number | undefined;
    if (expiry) {
      const event = expiredEvent(expiry.grant, expiry.credits, now);
      expiryItemIndex = items.length;
      items.push(expiryOrgItem(orgId, expiry.credits, expiryNotice(expiry.grant, expiry.credits, event)), billingEventPut(orgId, event));
    }
    return { items, consumed, ...extra, ...(expiryItemIndex === undefined ? {} : { expiryItemIndex }) };
  }
}

/** The `credits.expired` event of `credits` leaving `grant`. */
export const expiredEvent = (grant: Grant, credits: number, now: Date): BillingEvent =>
  newBillingEvent({
    type: 'credits.expired',
    title: 'Credits expired',
    description: `${credits} credits of grant ${grant.id} expired`,
    amount: -credits,
    now,
    metadata: { grant_id: grant.id },
  });

/** What the organization's item keeps of its last expiry: the owners' `credits.expired` notification reads it from the stream. */
export const expiryNotice = (grant: Grant, credits: number, event: BillingEvent) => ({
  event_id: event.id,
  grant_id: grant.id,
  source: grant.source,
  credits,
});

class Stale extends Error {
  constructor(readonly expiryRefused: boolean) {
    super('the grants changed since they were read');
  }
}

/**
 * Applies one organization's events (in stream order); answers the sequence number of the record to
 * come again (a refund whose charge is not drawn yet), or undefined.
 */
export async function applyEvents(orgId: string, events: readonly LedgerEvent[], now = new Date()): Promise<string | undefined> {
  let pending = events.filter((event, index) => events.findIndex((each) => each.id === event.id) === index);
  const expireLater = new Set<string>();
  let attempts = 0;
  while (pending.length > 0) {
    const state = await readGrantState(orgId);
    if (!state.ledger) {
      await openLegacyLedger(orgId, now);
      if (++attempts > MAX_ATTEMPTS) throw new Error(`the grants ledger of ${orgId} could not be opened`);
      continue;
    }
    const charges = pending.flatMap((event) =>
      event.type === 'social_operation.refunded' && event.metadata.charge_id ? [event.metadata.charge_id] : [],
    );
    const markers = await readMarkers(orgId, [...pending.map((event) => event.id), ...charges]);
    const chunk = plan(orgId, state.ledger, state.grants, pending, markers, now, expireLater);
    if (chunk.items.length > 0) {
      try {
        await transact(chunk.items, (reasons) =>
          reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')
            ? new Stale(chunk.expiryItemIndex !== undefined && reasons[chunk.expiryItemIndex]?.Code === 'ConditionalCheckFailed')
            : null,
        );
      } catch (error) {
        if (!(error instanceof Stale) || ++attempts > MAX_ATTEMPTS) throw error;
        if (error.expiryRefused) for (const event of pending) expireLater.add(event.id);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempts));
        continue;
      }
    }
    pending = pending.slice(chunk.consumed);
    if (chunk.waitingOn) return chunk.waitingOn.sequenceNumber;
    if (chunk.consumed === 0 && pending.length > 0) throw new Error('the grants ledger made no progress');
  }
  return undefined;
}

/**
 * What opening a legacy organization's ledger did: nothing (`opened: false`, another consumer or
 * the operator's `credits migrate-grants` opened it first), or the ledger it opened at `cutoff`
 * with its debt and its one `operator` grant as written (null when the history summed to zero or
 * less). The events after the cutoff were applied since: the grant's `remaining` may be lower now.
 */
export type LegacyOpening = { opened: false } | { opened: true; cutoff: string; debt: number; grant: Grant | null };

/**
 * The first look at an organization from before grants: its events up to the cutoff become one
 * `operator` grant (or, if they sum below zero, the debt), in the transaction that opens its
 * ledger (only if none is open: two shards, or a shard and the operator's migration, meeting it at
 * once open it once); the events after the cutoff are then applied as if delivered, under their
 * markers. The stream's lazy conversion and `credits migrate-grants` both come here, so an
 * organization converts the same way whichever meets it first.
 */
export async function openLegacyLedger(orgId: string, now: Date): Promise<LegacyOpening> {
  const cutoff = new Date(now.getTime() - LEGACY_CUTOFF_MS).toISOString();
  const events = await listAllBillingEvents(orgId);
  // An event naming a grant moved that grant's own `remaining` (or made it): it is not legacy.
  const settled = events.filter((event) => event.created_at <= cutoff && event.metadata.grant_id === undefined);
  const sum = settled.reduce((total, event) => total + event.amount, 0);
  const id = fallbackGrantId(`legacy:${orgId}`);
  const debt = Math.max(0, -sum);
  const items: TransactItem[] = [ledgerPut(orgId, { debt, version: 0, cutoff })];
  let grant: Grant | null = null;
  if (sum > 0) {
    grant = {
      id,
      source: 'operator',
      credits: sum,
      remaining: sum,
      status: 'active',
      expires_at: null,
      expired_credits: 0,
      purchase_id: null,
      created_at: cutoff,
    };
    items.push(grantPut(orgId, grant, null));
  }
  try {
    await transact(items, (reasons) => (reasons[0]?.Code === 'ConditionalCheckFailed' ? new Stale(false) : null));
  } catch (error) {
    if (error instanceof Stale) return { opened: false };
    throw error;
  }
  logger.info('grants ledger opened for an organization from before grants', { organization_id: orgId, legacy_credits: sum, cutoff });
  const recent = events
    .filter((event) => event.created_at > cutoff && (LEDGER_EVENT_TYPES as readonly string[]).includes(event.type))
    .map((event, index) => ({
      sequenceNumber: String(index + 1),
      orgId,
      id: event.id,
      type: event.type as LedgerEvent['type'],
      amount: event.amount,
      createdAt: event.created_at,
      metadata: event.metadata,
    }));
  const waiting = await applyEvents(orgId, recent, now);
  if (waiting !== undefined) throw new Error(`the grants ledger of ${orgId}: a refund before its charge in its own history`);
  return { opened: true, cutoff, debt, grant };
}

/** Applies the records' events, by organization; the earliest record to come again, or undefined. */
export async function applyLedgerRecords(records: readonly ChangeRecord[], now = new Date()): Promise<string | undefined> {
  const failures: string[] = [];
  const byOrg = new Map<string, LedgerEvent[]>();
  for (const record of records) {
    const event = ledgerEventOf(record);
    if (typeof event === 'string') {
      logError('grants ledger: a billing event that cannot be applied (poison record)', new Error(event), {
        sequence_number: record.sequenceNumber,
        event_id: record.newImage?.id,
      });
      failures.push(record.sequenceNumber);
      continue;
    }
    byOrg.set(event.orgId, [...(byOrg.get(event.orgId) ?? []), event]);
  }
  await Promise.all(
    [...byOrg].map(async ([orgId, events]) => {
      try {
        const waiting = await applyEvents(orgId, events, now);
        if (waiting !== undefined) {
          logger.info('grants ledger: a refund before its charge is drawn; it comes again', { organization_id: orgId });
          failures.push(waiting);
        }
      } catch (error) {
        logError('grants ledger: applying failed; the events come again', error, { organization_id: orgId, events: events.length });
        failures.push(defined(events[0], "an organization's first event").sequenceNumber);
      }
    }),
  );
  return failures.sort(compareSequenceNumbers)[0];
}

export const grantsLedgerConsumer: StreamConsumer = {
  name: 'grants',
  filters: LEDGER_FILTERS,
  handle: (records) => applyLedgerRecords(records),
};
