/**
 * Alerts found from the table's change stream (docs/alerts.md), never on the request path: a
 * consumer beside usage (functions/table-stream.ts) that sees each change of a balance, of a
 * spend counter and of a job with its images before and after, so that a crossing is exact: the
 * one change whose old value is on one side of a line and whose new value is on the other.
 *
 * - `credits.balance_low`: the organization's `credits` goes from ≥ `low_balance` to below it.
 *   Re-armed by anything that lifts it back (a grant, a refund, a lower setting): the next fall
 *   is a new crossing. Its id comes from the stream record, so a redelivered record is the same
 *   event.
 * - `spending_limit.threshold_reached`: a spend counter goes from below a threshold's share of
 *   its scope's limit to at least it. The counters of a month are one item per scope
 *   (`SPEND#<yyyy-mm>` for the organization, `SPEND#<yyyy-mm>#USER#<id>` for a member or an API
 *   key) holding the month's spend (`spent`) and each day's (`spent_day_<dd>`): one change of it
 *   may cross a monthly and a daily threshold at once. The limit is the one the charge was held
 *   to, which the charge keeps on the counter (`month_limit`, `day_limit`): exact, and no read.
 *   Its id comes from (organization, scope, id, period, threshold): once per month or day, even
 *   after a limit is raised.
 * - `job.completed`: the change that sets a job's `completed_at`, sent as the event its own
 *   webhook gets (lib/jobs/job-ended.ts) in the endpoints' envelope; its id comes from the job's.
 *
 * - `credits.expiring`: the change that sets a grant's `warned_at` (the expiry's warning, once per
 *   grant, lib/billing/expiry.ts); its id comes from the grant's.
 * - `credits.expired`: the change of the organization's item that records a new `last_expiry` (the
 *   expiry's transaction, or a refund's returned to an expired grant): the balance after it is that
 *   record's; its id comes from the `credits.expired` billing event's.
 * - `credits.purchased` and `credits.reversed`: the change of the organization's item that records
 *   a new `last_purchase` (a checkout's settle) or `last_reversal` (a refund's or dispute's
 *   reversal), in the transaction that moves the balance, so the balance after it is that
 *   record's; each id comes from its billing event's, so a redelivered record or a second
 *   consumer makes the same event.
 *
 * Each event is stored once under its id (lib/db/alert-events.ts) and published to the
 * subscribed endpoints, whose deliveries are written once per event too: however many records
 * and consumers produce it, one event, one delivery per endpoint.
 */
import { createHash } from 'node:crypto';
import { claimEvent, readItem } from '../db/alert-events.ts';
import { type AlertSettings, getAlertSettings, getAlertSettingsOf } from '../db/alert-settings.ts';
import { autoRechargeOf } from '../db/auto-recharge.ts';
import { grantOf } from '../db/grants.ts';
import { jobOf } from '../db/jobs.ts';
import {
  AUTO_RECHARGE_SK,
  apiKeyKey,
  GRANT_SK_PREFIX,
  GRANTS_PARTITION_PREFIX,
  JOB_PARTITION_PREFIX,
  JOB_SK,
  membershipKey,
  ORG_PARTITION_PREFIX,
  ORG_SK,
  orgIdOfPartition,
  orgKey,
  SPEND_SK_PREFIX,
  spendCounterOf,
  spentDayOf,
} from '../db/keys.ts';
import type { LimitScope } from '../errors.ts';
import { jobCompleted } from '../jobs/job-ended.ts';
import { logger } from '../log.ts';
import { payerScope } from '../model.ts';
import { type ChangeRecord, compareSequenceNumbers, type StreamConsumer } from '../stream/dispatch.ts';
import type { FilterPattern } from '../stream/filter.ts';
import { publishEvent, subscribedEndpoints, type WebhookEvent } from './endpoints.ts';

/** Changes of an organization's item (its balance), of spend counters and of a job's item. */
export const CROSSING_FILTERS: readonly FilterPattern[] = [
  { eventName: ['MODIFY'], dynamodb: { NewImage: { SK: { S: [ORG_SK] }, PK: { S: [{ prefix: ORG_PARTITION_PREFIX }] } } } },
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { SK: { S: [{ prefix: SPEND_SK_PREFIX }] } } } },
  { eventName: ['MODIFY'], dynamodb: { NewImage: { SK: { S: [JOB_SK] }, PK: { S: [{ prefix: JOB_PARTITION_PREFIX }] } } } },
  {
    eventName: ['MODIFY'],
    dynamodb: { NewImage: { SK: { S: [{ prefix: GRANT_SK_PREFIX }] }, PK: { S: [{ prefix: GRANTS_PARTITION_PREFIX }] } } },
  },
  {
    eventName: ['INSERT', 'MODIFY'],
    dynamodb: { NewImage: { SK: { S: [AUTO_RECHARGE_SK] }, PK: { S: [{ prefix: ORG_PARTITION_PREFIX }] } } },
  },
];

const eventId = (...parts: string[]): string => `evt_${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32)}`;
const numberOr = (value: unknown, fallback: number): number =>
  typeof value === 'number' ? value : value == null ? fallback : Number(value);

/**
 * What one batch reads, each at most once however many of its records need it: the alert
 * settings of every organization whose balance or spend it changes, in one BatchGetItem at its
 * start, and (for a counter last written before charges kept their limits) a scope's limits. A
 * batch covers well under a second of writes; a setting changed within it applies from the next.
 */
export interface BatchReads {
  settings(orgId: string): Promise<AlertSettings>;
  item(key: { PK: string; SK: string }): Promise<Record<string, unknown> | undefined>;
}

export function batchReads(records: readonly ChangeRecord[] = []): BatchReads {
  const orgIds = new Set<string>();
  for (const record of records) {
    const pk = String(record.newImage?.PK ?? '');
    if (pk.startsWith(ORG_PARTITION_PREFIX)) orgIds.add(orgIdOfPartition(pk));
  }
  const prefetched = orgIds.size > 0 ? getAlertSettingsOf(orgIds) : undefined;
  // Failing, it fails the records that ask for it (through `settings`); none may ask.
  prefetched?.catch(() => undefined);
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let found = memo.get(key) as Promise<T> | undefined;
    if (!found) {
      found = read();
      memo.set(key, found);
    }
    return found;
  };
  return {
    settings: (orgId) =>
      prefetched && orgIds.has(orgId)
        ? prefetched.then((all) => all.get(orgId) as AlertSettings)
        : once(`settings|${orgId}`, () => getAlertSettings(orgId)),
    item: (key) => once(`item|${key.PK}|${key.SK}`, () => readItem(key)),
  };
}

/** The events one change causes (none for most). */
export async function crossingsOf(record: ChangeRecord, now: Date, reads: BatchReads = batchReads()): Promise<WebhookEvent[]> {
  const item = record.newImage;
  if (!item) return [];
  const sk = String(item.SK);
  if (sk === JOB_SK) {
    // A job's end: the change that sets its `completed_at` (once; the event's id is the job's).
    if (!item.completed_at || record.oldImage?.completed_at) return [];
    const job = jobOf(item);
    const { type, at, data } = jobCompleted(job);
    return [{ id: eventId(type, job.id), type, created_at: at, organization_id: job.organization_id, data }];
  }
  if (sk.startsWith(GRANT_SK_PREFIX)) {
    // A grant's warning: the change that sets its `warned_at` (once; the event's id is the grant's).
    if (!item.warned_at || record.oldImage?.warned_at) return [];
    const grant = grantOf(item);
    return [
      {
        id: eventId('credits.expiring', grant.id),
        type: 'credits.expiring',
        created_at: now.toISOString(),
        organization_id: grant.orgId,
        data: { grant_id: grant.id, source: grant.source, remaining: grant.remaining, expires_at: grant.expires_at },
      },
    ];
  }
  const orgId = orgIdOfPartition(String(item.PK));
  const base = { created_at: now.toISOString(), organization_id: orgId };
  if (sk === AUTO_RECHARGE_SK) {
    // Auto-recharge's notices: those this change recorded anew (lib/billing/recharge-rules.ts), each
    // once by its key however often the record comes.
    const before = new Set(autoRechargeOf(orgId, record.oldImage).notices.map((notice) => notice.key));
    return autoRechargeOf(orgId, item)
      .notices.filter((notice) => !before.has(notice.key))
      .map((notice) => ({ ...base, id: eventId(orgId, notice.type, notice.key), type: notice.type, data: notice.data }));
  }
  if (sk === ORG_SK) {
    const before = numberOr(record.oldImage?.credits, Number.POSITIVE_INFINITY);
    const after = numberOr(item.credits, 0);
    const events: WebhookEvent[] = [];
    const expiry = item.last_expiry as { event_id?: string; grant_id?: string; source?: string; credits?: number } | undefined;
    const previous = record.oldImage?.last_expiry as { event_id?: string } | undefined;
    if (expiry?.event_id && expiry.event_id !== previous?.event_id) {
      events.push({
        ...base,
        id: eventId('credits.expired', expiry.event_id),
        type: 'credits.expired',
        data: { grant_id: expiry.grant_id, source: expiry.source, credits: numberOr(expiry.credits, 0), balance: after },
      });
    }
    const purchase = noticeOf(item, record.oldImage, 'last_purchase');
    if (purchase) {
      events.push({
        ...base,
        id: eventId('credits.purchased', purchase.event_id),
        type: 'credits.purchased',
        data: {
          purchase_id: purchase.purchase_id,
          credits: numberOr(purchase.credits, 0),
          amount: numberOr(purchase.amount, 0),
          currency: purchase.currency,
          balance: after,
        },
      });
    }
    const recharge = noticeOf(item, record.oldImage, 'last_recharge');
    if (recharge) {
      events.push({
        ...base,
        id: eventId('auto_recharge.succeeded', recharge.event_id),
        type: 'auto_recharge.succeeded',
        data: {
          purchase_id: recharge.purchase_id,
          credits: numberOr(recharge.credits, 0),
          amount: numberOr(recharge.amount, 0),
          currency: recharge.currency,
          balance: after,
          recharged_this_month: numberOr(recharge.recharged_this_month, 0),
          monthly_cap: numberOr(recharge.monthly_cap, 0),
        },
      });
    }
    const reversal = noticeOf(item, record.oldImage, 'last_reversal');
    if (reversal) {
      events.push({
        ...base,
        id: eventId('credits.reversed', reversal.event_id),
        type: 'credits.reversed',
        data: { purchase_id: reversal.purchase_id, credits: numberOr(reversal.credits, 0), reason: reversal.reason, balance: after },
      });
    }
    if (after >= before) return events;
    const { low_balance } = await reads.settings(orgId);
    if (low_balance === null || !(before >= low_balance && after < low_balance)) return events;
    const id = eventId(orgId, 'credits.balance_low', record.sequenceNumber);
    return [...events, { ...base, id, type: 'credits.balance_low', data: { balance: after, low_balance } }];
  }
  const counter = spendCounterOf(sk);
  if (!counter) return [];
  const moved = counterMoves(counter.month, record.oldImage, item);
  if (moved.length === 0) return [];
  const scope: LimitScope = counter.payer === null ? 'organization' : payerScope(counter.payer);
  const id = counter.payer ?? orgId;
  // The limits the charge was held to, kept on the counter by the charge itself (lib/db/credits.ts);
  // a counter last written before charges kept them: the scope's limits as they are now.
  const kept = 'month_limit' in item;
  const [settings, holder] = await Promise.all([
    reads.settings(orgId),
    kept
      ? { spending_limit: item.month_limit, daily_limit: item.day_limit }
      : reads.item(scope === 'organization' ? orgKey(orgId) : scope === 'api_key' ? apiKeyKey(orgId, id) : membershipKey(orgId, id)),
  ]);
  return moved.flatMap(({ period, periodKey, before, after }) => {
    const limitValue = holder?.[period === 'month' ? 'spending_limit' : 'daily_limit'];
    if (limitValue == null) return [];
    const limit = Number(limitValue);
    return settings.thresholds
      .filter((threshold) => limit > 0 && before * 100 < threshold * limit && after * 100 >= threshold * limit)
      .map((threshold) => ({
        ...base,
        id: eventId(orgId, 'spending_limit.threshold_reached', scope, id, periodKey, String(threshold)),
        type: 'spending_limit.threshold_reached' as const,
        data: { scope, id, period, threshold, spending_limit: limit, spent: after },
      }));
  });
}

/** The notice a change of the organization's item records anew under `attribute` (lib/db/credits.ts `BalanceNotice`), if any. */
function noticeOf(
  item: Record<string, unknown>,
  oldImage: Record<string, unknown> | undefined,
  attribute: 'last_purchase' | 'last_reversal' | 'last_recharge',
): ({ event_id: string } & Record<string, unknown>) | undefined {
  const notice = item[attribute];
  if (notice === null || typeof notice !== 'object') return undefined;
  const { event_id } = notice as { event_id?: unknown };
  const previous = oldImage?.[attribute] as { event_id?: unknown } | undefined;
  return typeof event_id === 'string' && event_id !== previous?.event_id ? { ...(notice as Record<string, unknown>), event_id } : undefined;
}

interface CounterMove {
  period: 'month' | 'day';
  /** "2025-01" or "2025-01-31": the period the event is unique in. */
  periodKey: string;
  before: number;
  after: number;
}

/**
 * The spend counters a change of a month's spend item raised: the month's (`spent`) and each of
 * its days' (`spent_day_<dd>`, lib/db/keys.ts), which live in the same item. A charge raises the
 * month's and its day's together; a refund lowers them and crosses nothing.
 */
function counterMoves(month: string, oldImage: Record<string, unknown> | undefined, newImage: Record<string, unknown>): CounterMove[] {
  const moves: CounterMove[] = [];
  const monthBefore = numberOr(oldImage?.spent, 0);
  const monthAfter = numberOr(newImage.spent, 0);
  if (monthAfter > monthBefore) moves.push({ period: 'month', periodKey: month, before: monthBefore, after: monthAfter });
  for (const [attribute, value] of Object.entries(newImage)) {
    const day = spentDayOf(month, attribute);
    if (day === null) continue;
    const before = numberOr(oldImage?.[attribute], 0);
    const after = numberOr(value, 0);
    if (after > before) moves.push({ period: 'day', periodKey: day, before, after });
  }
  return moves;
}

/**
 * Stores each event once and publishes what is stored (the first producer's time and data), the
 * endpoints looked up meanwhile.
 */
async function announce(event: WebhookEvent, now: Date): Promise<void> {
  const [stored, endpoints] = await Promise.all([claimEvent(event, now.getTime()), subscribedEndpoints(event.organization_id, event.type)]);
  await publishEvent({ ...event, created_at: stored.created_at, data: stored.data }, now, endpoints);
  logger.info('alert', { event: event.id, type: event.type, organization_id: event.organization_id });
}

/**
 * Items whose records are handled at once. A record's crossing depends on its own images only,
 * and every write it leads to is conditional on a deterministic id, so the records of different
 * items need no order among them; one item's records are handled in stream order. One at a time,
 * the reads and writes of a batch's records (about 20 ms each on a busy DynamoDB Local) put the
 * consumer minutes behind a load of 50 runs a second (4 records each).
 */
const CROSSINGS_CONCURRENCY = 16;

/** The batch's records by the item they change, each item's in stream order. */
function byItem(records: readonly ChangeRecord[]): ChangeRecord[][] {
  const groups = new Map<string, ChangeRecord[]>();
  for (const record of records) {
    const image = record.newImage ?? record.oldImage;
    const key = `${image?.PK}|${image?.SK}`;
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  return [...groups.values()];
}

export const crossingsConsumer: StreamConsumer = {
  name: 'alerts',
  filters: CROSSING_FILTERS,
  async handle(records) {
    const reads = batchReads(records);
    const groups = byItem(records);
    const failed: string[] = [];
    let next = 0;
    const worker = async () => {
      for (let group = groups[next++]; group !== undefined; group = groups[next++]) {
        for (const record of group) {
          const now = new Date();
          try {
            for (const event of await crossingsOf(record, now, reads)) await announce(event, now);
          } catch (error) {
            // This item's later records wait for it; the earliest failure of the batch is where it resumes.
            logger.warn('alert crossing failed; its record comes again', { detail: (error as Error).message });
            failed.push(record.sequenceNumber);
            break;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CROSSINGS_CONCURRENCY, groups.length) }, worker));
    return failed.sort(compareSequenceNumbers)[0];
  },
};
