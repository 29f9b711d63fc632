/**
 * The credit items of the table: the organization's balance, its spend counters and the
 * member's. Item builders and single reads only: which items go into one charge or refund
 * transaction is decided by the money module (lib/billing/paid-run.ts).
 *
 * A spend counter is one item per scope and UTC month holding the month's spend (`spent`) and
 * each of its days' (`spent_day_<dd>`, lib/db/keys.ts): a charge adds to both in one write, under
 * both limits' conditions.
 *
 * DynamoDB conditions cannot do arithmetic, so a limit is checked as `spent <= limit - cost`
 * with `limit` read beforehand; the charge also requires the limit attributes to still hold the
 * values read, so a limit lowered in between makes the charge re-read instead of overspending.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { RUNNER_ROLES } from '../model.ts';
import { batchGetAll, db, queryAll, type TransactItem, tableName } from './client.ts';
import { daySpentAttribute, memberSpendKey, memberSpendPrefix, membershipKey, orgKey, orgSpendKey, spendDay, spendMonth } from './keys.ts';
import { hasLanes, type Lane, laneMovesOf, readLanes } from './lanes.ts';
import type { TableKey } from './table.ts';

/** Spend counters are kept for reporting a little over a year after their month. */
const SPEND_RETENTION_SECONDS = 400 * 86_400;

/** A new charge id: also the charge event's id and the key of the run's pending record. */
export const newChargeId = (): string => `evt_${randomUUID()}`;

/** A scope's limits as stored beside it (organization, membership, API key): credits per UTC month and per UTC day, null for none. */
export interface Limits {
  spending_limit: number | null;
  daily_limit: number | null;
}

/** The condition that both limit attributes still hold the values read (or are still unset). */
export function limitsUnchanged(limits: Limits): { condition: string; values: Record<string, unknown> } {
  const values: Record<string, unknown> = {};
  const unchanged = (attribute: string, placeholder: string, limit: number | null) => {
    if (limit !== null) {
      values[placeholder] = limit;
      return `${attribute} = ${placeholder}`;
    }
    values[':null'] = 'NULL';
    return `(attribute_not_exists(${attribute}) OR attribute_type(${attribute}, :null))`;
  };
  const condition = [
    unchanged('spending_limit', ':limit', limits.spending_limit),
    unchanged('daily_limit', ':dailyLimit', limits.daily_limit),
  ].join(' AND ');
  return { condition, values };
}

/**
 * Takes `cost` off the balance if the organization exists, has that much, still has the
 * limits read and (for a network's operation) still has the network enabled. Returns the stored
 * item when a condition fails, so the refusal can say what it found.
 */
export function debitItem(orgId: string, cost: number, limits: Limits, network: string | undefined): TransactItem {
  const orgLimits = limitsUnchanged(limits);
  const conditions = ['attribute_exists(PK)', 'credits >= :cost', orgLimits.condition];
  const values: Record<string, unknown> = { ':cost': cost, ...orgLimits.values };
  if (network !== undefined) {
    conditions.push('contains(networks, :network)');
    values[':network'] = network;
  }
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(orgId),
      UpdateExpression: 'SET credits = credits - :cost',
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * What a change of the balance records on the organization's item for the owners' notifications
 * (lib/alerts/crossings.ts): the stream record of that one write then holds both what happened and
 * the balance after it, which no other item of the transaction knows. Each names its billing
 * event (`event_id`), so a new notice is told from the one before it.
 */
export interface BalanceNotice {
  attribute: 'last_purchase' | 'last_reversal' | 'last_recharge';
  value: { event_id: string } & Record<string, unknown>;
}

/** Gives `amount` back to the balance (a refund), if the organization still exists; with `notice`, recorded beside it. */
export function creditItem(orgId: string, amount: number, notice?: BalanceNotice): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(orgId),
      UpdateExpression: notice ? 'SET credits = credits + :amount, #notice = :notice' : 'SET credits = credits + :amount',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':amount': amount, ...(notice ? { ':notice': notice.value } : {}) },
      ...(notice ? { ExpressionAttributeNames: { '#notice': notice.attribute } } : {}),
    },
  };
}

/** The member exists, may run operations and still has the limits read (the stored item on failure). */
export function memberMayPayItem(orgId: string, userId: string, limits: Limits): TransactItem {
  const memberLimits = limitsUnchanged(limits);
  const roleValues = Object.fromEntries(RUNNER_ROLES.map((role, i) => [`:role${i}`, role]));
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: membershipKey(orgId, userId),
      ConditionExpression: ['attribute_exists(PK)', `#role IN (${Object.keys(roleValues).join(', ')})`, memberLimits.condition].join(
        ' AND ',
      ),
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ...roleValues, ...memberLimits.values },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** Where a charge counts: its UTC month ("2025-01") and, for charges since daily limits, its UTC day ("2025-01-31"). */
export interface SpendPeriods {
  month: string;
  day?: string | undefined;
}

/** The most each counter may hold before a charge adds to it (its limit minus the cost), null for no limit. */
export interface SpendCeilings {
  month: number | null;
  day: number | null;
}

const NO_CEILINGS: SpendCeilings = { month: null, day: null };

/**
 * The limits a charge was held to, in credits per month and per day (null for none). A charge
 * keeps them on the counter it adds to (`month_limit`, `day_limit`), so that whoever reads the
 * table's stream sees each change of a counter with the limit it was checked against, without a
 * read (the alerts: lib/alerts/crossings.ts).
 */
export interface SpendLimits {
  month: number | null;
  day: number | null;
}

/**
 * Adds `amount` (negative for a refund) to a month's spend counter and to its day's. With
 * ceilings, only while each counter holds at most its ceiling before the addition; on a refusal
 * the stored counters come back, so a 402 can report how much was spent and in which period.
 * With `limits` (a charge), the counter keeps the limits it was held to.
 */
function spendItem(
  key: TableKey,
  amount: number,
  periods: SpendPeriods,
  ceilings: SpendCeilings,
  limits?: SpendLimits,
  laneMove = false,
): TransactItem {
  const expires = Math.floor(Date.parse(`${periods.month}-01T00:00:00Z`) / 1000) + SPEND_RETENTION_SECONDS;
  const names: Record<string, string> = { '#spent': 'spent' };
  const values: Record<string, unknown> = { ':amount': amount, ':expires': expires };
  const adds = ['#spent :amount'];
  const sets = ['expires_at = if_not_exists(expires_at, :expires)'];
  if (laneMove) {
    // A fill or a return of a lane (lib/db/lanes.ts): the counter's readers count its lanes from now on.
    adds.push('lane_moves :one');
    sets.push('lanes = :true');
    Object.assign(values, { ':one': 1, ':true': true });
  }
  if (limits) {
    sets.push('month_limit = :monthLimit');
    values[':monthLimit'] = limits.month;
  }
  const conditions: string[] = [];
  if (ceilings.month !== null) {
    conditions.push('(attribute_not_exists(#spent) OR #spent <= :max)');
    values[':max'] = ceilings.month;
  }
  if (periods.day !== undefined) {
    names['#day'] = daySpentAttribute(periods.day);
    adds.push('#day :amount');
    if (ceilings.day !== null) {
      conditions.push('(attribute_not_exists(#day) OR #day <= :dayMax)');
      values[':dayMax'] = ceilings.day;
    }
    if (limits) {
      sets.push('day_limit = :dayLimit');
      values[':dayLimit'] = limits.day;
    }
  }
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ...(conditions.length === 0
        ? {}
        : { ConditionExpression: conditions.join(' AND '), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }),
    },
  };
}

/** The organization's spend counters of a month and its day. */
export const orgSpendItem = (
  orgId: string,
  amount: number,
  periods: SpendPeriods,
  ceilings = NO_CEILINGS,
  limits?: SpendLimits,
  laneMove = false,
): TransactItem => spendItem(orgSpendKey(orgId, periods.month), amount, periods, ceilings, limits, laneMove);

/** One member's (or API key's) spend counters of a month and its day. */
export const memberSpendItem = (
  orgId: string,
  userId: string,
  amount: number,
  periods: SpendPeriods,
  ceilings = NO_CEILINGS,
  limits?: SpendLimits,
  laneMove = false,
): TransactItem => spendItem(memberSpendKey(orgId, userId, periods.month), amount, periods, ceilings, limits, laneMove);

/** What one scope spent in the current UTC month and on the current UTC day (0 without charges). */
export interface PeriodSpend {
  month: number;
  day: number;
}

/** What a spend counter item holds for `day` (0 when absent), as stored or as a cancelled charge returns it. */
export const periodSpendOf = (item: Record<string, unknown> | undefined | null, day: string): PeriodSpend => ({
  month: Number(item?.spent ?? 0),
  day: Number(item?.[daySpentAttribute(day)] ?? 0),
});

/**
 * What a counter item held for its month and `day`, less what the lanes filled against it still
 * hold of that month and day (lib/db/lanes.ts): what its holder spent. `lanes` are the holder's.
 */
export function spentNet(counter: Record<string, unknown> | undefined | null, lanes: readonly Lane[], day: string): PeriodSpend {
  const counted = periodSpendOf(counter, day);
  const month = day.slice(0, 7);
  for (const lane of lanes) {
    if (lane.month !== month) continue;
    counted.month -= lane.credits;
    if (lane.day === day) counted.day -= lane.credits;
  }
  return counted;
}

/** A lane-aware read of counters gives up comparing after this many reads that kept finding lanes filled or returned (then: the last). */
const LANE_READS = 6;

/**
 * A counter read with its lanes: while the counter says lanes were filled against it, its lanes
 * are read between two reads of the counter that find no fill or return in between, so that the
 * two agree (charges on lanes change neither the counter nor what this subtracts wrongly: each
 * lowers a lane whose credits the counter counts as reserved, and as spent once charged).
 */
async function netOfLanes(
  readItem: () => Promise<Record<string, unknown> | undefined>,
  lanesOf: () => Promise<Lane[]>,
  day: string,
): Promise<PeriodSpend> {
  let item = await readItem();
  for (let read = 1; hasLanes(item); read += 1) {
    const lanes = await lanesOf();
    const again = await readItem();
    if (laneMovesOf(again) === laneMovesOf(item) || read >= LANE_READS) return spentNet(again, lanes, day);
    item = again;
  }
  return periodSpendOf(item, day);
}

/** What the holder of the counter at `key` spent in `now`'s UTC month and day; `payer`: a member's or key's counter. */
async function readCounter(key: TableKey, day: string, orgId: string, payer?: string): Promise<PeriodSpend> {
  const readItem = async () =>
    (
      await db().send(
        new GetCommand({
          TableName: tableName(),
          Key: key,
          ConsistentRead: true,
          ProjectionExpression: '#spent, #day, lanes, lane_moves',
          ExpressionAttributeNames: { '#spent': 'spent', '#day': daySpentAttribute(day) },
        }),
      )
    ).Item;
  return netOfLanes(readItem, () => readLanes(orgId, payer), day);
}

/** Credits the organization spent this month and today (UTC, at `now`): one GetItem. */
export const readOrgSpend = (orgId: string, now: Date): Promise<PeriodSpend> =>
  readCounter(orgSpendKey(orgId, spendMonth(now)), spendDay(now), orgId);

/** BatchGetItem takes at most this many keys a request. */
const BATCH_KEYS = 100;

/**
 * What one user spent this month and today (UTC, at `now`) in each of the organizations given, in
 * their order: one BatchGetItem a hundred organizations, requests in parallel.
 */
export async function readSpendAcross(orgIds: readonly string[], userId: string, now: Date): Promise<PeriodSpend[]> {
  const month = spendMonth(now);
  const keys = orgIds.map((orgId) => memberSpendKey(orgId, userId, month));
  const batches = Array.from({ length: Math.ceil(keys.length / BATCH_KEYS) }, (_, i) => keys.slice(i * BATCH_KEYS, (i + 1) * BATCH_KEYS));
  const items = (await Promise.all(batches.map((batch) => batchGetAll(batch)))).flat();
  const byKey = new Map(items.map((item) => [`${item.PK}|${item.SK}`, item]));
  // A hot organization's counter is read again with its lanes (rare: one more read each).
  return Promise.all(
    orgIds.map((orgId) => {
      const key = memberSpendKey(orgId, userId, month);
      const item = byKey.get(`${key.PK}|${key.SK}`);
      return hasLanes(item) ? readMemberSpend(orgId, userId, now) : periodSpendOf(item, spendDay(now));
    }),
  );
}

/** Credits one member (or API key) spent this month and today (UTC, at `now`): one GetItem. */
export const readMemberSpend = (orgId: string, userId: string, now: Date): Promise<PeriodSpend> =>
  readCounter(memberSpendKey(orgId, userId, spendMonth(now)), spendDay(now), orgId, userId);

/** Credits spent this month and today (UTC, at `now`) by the organization and by one member: two GetItems in parallel. */
export async function readSpend(orgId: string, userId: string, now: Date): Promise<{ org: PeriodSpend; member: PeriodSpend }> {
  const [org, member] = await Promise.all([readOrgSpend(orgId, now), readMemberSpend(orgId, userId, now)]);
  return { org, member };
}

/** What every member of an organization spent this month and today (UTC, at `now`), by user id (one Query on its partition). */
export async function readMembersSpend(orgId: string, now: Date): Promise<Map<string, PeriodSpend>> {
  const day = spendDay(now);
  const prefix = memberSpendPrefix(orgId, spendMonth(now));
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.skPrefix },
    ProjectionExpression: 'SK, #spent, #day, lanes, lane_moves',
    ExpressionAttributeNames: { '#spent': 'spent', '#day': daySpentAttribute(day) },
    ConsistentRead: true,
  });
  const userOf = (item: Record<string, unknown>) => String(item.SK).slice(prefix.skPrefix.length);
  if (!items.some(hasLanes)) return new Map(items.map((item) => [userOf(item), periodSpendOf(item, day)]));
  // A hot organization: each member's counter less what that member's lanes hold (one more Query).
  const lanes = await readLanes(orgId);
  return new Map(
    items.map((item) => [
      userOf(item),
      spentNet(
        item,
        lanes.filter((lane) => lane.payer === userOf(item)),
        day,
      ),
    ]),
  );
}

/** No spend: a scope without a counter this month. */
export const NO_SPEND: PeriodSpend = { month: 0, day: 0 };
