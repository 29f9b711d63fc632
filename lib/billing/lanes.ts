/**
 * Credit lanes of a hot organization (docs/scaling.md, "Credit lanes"): when an organization
 * turns hot, which lane a run charges, and the moves of credits between the balance and the lanes
 * (fill, return, reclaim, the idle return; the fence is lib/db/lanes.ts's). The charge on a lane
 * itself is composed by lib/billing/paid-run.ts, the one place that composes a charge.
 *
 * Every move is one transaction that keeps both sums (lib/db/lanes.ts): the balance and each
 * lane, the organization's and the payer's counters of the lane's month and day. A fill is held
 * to every limit as a charge is (the counters' ceilings, the payer's right to pay with its limits
 * as read, the organization's limits as read); a return gives back exactly what the lane held.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { apiKeyMayPayItem, getApiKey } from '../db/api-keys.ts';
import {
  type CancellationReason,
  conditionFailed,
  conditionFailedOn,
  queryAll,
  type TransactItem,
  tableName,
  transact,
  updateIf,
} from '../db/client.ts';
import { limitsUnchanged, memberMayPayItem, memberSpendItem, orgSpendItem, periodSpendOf, type SpendLimits } from '../db/credits.ts';
import { orgKey, spendDay, spendMonth } from '../db/keys.ts';
import { emptyLane, FILLED_LANES, hasLanes, type Lane, laneEmptyItem, laneFillItem, laneOf, readLane, readLanes } from '../db/lanes.ts';
import { getOrganizationItem, organizationOf } from '../db/organizations.ts';

import { SWEEP_INDEX } from '../db/table.ts';
import { logger } from '../log.ts';
import { isApiKeyId } from '../model.ts';
import { ceilingsOf, holderLimits, limitsOf, type Payer } from './charge-rules.ts';

// ---------------------------------------------------------------- settings

/**
 * How lanes behave: `mode` `auto` (an organization whose charges conflict on its balance turns
 * hot), `always` (every organization's charges use lanes: for measuring) or `off`; `perPayer`
 * lanes for each member or key, at most `perProcess` of them charged by one process at once; a fill tops a lane up to `block` credits (less when the balance
 * is low); `idleMs` after its last fill a lane's credits go back to the balance.
 */
export interface LaneSettings {
  mode: 'auto' | 'always' | 'off';
  perPayer: number;
  perProcess: number;
  block: number;
  hotAfterConflicts: number;
  idleMs: number;
}

const integerFrom = (name: string, value: string | undefined, fallback: number, min: number, max: number): number => {
  const parsed = value === undefined || value === '' ? fallback : Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) throw new Error(`${name} must be an integer ${min}–${max}, not ${value}`);
  return parsed;
};

export function laneSettings(env: NodeJS.ProcessEnv = process.env): LaneSettings {
  const mode = env.HOT_ORGANIZATIONS ?? 'auto';
  if (mode !== 'auto' && mode !== 'always' && mode !== 'off') throw new Error(`HOT_ORGANIZATIONS must be auto, always or off, not ${mode}`);
  return {
    mode,
    perPayer: integerFrom('LANES_PER_PAYER', env.LANES_PER_PAYER, 16, 1, 99),
    // One process charges a payer's runs on at most this many lanes at once: a lane's charge takes
    // milliseconds, so more would only spread the balance thinner (a Lambda instance runs one at a time).
    perProcess: integerFrom('LANES_PER_PROCESS', env.LANES_PER_PROCESS, 2, 1, 99),
    block: integerFrom('LANE_BLOCK_CREDITS', env.LANE_BLOCK_CREDITS, 50, 1, 1_000_000),
    hotAfterConflicts: integerFrom('HOT_AFTER_CONFLICTS', env.HOT_AFTER_CONFLICTS, 1, 1, 1_000),
    idleMs: integerFrom('LANE_IDLE_SECONDS', env.LANE_IDLE_SECONDS, 300, 1, 86_400) * 1000,
  };
}

// ---------------------------------------------------------------- when hot

/**
 * Organizations this process saw turn hot (a charge lost to concurrent ones on the balance), until
 * when: the other runs of the burst that read the organization cold go to lanes at once rather
 * than each lose to the balance first. Runs that read it afterwards see its item's `lanes`.
 */
const seenHot = new Map<string, number>();

export const markHot = (orgId: string, settings: Pick<LaneSettings, 'idleMs'>, nowMs = Date.now()): void => {
  seenHot.set(orgId, nowMs + settings.idleMs);
};

export function knownHot(orgId: string, nowMs = Date.now()): boolean {
  const until = seenHot.get(orgId);
  if (until !== undefined && until <= nowMs) seenHot.delete(orgId);
  return until !== undefined && until > nowMs;
}

// ---------------------------------------------------------------- which lane

/**
 * The lanes this process is charging now, by payer, and the runs waiting for one. A process
 * never sends two charges on one lane at once: a run that finds all of its payer's lanes busy
 * here waits for one (a charge takes milliseconds) rather than conflict with its own process.
 * Deployed, a Lambda instance runs one request at a time and starts at a lane of its own
 * choosing (`start`), moving to another at random when another instance held its lane.
 */
const busy = new Map<string, Set<number>>();
const waiting = new Map<string, ((lane: number) => void)[]>();
const start = new Map<string, number>();

/** One run's hold on a lane: release it when the charge is over; `move` after another process held it. */
export interface LaneLease {
  lane: number;
  release(): void;
  move(): void;
}

export async function takeLane(orgId: string, payer: string, settings: Pick<LaneSettings, 'perPayer' | 'perProcess'>): Promise<LaneLease> {
  const { perPayer } = settings;
  const who = `${orgId}|${payer}`;
  const held = busy.get(who) ?? new Set<number>();
  busy.set(who, held);
  const first = start.get(who) ?? Math.floor(Math.random() * perPayer);
  start.set(who, first);
  let lane = -1;
  if (held.size < settings.perProcess)
    for (let i = 0; i < perPayer && lane < 0; i += 1) if (!held.has((first + i) % perPayer)) lane = (first + i) % perPayer;
  if (lane < 0) {
    const queue = waiting.get(who) ?? [];
    waiting.set(who, queue);
    lane = await new Promise<number>((resolve) => queue.push(resolve));
  } else held.add(lane);
  const lease: LaneLease = {
    lane,
    release() {
      // Handed straight to the next waiting run: the lane stays busy.
      const next = waiting.get(who)?.shift();
      if (next) next(lease.lane);
      else {
        held.delete(lease.lane);
        if (held.size === 0) busy.delete(who);
      }
    },
    move() {
      const free = Array.from({ length: perPayer }, (_, i) => i).filter((i) => !held.has(i));
      const to = free[Math.floor(Math.random() * free.length)];
      if (to === undefined) return;
      held.delete(lease.lane);
      lease.lane = to;
      held.add(lease.lane);
      start.set(who, lease.lane);
    },
  };
  return lease;
}

/** The lanes this process is charging now, as `<payer>#<lane>`: a reclaim leaves them to the runs charging them. */
const busyHere = (orgId: string): Set<string> => {
  const found = new Set<string>();
  for (const [who, lanes] of busy) {
    const [org, payer] = who.split('|');
    if (org === orgId) for (const lane of lanes) found.add(`${payer}#${lane}`);
  }
  return found;
};

// ---------------------------------------------------------------- fill

/** What a fill needs to know of the run that asks for it. */
export interface FillAsk {
  orgId: string;
  userId: string;
  cost: number;
  now: Date;
  retryUntilMs?: number;
}

/** A fill found the organization's limits or the payer changed since they were read: the run reads again. */
export class LanePayerChanged extends Error {}

/** A fill found its lane changed by another (filled, charged, fenced): read it again. */
class LaneMoved extends Error {}

/** A fill the balance or a limit cannot pay, with what they can (0 or more credits). */
class FillShort extends Error {
  constructor(readonly room: number) {
    super('the balance or a limit cannot pay this fill');
  }
}

/**
 * Writes of one hot organization's balance item from this process, one at a time (fills,
 * reclaims, a run's charge on the balance after a reclaim): they would only conflict.
 */
const filling = new Map<string, Promise<unknown>>();

export function oneAtATime<T>(orgId: string, work: () => Promise<T>): Promise<T> {
  const before = filling.get(orgId) ?? Promise.resolve();
  const mine = before.then(work, work);
  const settled = mine.catch(() => undefined);
  filling.set(orgId, settled);
  void settled.then(() => {
    if (filling.get(orgId) === settled) filling.delete(orgId);
  });
  return mine;
}

/**
 * The lane a fill tops up: its credits back first when they count in another day or it is fenced
 * (a return), then read as stored. A lane that changed under the return is read again.
 */
async function current(lane: Lane, periods: { month: string; day: string }): Promise<Lane> {
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const stale = lane.fenced || (lane.credits > 0 && (lane.month !== periods.month || lane.day !== periods.day));
    if (!stale) return lane;
    await returnLanes([lane]);
    lane = await readLane(lane.orgId, lane.payer, lane.lane);
  }
  return lane;
}

/**
 * Tops `lane` up from the balance so that it can pay `ask.cost`: a block (or, with a low balance,
 * a share of it that leaves the other lanes charging here something), less when the balance or a
 * limit has less room, never less than what this charge needs. True: filled (or found filled by
 * another); false: the balance and the limits cannot pay this charge's cost into a lane.
 *
 * The fills a process wants for one organization are sent together: while one fill transaction
 * is out, the others wait, and the next transaction fills all of them (group commit), so a burst
 * takes one write of the balance item per round trip rather than one per lane.
 */
export function fillLane(payer: Payer, ask: FillAsk, lane: Lane, settings = laneSettings()): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    wishes.set(ask.orgId, [...(wishes.get(ask.orgId) ?? []), { payer, ask, lane, settings, resolve, reject }]);
    if (draining.has(ask.orgId)) return;
    draining.add(ask.orgId);
    void oneAtATime(ask.orgId, async () => {
      try {
        while ((wishes.get(ask.orgId)?.length ?? 0) > 0) await fillWished(ask.orgId);
      } finally {
        draining.delete(ask.orgId);
        wishes.delete(ask.orgId);
      }
    });
  });
}

/** A fill a run waits for. */
interface FillWish {
  payer: Payer;
  ask: FillAsk;
  lane: Lane;
  settings: LaneSettings;
  resolve(filled: boolean): void;
  reject(error: unknown): void;
}

const wishes = new Map<string, FillWish[]>();
const draining = new Set<string>();

/** Items of a fill transaction besides its lanes: the balance and the organization's counter, and two a payer. */
const FILL_ITEMS_MAX = 99;

/**
 * Takes the fills waiting for `orgId` that one transaction can hold (the same organization limits
 * and period as read, one view of each payer's limits, under 100 items), and fills them: alone as
 * a single fill, together as one transaction; a batch that is refused for any reason but a
 * conflict is sent again one fill at a time, so that each gets its own answer.
 */
async function fillWished(orgId: string): Promise<void> {
  const queue = wishes.get(orgId) ?? [];
  const [head] = queue;
  if (!head) return;
  const period = (wish: FillWish) => spendDay(wish.ask.now);
  const payers = new Map<string, FillWish['payer']['member']>();
  const batch: FillWish[] = [];
  const rest: FillWish[] = [];
  for (const wish of queue) {
    const known = payers.get(wish.ask.userId);
    const fits =
      wish.payer.org.spending_limit === head.payer.org.spending_limit &&
      wish.payer.org.daily_limit === head.payer.org.daily_limit &&
      period(wish) === period(head) &&
      (known === undefined ||
        (known.spending_limit === wish.payer.member.spending_limit && known.daily_limit === wish.payer.member.daily_limit)) &&
      2 + 2 * (payers.size + (known ? 0 : 1)) + batch.length + 1 <= FILL_ITEMS_MAX;
    if (!fits) {
      rest.push(wish);
      continue;
    }
    payers.set(wish.ask.userId, wish.payer.member);
    batch.push(wish);
  }
  wishes.set(orgId, rest);
  try {
    const planned = await planFills(batch);
    if (planned.length === 1 || !underLimitsTogether(planned)) return await settle(planned, (fill) => fillOne(fill));
    if (planned.length === 0) return;
    try {
      await transact(batchFillTransaction(planned), () => new BatchRefused(), head.ask.retryUntilMs);
      for (const fill of planned) fill.wish.resolve(true);
    } catch (error) {
      if (!(error instanceof BatchRefused)) throw error;
      await settle(planned, (fill) => fillOne(fill));
    }
  } catch (error) {
    for (const wish of batch) wish.reject(error);
  }
}

/** One fill decided: the lane as it stands, how much it takes, the paying key's expiry. */
interface PlannedFill {
  wish: FillWish;
  had: Lane;
  need: number;
  amount: number;
  expiresAt: string | null;
}

/** Each wish's lane made current (returned first if stale), and its amount: those already able to pay are answered at once. */
async function planFills(batch: FillWish[]): Promise<PlannedFill[]> {
  const planned: PlannedFill[] = [];
  for (const wish of batch) {
    const { ask, settings, payer } = wish;
    const periods = { month: spendMonth(ask.now), day: spendDay(ask.now) };
    const had = await current(wish.lane, periods);
    if (had.credits >= ask.cost && !had.fenced) {
      wish.resolve(true);
      continue;
    }
    const need = ask.cost - had.credits;
    // A low balance is shared out among the lanes charging here rather than taken by the first to ask.
    const share = Math.floor(payer.org.credits / (2 * Math.max(1, busyHere(ask.orgId).size)));
    // A counter's condition cannot refuse a period's first write (it has no attribute yet to compare):
    // no fill takes more than a limit itself, as no charge costs more (creditRefusal).
    const amount = Math.min(Math.max(need, Math.min(settings.block - had.credits, share)), mostUnderLimits(payer));
    if (amount < need) {
      wish.resolve(false);
      continue;
    }
    const expiresAt = isApiKeyId(ask.userId) ? ((await getApiKey(ask.orgId, ask.userId))?.expires_at ?? null) : null;
    planned.push({ wish, had, need, amount, expiresAt });
  }
  return planned;
}

/** The most one fill may move: the smallest of the organization's and the payer's limits as read (Infinity without). */
function mostUnderLimits(payer: Payer): number {
  const limits = [holderLimits(payer, 'org'), holderLimits(payer, 'member')].flatMap((scope) => [scope.month, scope.day]);
  return Math.min(...limits.map((limit) => limit ?? Number.POSITIVE_INFINITY));
}

/** Whether fills may share one transaction: together they take no more than any limit itself (mostUnderLimits). */
function underLimitsTogether(planned: PlannedFill[]): boolean {
  const total = planned.reduce((sum, fill) => sum + fill.amount, 0);
  const [first] = planned;
  if (!first || total > mostUnderLimits({ ...first.wish.payer, member: { role: '', spending_limit: null, daily_limit: null } }))
    return false;
  const byPayer = new Map<string, number>();
  for (const fill of planned) byPayer.set(fill.wish.ask.userId, (byPayer.get(fill.wish.ask.userId) ?? 0) + fill.amount);
  return planned.every((fill) => (byPayer.get(fill.wish.ask.userId) ?? 0) <= mostUnderLimits(fill.wish.payer));
}

/** Answers each planned fill by `fill`, one at a time. */
async function settle(planned: PlannedFill[], fill: (one: PlannedFill) => Promise<boolean>): Promise<void> {
  for (const one of planned) {
    try {
      one.wish.resolve(await fill(one));
    } catch (error) {
      one.wish.reject(error);
    }
  }
}

/** A batch of fills was refused by a condition: each is sent on its own. */
class BatchRefused extends Error {}

/** One fill on its own: a balance or a limit with less room fills what it can, down to this charge's need. */
async function fillOne({ wish, had, need, amount: wanted, expiresAt }: PlannedFill): Promise<boolean> {
  const { payer, ask } = wish;
  const periods = { month: spendMonth(ask.now), day: spendDay(ask.now) };
  let amount = wanted;
  for (let attempt = 1; attempt <= 4; attempt += 1) {
    try {
      await transact(
        fillTransaction(payer, ask, had, amount, periods, expiresAt),
        (reasons) => fillCancellation(reasons, payer, amount, periods.day),
        ask.retryUntilMs,
      );
      return true;
    } catch (error) {
      if (error instanceof LaneMoved) return true;
      if (!(error instanceof FillShort)) throw error;
      if (error.room < need) return false;
      amount = Math.min(error.room, amount - 1);
    }
  }
  return false;
}

/** Many fills in one transaction (pure): the balance and the organization's counter once, each payer's counter and right once. */
function batchFillTransaction(planned: PlannedFill[]): TransactItem[] {
  const [first] = planned;
  if (!first) return [];
  const { payer, ask } = first.wish;
  const periods = { month: spendMonth(ask.now), day: spendDay(ask.now) };
  const total = planned.reduce((sum, fill) => sum + fill.amount, 0);
  const orgLimits = holderLimits(payer, 'org');
  const items: TransactItem[] = [
    balanceMoveItem(ask.orgId, total, payer),
    orgSpendItem(ask.orgId, total, periods, ceilingsOf(orgLimits, total), orgLimits, true),
  ];
  const byPayer = new Map<string, PlannedFill[]>();
  for (const fill of planned) byPayer.set(fill.wish.ask.userId, [...(byPayer.get(fill.wish.ask.userId) ?? []), fill]);
  for (const [userId, fills] of byPayer) {
    const own = fills[0]?.wish.payer ?? payer;
    const amount = fills.reduce((sum, fill) => sum + fill.amount, 0);
    const memberLimits = holderLimits(own, 'member');
    items.push(
      memberSpendItem(ask.orgId, userId, amount, periods, ceilingsOf(memberLimits, amount), memberLimits, true),
      mayPayItem(ask.orgId, userId, own, ask.now),
    );
  }
  for (const fill of planned) items.push(laneFillItem(fill.had, fill.amount, periods, fill.wish.ask.now, fill.expiresAt));
  return items;
}

/** The payer's right to pay with its limits as read: a member's membership, or an API key's record. */
const mayPayItem = (orgId: string, userId: string, payer: Payer, now: Date): TransactItem =>
  isApiKeyId(userId)
    ? apiKeyMayPayItem(orgId, userId, limitsOf(payer.member), now)
    : memberMayPayItem(orgId, userId, limitsOf(payer.member));

/** The organization's balance item as a fill or a return moves `amount` off it (negative: onto it). */
function balanceMoveItem(orgId: string, amount: number, payer?: Payer): TransactItem {
  const values: Record<string, unknown> = { ':amount': amount, ':one': 1, ':true': true };
  const conditions = ['attribute_exists(PK)'];
  if (payer && amount > 0) {
    const unchanged = limitsUnchanged(limitsOf(payer.org));
    conditions.push('credits >= :amount', unchanged.condition);
    Object.assign(values, unchanged.values);
  }
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(orgId),
      UpdateExpression: 'SET credits = credits - :amount, lanes = :true ADD lane_moves :one',
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeValues: values,
      ...(payer ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
    },
  };
}

/** Positions in a fill transaction. */
const FILL_ITEM = { org: 0, orgSpend: 1, memberSpend: 2, mayPay: 3, lane: 4 } as const;

/** A fill (pure): the balance, both counters under their limits, the payer's right to pay with its limits as read, the lane. */
function fillTransaction(
  payer: Payer,
  ask: FillAsk,
  had: Lane,
  amount: number,
  periods: { month: string; day: string },
  expiresAt: string | null,
): TransactItem[] {
  const [orgLimits, memberLimits] = [holderLimits(payer, 'org'), holderLimits(payer, 'member')];
  return [
    balanceMoveItem(ask.orgId, amount, payer),
    orgSpendItem(ask.orgId, amount, periods, ceilingsOf(orgLimits, amount), orgLimits, true),
    memberSpendItem(ask.orgId, ask.userId, amount, periods, ceilingsOf(memberLimits, amount), memberLimits, true),
    mayPayItem(ask.orgId, ask.userId, payer, ask.now),
    laneFillItem(had, amount, periods, ask.now, expiresAt),
  ];
}

/** The room a counter's limits leave (as stored on failure), or Infinity without a limit. */
const roomUnder = (item: Record<string, unknown>, limits: SpendLimits, day: string): number => {
  const spent = periodSpendOf(item, day);
  return Math.min(
    limits.month === null ? Number.POSITIVE_INFINITY : limits.month - spent.month,
    limits.day === null ? Number.POSITIVE_INFINITY : limits.day - spent.day,
  );
};

function fillCancellation(reasons: CancellationReason[], payer: Payer, amount: number, day: string): Error | null {
  const org = conditionFailedOn(reasons, FILL_ITEM.org);
  if (org === null) return new LanePayerChanged('the organization is gone');
  if (conditionFailed(reasons, FILL_ITEM.mayPay)) return new LanePayerChanged('the payer changed since it was read');
  const stored = org && organizationOf(org);
  if (stored && (stored.spending_limit !== payer.org.spending_limit || stored.daily_limit !== payer.org.daily_limit))
    return new LanePayerChanged('the organization changed since it was read');
  if (conditionFailed(reasons, FILL_ITEM.lane)) return new LaneMoved();
  let room = amount;
  if (stored) room = Math.min(room, stored.credits);
  const orgCounter = conditionFailedOn(reasons, FILL_ITEM.orgSpend);
  if (orgCounter) room = Math.min(room, roomUnder(orgCounter, holderLimits(payer, 'org'), day));
  const memberCounter = conditionFailedOn(reasons, FILL_ITEM.memberSpend);
  if (memberCounter) room = Math.min(room, roomUnder(memberCounter, holderLimits(payer, 'member'), day));
  if (!stored && !orgCounter && !memberCounter) return null;
  return new FillShort(Math.max(0, room));
}

// ---------------------------------------------------------------- return

/**
 * Lanes' credits back to the balance, their fences lifted, in one transaction per month and day
 * they count in (normally one): each lane as read, the balance, the organization's and each
 * payer's counters of the lanes' own month and day (so a return across midnight frees exactly
 * what the fill took). A lane that changed meanwhile (charged, filled) is read again and the
 * transaction sent again. Returns the credits returned.
 */
export async function returnLanes(lanes: readonly Lane[]): Promise<number> {
  const groups = new Map<string, Lane[]>();
  for (const lane of lanes) {
    if (lane.credits === 0 && !lane.fenced) continue;
    const period = `${lane.month}|${lane.day}`;
    groups.set(period, [...(groups.get(period) ?? []), lane]);
  }
  let returned = 0;
  for (const group of groups.values()) {
    for (let at = 0; at < group.length; at += RETURN_CHUNK) returned += await returnGroup(group.slice(at, at + RETURN_CHUNK));
  }
  return returned;
}

/** Lanes a return transaction holds at most: with the balance, the organization's counter and a counter a payer, under 100 items. */
const RETURN_CHUNK = 45;

/** Lanes of one month and day back to the balance (returnLanes). */
async function returnGroup(group: Lane[]): Promise<number> {
  let lanes = group;
  for (let attempt = 1; attempt <= 4 && lanes.length > 0; attempt += 1) {
    const holding = lanes.filter((lane) => lane.credits > 0);
    const total = holding.reduce((sum, lane) => sum + lane.credits, 0);
    const items: TransactItem[] = lanes.map(laneEmptyItem);
    const first = lanes[0];
    if (total > 0 && first?.month !== undefined) {
      const periods = { month: first.month, day: first.day };
      const byPayer = new Map<string, number>();
      for (const lane of holding) byPayer.set(lane.payer, (byPayer.get(lane.payer) ?? 0) + lane.credits);
      items.push(balanceMoveItem(first.orgId, -total), orgSpendItem(first.orgId, -total, periods, undefined, undefined, true));
      for (const [payer, credits] of byPayer)
        items.push(memberSpendItem(first.orgId, payer, -credits, periods, undefined, undefined, true));
    }
    const sent = lanes;
    try {
      await transact(items, (reasons) => (sent.some((_, i) => conditionFailed(reasons, i)) ? new LanesMoved(reasons) : null));
      return total;
    } catch (error) {
      if (!(error instanceof LanesMoved)) throw error;
      // Charged or filled meanwhile: those lanes are read again, the others sent as they were.
      const again = await Promise.all(
        sent.map((lane, i) => (conditionFailed(error.reasons, i) ? readLane(lane.orgId, lane.payer, lane.lane) : lane)),
      );
      lanes = again.filter((lane) => lane.credits > 0 || lane.fenced);
    }
  }
  return 0;
}

/** A return found some of its lanes changed by another: which, by position. */
class LanesMoved extends Error {
  constructor(readonly reasons: CancellationReason[]) {
    super('lanes changed under their return');
  }
}

/** How long a charge about to be refused waits at most for this process's other runs on the organization's lanes. */
const IDLE_WAIT_MS = 2_000;

/**
 * Until no run of this process charges a lane of the organization, or `untilMs` (at most
 * IDLE_WAIT_MS from now): a charge about to be refused lets them spend or leave what their lanes
 * hold first, so that the reclaim after it finds those credits too. Past the wait (a burst that
 * never pauses), the refusal is early by at most what those lanes hold (docs/charges.md).
 */
export async function idleHere(orgId: string, untilMs = Number.POSITIVE_INFINITY): Promise<void> {
  const until = Math.min(untilMs, Date.now() + IDLE_WAIT_MS);
  while (busyHere(orgId).size > 0 && Date.now() < until) await sleep(5);
}

/**
 * Every lane of the organization that holds credits back to the balance, except those this
 * process is charging now (their runs are about to spend them): before a charge is refused, so
 * that a refusal means the organization's unreserved credits and allowance could not pay it.
 * One at a time with this process's fills. Returns the credits returned.
 */
export function reclaimLanes(orgId: string): Promise<number> {
  return oneAtATime(orgId, async () => {
    const mine = busyHere(orgId);
    const held = (await readLanes(orgId)).filter((lane) => (lane.credits > 0 || lane.fenced) && !mine.has(`${lane.payer}#${lane.lane}`));
    const returned = await returnLanes(held);
    if (returned > 0) logger.info('lanes reclaimed before a refusal', { organization_id: orgId, credits: returned });
    return returned;
  });
}

// ---------------------------------------------------------------- idle return

/**
 * The sweeper's pass over lanes (the same schedule as the pending runs'): every lane not filled
 * for `idleMs` goes back to the balance, so that credits a hot organization stopped using (or a
 * killed process left in a lane) are back within `idleMs` plus one sweep. A lane charged
 * meanwhile is left for the next pass.
 */
export async function returnIdleLanes(nowMs = Date.now(), settings = laneSettings()): Promise<{ lanes: number; credits: number }> {
  const items = await queryAll({
    IndexName: SWEEP_INDEX,
    KeyConditionExpression: 'GSI1PK = :listed AND GSI1SK < :before',
    ExpressionAttributeValues: { ':listed': FILLED_LANES, ':before': String(nowMs - settings.idleMs).padStart(15, '0') },
  });
  let [lanes, credits] = [0, 0];
  const orgs = new Set<string>();
  for (const item of items) {
    // The index is eventually consistent: the lane is returned as stored now.
    const found = laneOf(item);
    const lane = await readLane(found.orgId, found.payer, found.lane);
    if (lane.filledAtMs > nowMs - settings.idleMs) continue;
    // An emptied lane is unlisted too (returned as if fenced: nothing to give back).
    credits += await returnLanes([lane.credits === 0 ? { ...lane, fenced: true } : lane]);
    lanes += 1;
    orgs.add(lane.orgId);
  }
  for (const orgId of orgs) await coolDown(orgId);
  if (lanes > 0) logger.info('idle lanes returned', { lanes, credits });
  return { lanes, credits };
}

/**
 * An organization whose lanes all hold nothing turns cold again: its item loses `lanes`, so its
 * runs charge the balance and its reads are one GetItem, as a small organization's. Only if no
 * fill moved credits since the lanes were read (`lane_moves`): a fill racing this keeps it hot.
 */
async function coolDown(orgId: string): Promise<void> {
  const org = await getOrganizationItem(orgId);
  if (!org || !hasLanes(org)) return;
  if ((await readLanes(orgId)).some((lane) => lane.credits > 0 || lane.fenced)) return;
  const cooled = await updateIf({
    TableName: tableName(),
    Key: orgKey(orgId),
    UpdateExpression: 'REMOVE lanes',
    ConditionExpression: 'lane_moves = :seen',
    ExpressionAttributeValues: { ':seen': org.lane_moves ?? 0 },
  });
  if (cooled) logger.info('organization is cold again: its lanes are empty and idle', { organization_id: orgId });
}

export { emptyLane, readLane };
