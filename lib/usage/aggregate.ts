/**
 * The usage consumer of the table's change stream: each `social_operation.*` billing event adds
 * to the counters of its hour and its day, for its operation and its payer (a member or an API
 * key). A charge counts in the bucket of its own `created_at`, a refund in the refund's.
 *
 * Exactly once: the events of a batch are counted in transactions that put a marker per event
 * (only if absent) with the counters' ADDs, so an event delivered again (a retry, a redelivery
 * after a killed poller or function, a bisected batch) finds its marker and adds nothing. The
 * events of one organization in a batch share one transaction (up to 100 items): at a busy
 * organization's rate the counters are written once per batch, not once per event
 * (docs/scaling.md, "Usage").
 */
import * as z from 'zod/mini';
import { listBillingEventsPage } from '../db/billing-events.ts';
import { ORG_PARTITION_PREFIX, orgIdOfPartition, orgKey } from '../db/keys.ts';
import { AlreadyCounted, countUsage, type UsageDelta } from '../db/usage.ts';
import { defined } from '../defined.ts';
import { logError, logger } from '../log.ts';
import { type ChangeRecord, compareSequenceNumbers, type StreamConsumer } from '../stream/dispatch.ts';
import type { FilterPattern } from '../stream/filter.ts';
import { bucketStart, type UsageGranularity } from './buckets.ts';

export const USAGE_EVENT_TYPES = ['social_operation.charged', 'social_operation.refunded'] as const;

/** New charge and refund events; nothing else the table writes (the counters themselves included) reaches the consumer. */
export const USAGE_FILTERS: readonly FilterPattern[] = [
  { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['billing_event'] }, type: { S: USAGE_EVENT_TYPES } } } },
];

/** What a charge or refund event must carry to be counted; anything else is a poison record. */
const usageEventSchema = z.object({
  PK: z.string().check(z.startsWith(ORG_PARTITION_PREFIX)),
  id: z.string().check(z.minLength(1)),
  type: z.enum(USAGE_EVENT_TYPES),
  created_at: z.iso.datetime(),
  amount: z.int(),
  metadata: z.object({
    operation: z.string().check(z.minLength(1)),
    user_id: z.optional(z.string().check(z.minLength(1))),
    api_key_id: z.optional(z.string().check(z.minLength(1))),
  }),
});

interface UsageEvent {
  sequenceNumber: string;
  orgId: string;
  id: string;
  createdAt: string;
  deltas: UsageDelta[];
}

/** The event a record carries, or why it cannot be counted. */
export function usageEventOf(record: ChangeRecord): UsageEvent | string {
  const parsed = usageEventSchema.safeParse(record.newImage);
  if (!parsed.success) return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  const { PK, id, type, created_at, amount, metadata } = parsed.data;
  const charge = type === 'social_operation.charged';
  if (charge ? amount > 0 : amount < 0) return `amount: a ${charge ? 'charge' : 'refund'} of ${amount}`;
  if ((metadata.user_id === undefined) === (metadata.api_key_id === undefined))
    return 'metadata: names neither or both of user_id and api_key_id';
  const atMs = Date.parse(created_at);
  const deltas = (['hour', 'day'] as const satisfies readonly UsageGranularity[]).map((granularity) => ({
    granularity,
    bucketStart: bucketStart(atMs, granularity),
    operation: metadata.operation,
    member: metadata.user_id ?? null,
    apiKey: metadata.api_key_id ?? null,
    runs: charge ? 1 : 0,
    charged: charge ? -amount : 0,
    refunded: charge ? 0 : amount,
  }));
  return { sequenceNumber: record.sequenceNumber, orgId: orgIdOfPartition(PK), id, createdAt: created_at, deltas };
}

/** A transaction holds at most 100 items: a marker per event and a counter update per distinct counter. */
const MAX_TRANSACTION_ITEMS = 100;

const counterId = (delta: UsageDelta) => `${delta.granularity}#${delta.bucketStart}#${delta.operation}#${delta.apiKey ?? delta.member}`;

/** The counters' deltas of `events`, one per counter. */
function summed(events: readonly UsageEvent[]): UsageDelta[] {
  const byCounter = new Map<string, UsageDelta>();
  for (const delta of events.flatMap((event) => event.deltas)) {
    const id = counterId(delta);
    const sum = byCounter.get(id);
    if (sum) {
      sum.runs += delta.runs;
      sum.charged += delta.charged;
      sum.refunded += delta.refunded;
    } else byCounter.set(id, { ...delta });
  }
  return [...byCounter.values()];
}

/** `events` (of one organization, in order) cut into transactions of at most 100 items. */
export function transactionsOf(events: readonly UsageEvent[]): UsageEvent[][] {
  const chunks: UsageEvent[][] = [];
  let chunk: UsageEvent[] = [];
  let counters = new Set<string>();
  for (const event of events) {
    const added = event.deltas.map(counterId).filter((id) => !counters.has(id));
    if (chunk.length > 0 && chunk.length + 1 + counters.size + added.length > MAX_TRANSACTION_ITEMS) {
      chunks.push(chunk);
      chunk = [];
      counters = new Set();
    }
    chunk.push(event);
    for (const id of event.deltas.map(counterId)) counters.add(id);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

export interface CountOutcome {
  counted: number;
  /** Events found counted already (delivered again). */
  duplicates: number;
  transactions: number;
}

/** Counts one transaction's events; those found counted already are left out and the rest sent again. */
async function countOnce(orgId: string, events: UsageEvent[], outcome: CountOutcome): Promise<void> {
  let pending = events;
  while (pending.length > 0) {
    try {
      outcome.transactions += 1;
      await countUsage(
        orgId,
        pending.map((event) => ({ eventId: event.id, createdAt: event.createdAt })),
        summed(pending),
      );
      outcome.counted += pending.length;
      return;
    } catch (error) {
      if (!(error instanceof AlreadyCounted)) throw error;
      const counted = new Set(error.markerIndexes);
      outcome.duplicates += counted.size;
      pending = pending.filter((_, index) => !counted.has(index));
    }
  }
}

/**
 * Counts the events of `records`; answers the sequence number of the first record not counted (a
 * poison record, or the first of a transaction that failed), or undefined. Valid records after a
 * poison one are counted all the same: they come again with it, and their markers skip them.
 */
export async function countUsageRecords(
  records: readonly ChangeRecord[],
): Promise<{ failedAt: string | undefined; outcome: CountOutcome }> {
  const outcome: CountOutcome = { counted: 0, duplicates: 0, transactions: 0 };
  const failures: string[] = [];
  const byOrg = new Map<string, UsageEvent[]>();
  for (const record of records) {
    const event = usageEventOf(record);
    if (typeof event === 'string') {
      // The item is a billing event's: no token, no personal data beyond ids.
      logError('usage: a billing event that cannot be counted (poison record)', new Error(event), {
        sequence_number: record.sequenceNumber,
        event_id: record.newImage?.id,
      });
      failures.push(record.sequenceNumber);
      continue;
    }
    const events = byOrg.get(event.orgId) ?? [];
    // One marker per event and transaction: an event twice in a batch (a replay's doing) is one event.
    if (!events.some((each) => each.id === event.id)) events.push(event);
    byOrg.set(event.orgId, events);
  }
  await Promise.all(
    [...byOrg].map(async ([orgId, events]) => {
      for (const chunk of transactionsOf(events)) {
        try {
          await countOnce(orgId, chunk, outcome);
        } catch (error) {
          logError('usage: counting failed; the events come again', error, { organization_id: orgId, events: chunk.length });
          failures.push(defined(chunk[0], "a transaction's first event").sequenceNumber);
          return;
        }
      }
    }),
  );
  const failedAt = failures.sort(compareSequenceNumbers)[0];
  return { failedAt, outcome };
}

export const usageConsumer: StreamConsumer = {
  name: 'usage',
  filters: USAGE_FILTERS,
  async handle(records) {
    const { failedAt, outcome } = await countUsageRecords(records);
    logger.info('usage counted', { records: records.length, ...outcome, ...(failedAt ? { failed_at: failedAt } : {}) });
    return failedAt;
  },
};

/**
 * Counts again the billing events of one organization created in [fromMs, toMs), read from the
 * table (the source of truth), through the same transactions: what is counted already is found by
 * its marker and skipped. For an operator (`admin usage recount`): the events of a batch the
 * stream gave up on once its 24 hours are gone, or history from before the stream existed.
 */
export async function recountUsage(orgId: string, fromMs: number, toMs: number): Promise<CountOutcome & { events: number }> {
  const records: ChangeRecord[] = [];
  let after: string | undefined;
  do {
    const page = await listBillingEventsPage(orgId, { since: new Date(fromMs), until: new Date(toMs - 1) }, 100, after);
    for (const event of page.events) {
      if (!(USAGE_EVENT_TYPES as readonly string[]).includes(event.type)) continue;
      records.push({
        sequenceNumber: String(records.length + 1),
        eventName: 'INSERT',
        newImage: { PK: orgKey(orgId).PK, ...event },
        oldImage: undefined,
      });
    }
    after = page.next;
  } while (after);
  const { failedAt, outcome } = await countUsageRecords(records);
  if (failedAt !== undefined) throw new Error(`recounting stopped at the ${failedAt}th event: see the log line before this one`);
  return { events: records.length, ...outcome };
}
