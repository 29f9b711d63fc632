/**
 * A paid run's money, whole: the charge (with its limits, its event, its pending record and its
 * Idempotency-Key claim), the takeover of a dead attempt's run, the settle that delivers it, the
 * refund, and the undo of a charge whose write was not confirmed. This module alone decides which
 * items go into each of those transactions; the storage modules build the items and send them.
 * Every entry point that moves a run's credits calls it: the run path (REST and MCP), the sweeper,
 * the admin CLI and the seed.
 *
 * The invariant it keeps (docs/charges.md): a charge stands if and only if its result was
 * delivered. A charge is written before the provider call with a pending record; the record is
 * removed by the settle (before the result goes out) or by the refund (in the refund's own
 * transaction); whatever is left once the run can no longer finish, the sweeper refunds.
 */
import { TOKEN_REFUSALS } from '../auth/refusals.ts';
import { apiKeyMayPayItem, apiKeyOf, grantOf, standingOf } from '../db/api-keys.ts';
import { billingEventPut, newBillingEvent } from '../db/billing-events.ts';
import {
  type CancellationReason,
  conditionFailed,
  conditionFailedOn,
  deleteItem,
  mayHaveBeenWritten,
  type TransactItem,
  transact,
} from '../db/client.ts';
import { conflictPauseMs } from '../db/conflict-retry.ts';
import {
  creditItem,
  debitItem,
  type Limits,
  memberMayPayItem,
  memberSpendItem,
  newChargeId,
  orgSpendItem,
  type PeriodSpend,
  periodSpendOf,
  readSpend,
} from '../db/credits.ts';
import { type ClaimedCharge, claimItem, completionItem, type InProgressRecord, releaseItem, takeoverItem } from '../db/idempotency.ts';
import { budgetSpentOf, getJobBudgetSpent, jobBudgetCharge, jobBudgetRefund } from '../db/job-budget.ts';
import { spendDay, spendMonth } from '../db/keys.ts';
import { emptyLane, laneChargeItem, laneKey, laneOf } from '../db/lanes.ts';
import { membershipOf } from '../db/memberships.ts';
import { organizationOf } from '../db/organizations.ts';
import {
  type HeldCharge,
  type PendingRun,
  pendingRunDelete,
  pendingRunDeleteInput,
  pendingRunPut,
  pendingRunTransfer,
} from '../db/pending-runs.ts';
import type { TableKey } from '../db/table.ts';
import {
  chargeUnconfirmed,
  insufficientCredits,
  invalidToken,
  jobMaxCreditsExceeded,
  resultNotRecorded,
  resultNotRecordedRefundPending,
  runOutlivedDeadline,
  ServiceError,
} from '../errors.ts';
import { logError, logger, logKeys } from '../log.ts';
import { isApiKeyId } from '../model.ts';
import { recordCreditsCharged, recordCreditsRefunded, recordRefundFailure } from '../observability/metrics.ts';
import {
  accessRefusal,
  type ChargeAsk,
  ceilingsOf,
  creditRefusal,
  type Holder,
  holderLimits,
  limitRefusal,
  limitRules,
  limitsOf,
  type Payer,
  type Spent,
  shortfallRefusal,
} from './charge-rules.ts';
import {
  fillLane,
  idleHere,
  knownHot,
  LanePayerChanged,
  type LaneSettings,
  laneSettings,
  markHot,
  oneAtATime,
  reclaimLanes,
  takeLane,
} from './lanes.ts';

export type { HeldCharge } from '../db/pending-runs.ts';

/** The charge found state other than what was read (a limit changed): read again and decide afresh. */
export class StaleRead extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'StaleRead';
  }
}

/** The Idempotency-Key was claimed or taken over by a concurrent request: read again (a replay or a 409 follows). */
export class KeyClaimed extends StaleRead {}

/** A takeover found the claim's run gone (settled or refunded outside the protocol): charge afresh, replacing the claim. */
export class RunOrphaned extends StaleRead {
  constructor(readonly chargeId: string) {
    super(`the run of charge ${chargeId} is gone while its Idempotency-Key claim remains`);
  }
}

/** With an Idempotency-Key, the claim taken in the charge's transaction. */
export interface ClaimRequest {
  key: TableKey;
  requestHash: string;
  leaseMs: number;
  /** The charge id of an orphaned claim this one replaces (RunOrphaned). */
  replacing?: string;
}

/** One run to charge: what it costs, who pays, and the attempt that will hold it. */
export interface ChargeRequest extends ChargeAsk {
  orgId: string;
  userId: string;
  now: Date;
  /** The attempt that holds the run: only it may settle or refund it. */
  owner: string;
  /** Epoch ms from which the sweeper may refund the run if it is still pending. */
  sweepAfterMs: number;
  /** The request that runs it: named in the charge's and the refund's metadata. */
  requestId?: string;
  claim?: ClaimRequest;
  /** No attempt of the charge starts after this instant (epoch ms): a charge that lost to concurrent ones retries until then. */
  retryUntilMs?: number;
  /** A job's item whose job has a cap (`max_credits`): the charge counts in the job's budget, under the cap. */
  job?: JobBudget;
  /** A consent the charge spends (MCP, lib/mcp/consent.ts): its single-use item, last, and the refusal once it is used. */
  consent?: ChargeConsent;
}

/** A consent spent by the charge it allows: put once (a second put fails), and what refuses a charge that finds it spent. */
export interface ChargeConsent {
  item: TransactItem;
  refusal: Error;
}

/** The capped job a charge counts in: its id and its `max_credits`. */
export interface JobBudget {
  id: string;
  maxCredits: number;
}

/** What a cancelled charge found: for the organization and the membership, the stored item when its condition failed. */
export interface ChargeCancelled {
  org: Record<string, unknown> | null | undefined;
  member: Record<string, unknown> | null | undefined;
  /** A spend counter whose limits refused the charge: what it held for the charge's month and day (a 402 reports it as `spent`). */
  orgSpent: PeriodSpend | undefined;
  memberSpent: PeriodSpend | undefined;
  claimTaken: boolean;
  /** A capped job's budget that refused the charge: what its charges held against the cap. */
  jobSpent: number | undefined;
  /** The consent was spent already (by a concurrent call with the same token). */
  consentUsed?: boolean;
}

// ---------------------------------------------------------------- the charge

/** The run a charge pays for, as its attempt holds it. */
const heldRun = (request: ChargeRequest, chargeId: string): HeldCharge => ({
  orgId: request.orgId,
  userId: request.userId,
  operation: request.operation,
  cost: request.cost,
  month: spendMonth(request.now),
  day: spendDay(request.now),
  eventId: chargeId,
  ...(request.job ? { jobId: request.job.id } : {}),
  owner: request.owner,
  sweepAfterMs: request.sweepAfterMs,
  ...(request.claim ? { idempotencyKey: request.claim.key } : {}),
  ...(request.requestId ? { requestId: request.requestId } : {}),
});

/** What a charge's and its refund's events name, for a program that follows the money. */
const eventMetadata = (run: HeldCharge): Record<string, string> => ({
  operation: run.operation,
  charge_id: run.eventId,
  ...(isApiKeyId(run.userId) ? { api_key_id: run.userId } : { user_id: run.userId }),
  ...(run.requestId ? { request_id: run.requestId } : {}),
});

/**
 * The payer's right to pay, checked inside the charge: a member's membership, or an API key's
 * record (which also must not be revoked or expired, so a revocation racing a run is never charged).
 */
const payerMayPayItem = (request: ChargeRequest, limits: Limits): TransactItem =>
  isApiKeyId(request.userId)
    ? apiKeyMayPayItem(request.orgId, request.userId, limits, request.now)
    : memberMayPayItem(request.orgId, request.userId, limits);

/**
 * Positions in the charge transaction, read back from its cancellation reasons. A condition of a
 * new kind is one more item at a position of its own (after the claim's, or in its place when
 * there is no claim), decoded first or last in refusalOf by where its refusal ranks.
 */
const CHARGE_ITEM = { org: 0, member: 1, orgSpend: 2, memberSpend: 3, claim: 6 } as const;

/** Where a capped job's budget sits in the charge transaction: after the claim, or in its place without one. */
const jobBudgetAt = (request: Pick<ChargeRequest, 'claim'>): number => (request.claim ? CHARGE_ITEM.claim + 1 : CHARGE_ITEM.claim);

/**
 * The charge transaction (pure): the debit, the member's right to pay, both spend counters (each
 * adding to its month and its day, bounded by the limits of both), the charge event, the pending
 * run, with a key the claim and, for an item of a capped job, the job's budget. Every rule is a
 * condition inside it, so the balance never goes negative and no limit or cap is exceeded under
 * any concurrency; a daily limit is one more condition on the month's counter item, not an item of
 * its own, and a job's cap one more item of the same transaction, not a round trip.
 */
export function chargeTransaction(request: ChargeRequest, payer: Payer, chargeId: string): TransactItem[] {
  const { orgId, userId, cost, now } = request;
  const periods = { month: spendMonth(now), day: spendDay(now) };
  const [orgLimits, memberLimits] = [holderLimits(payer, 'org'), holderLimits(payer, 'member')];
  return [
    debitItem(orgId, cost, limitsOf(payer.org), request.network),
    payerMayPayItem(request, limitsOf(payer.member)),
    orgSpendItem(orgId, cost, periods, ceilingsOf(orgLimits, cost), orgLimits),
    memberSpendItem(orgId, userId, cost, periods, ceilingsOf(memberLimits, cost), memberLimits),
    ...runRecords(request, chargeId),
  ];
}

/**
 * What every charge writes beside the credits it takes (pure): the charge event, the pending run,
 * with a key the claim and, for an item of a capped job, the job's budget.
 */
function runRecords(request: ChargeRequest, chargeId: string): TransactItem[] {
  const { orgId, userId, cost, now } = request;
  const periods = { month: spendMonth(now), day: spendDay(now) };
  const run: PendingRun = { ...heldRun(request, chargeId), chargedAt: now.toISOString() };
  const event = newBillingEvent({
    id: chargeId,
    type: 'social_operation.charged',
    title: request.operation,
    description: `${request.operation} run by ${userId}`,
    amount: -cost,
    now,
    metadata: eventMetadata(run),
  });
  const items = [billingEventPut(orgId, event), pendingRunPut(run)];
  if (request.claim) {
    const charge: ClaimedCharge = { id: chargeId, cost, ...periods, ...(request.job ? { job: request.job.id } : {}) };
    const { key, requestHash, leaseMs, replacing } = request.claim;
    items.push(
      claimItem(key, { requestHash, owner: request.owner, nowMs: now.getTime(), leaseMs, charge, ...(replacing ? { replacing } : {}) }),
    );
  }
  if (request.job) items.push(jobBudgetCharge(request.job.id, cost, request.job.maxCredits));
  if (request.consent) items.push(request.consent.item);
  return items;
}

/**
 * A hot organization's charge transaction (pure): lane `lane` of the payer in place of the
 * balance, both counters and the payer's right to pay, which the lane's fill wrote and checked
 * (lib/billing/lanes.ts); the rest as a cold charge's. No item of it is shared with another
 * payer's charge, nor with a charge of the same payer on another lane.
 */
export function laneChargeTransaction(request: ChargeRequest, chargeId: string, lane: number): TransactItem[] {
  const periods = { month: spendMonth(request.now), day: spendDay(request.now) };
  return [
    laneChargeItem(laneKey(request.orgId, request.userId, lane), request.cost, periods, request.now),
    ...runRecords(request, chargeId),
  ];
}

/** Positions in a charge on a lane. */
const LANE_CHARGE_ITEM = { lane: 0, claim: 3 } as const;

/** The lane could not pay this charge (`item`: the lane as stored, null when never filled): fill it, or return it first. */
class LaneShort extends Error {
  constructor(readonly item: Record<string, unknown> | null) {
    super('the lane cannot pay this charge');
  }
}

/** Another process's charge held the lane: this run moves to another lane rather than wait its turn. */
class LaneHeld extends Error {}

/** Why a charge on a lane was cancelled: the claim (409), a spent consent, a job's cap (402), then the lane (filled, and the charge sent again). */
function laneChargeCancellation(reasons: Parameters<typeof conditionFailedOn>[0], request: ChargeRequest): Error | null {
  if (request.claim && conditionFailed(reasons, LANE_CHARGE_ITEM.claim))
    return new KeyClaimed('the Idempotency-Key was claimed concurrently');
  const jobAt = request.claim ? LANE_CHARGE_ITEM.claim + 1 : LANE_CHARGE_ITEM.claim;
  if (request.consent && conditionFailed(reasons, jobAt + (request.job ? 1 : 0))) return request.consent.refusal;
  const job = request.job ? conditionFailedOn(reasons, jobAt) : undefined;
  if (job !== undefined && request.job) return jobCapRefusal(request.job, budgetSpentOf(job ?? {}), request.cost);
  const lane = conditionFailedOn(reasons, LANE_CHARGE_ITEM.lane);
  return lane === undefined ? null : new LaneShort(lane);
}

/**
 * What a cancelled charge of `request` found, from its cancellation reasons, or null when no
 * condition failed (pure).
 */
export function chargeCancellation(
  reasons: Parameters<typeof conditionFailedOn>[0],
  request: Pick<ChargeRequest, 'now' | 'claim' | 'job' | 'consent'>,
): ChargeCancelled | null {
  const day = spendDay(request.now);
  const spent = (index: number) => {
    const item = conditionFailedOn(reasons, index);
    return item === undefined ? undefined : periodSpendOf(item, day);
  };
  const job = request.job ? conditionFailedOn(reasons, jobBudgetAt(request)) : undefined;
  const found: ChargeCancelled = {
    org: conditionFailedOn(reasons, CHARGE_ITEM.org),
    member: conditionFailedOn(reasons, CHARGE_ITEM.member),
    orgSpent: spent(CHARGE_ITEM.orgSpend),
    memberSpent: spent(CHARGE_ITEM.memberSpend),
    claimTaken: request.claim !== undefined && conditionFailed(reasons, CHARGE_ITEM.claim),
    jobSpent: job === undefined ? undefined : budgetSpentOf(job ?? {}),
    ...(request.consent ? { consentUsed: conditionFailed(reasons, jobBudgetAt(request) + (request.job ? 1 : 0)) } : {}),
  };
  const anyFailed =
    found.org !== undefined ||
    found.member !== undefined ||
    found.orgSpent !== undefined ||
    found.memberSpent !== undefined ||
    found.jobSpent !== undefined;
  return anyFailed || found.claimTaken || found.consentUsed ? found : null;
}

/** 402 for an item of a capped job that what its job's charges hold leaves no room for. */
const jobCapRefusal = (job: JobBudget, spent: number, cost: number): ServiceError =>
  jobMaxCreditsExceeded(cost, job.maxCredits, Math.max(0, job.maxCredits - spent));

const sameLimits = (a: Limits, b: Limits): boolean => a.spending_limit === b.spending_limit && a.daily_limit === b.daily_limit;

/**
 * Why a charge was cancelled, in the documented order of checks: 403 (membership, role,
 * network) → 409 (the idempotency claim) → 402 (a job's cap, the limits in their order, then the
 * balance). A condition that failed only because a limit changed since it was read → StaleRead. Pure.
 */
export function refusalOf(found: ChargeCancelled, payer: Payer, request: ChargeRequest): Error {
  const org = found.org === undefined ? payer.org : found.org && organizationOf(found.org);
  const key = isApiKeyId(request.userId) && found.member ? apiKeyOf(found.member) : undefined;
  const standing = key && standingOf(key, request.now);
  // The key was revoked (or expired) between the request's first read and its charge.
  if (standing && standing !== 'active') return invalidToken(standing, TOKEN_REFUSALS[standing]);
  const member =
    found.member === undefined ? payer.member : found.member && (key ? { ...grantOf(key), user_id: key.id } : membershipOf(found.member));
  const access = accessRefusal(org, member, request);
  if (access) return access;
  if (found.claimTaken) return new KeyClaimed('the Idempotency-Key was claimed concurrently');
  if (found.consentUsed && request.consent) return request.consent.refusal;
  // First of the 402s, and decided by the job's own item: whatever else changed, this charge is refused.
  if (found.jobSpent !== undefined && request.job) return jobCapRefusal(request.job, found.jobSpent, request.cost);
  // Limits changed since they were read: what refuses this charge, if anything, is decided afresh.
  if (found.member !== undefined || (found.org && org && !sameLimits(org, payer.org))) {
    return new StaleRead('a spending limit changed since it was read');
  }
  const spent: Record<Holder, PeriodSpend | undefined> = { org: found.orgSpent, member: found.memberSpent };
  for (const rule of limitRules(payer)) {
    const counter = spent[rule.holder];
    if (counter && counter[rule.period] + request.cost > rule.limit)
      return limitRefusal(rule, counter[rule.period], request.cost, request.now);
  }
  // DynamoDB reports every item whose condition failed, so a limit that refuses too was seen above.
  if (found.org && org && org.credits < request.cost) return insufficientCredits(org.credits, request.cost);
  return new StaleRead('the charge was cancelled for no reason it names');
}

/**
 * The 402 for a payer who cannot pay as read, in the documented order: a job's cap, then a limit,
 * then the balance; so a capped job's budget and a payer's spend (with limits) are read first,
 * together (a refusal path only).
 */
async function shortfallError(payer: Payer, request: ChargeRequest): Promise<ServiceError> {
  const { job } = request;
  const [jobSpent, spent] = await Promise.all([
    job ? getJobBudgetSpent(job.id) : 0,
    limitRules(payer).length === 0
      ? ({ org: { month: 0, day: 0 }, member: { month: 0, day: 0 } } satisfies Spent)
      : readSpend(request.orgId, request.userId, request.now),
  ]);
  if (job && jobSpent + request.cost > job.maxCredits) return jobCapRefusal(job, jobSpent, request.cost);
  return shortfallRefusal(creditRefusal(payer, request.cost, spent) ?? { kind: 'balance' }, payer, spent, request.cost, request.now);
}

/**
 * Charges one run for `payer` (as read) and records it pending, or throws: a 403/402/409
 * ServiceError, StaleRead (read again), or the storage error. Refuses from what was read when it
 * can (no transaction spent on a certain 402); a cancelled charge is answered with the same rules.
 *
 * A charge whose write failed without saying whether it was made (DynamoDB's 500, a timeout) is
 * undone at once, so that the error may invite a retry without the client paying twice until the
 * sweeper runs: the undo is the refund, conditional on the run's pending record, so it writes
 * nothing if the charge was not made. If the undo fails too, the answer says not to retry yet.
 */
export async function chargeRun(payer: Payer, request: ChargeRequest): Promise<HeldCharge> {
  if (creditRefusal(payer, request.cost)) throw await shortfallError(payer, request);
  const chargeId = newChargeId();
  const run = heldRun(request, chargeId);
  const settings = laneSettings();
  try {
    const hot = payer.org.lanes || settings.mode === 'always' || knownHot(request.orgId);
    if (settings.mode !== 'off' && hot) await chargeOnLane(payer, request, chargeId, settings);
    else await chargeBalance(payer, request, chargeId, settings);
  } catch (error) {
    if (error instanceof ServiceError || error instanceof StaleRead || !mayHaveBeenWritten(error)) throw error;
    throw await undoUnconfirmedCharge(run, error);
  }
  recordCreditsCharged(request.cost);
  return run;
}

/** A cold charge lost to concurrent ones on its organization's balance often enough: the run (and the organization) moves to lanes. */
class TurnedHot extends Error {}

/**
 * A cold organization's charge: the balance item and the counters in the one transaction. In
 * `auto`, one that loses HOT_AFTER_CONFLICTS times to concurrent charges on the balance or the
 * organization's counter stops waiting and charges a lane (whose fill makes the organization hot).
 */
async function chargeBalance(payer: Payer, request: ChargeRequest, chargeId: string, settings: LaneSettings): Promise<void> {
  let contended = 0;
  const onConflict = (reasons: CancellationReason[]) => {
    if (settings.mode !== 'auto') return;
    const held = (at: number) => reasons[at]?.Code === 'TransactionConflict';
    if (held(CHARGE_ITEM.org) || held(CHARGE_ITEM.orgSpend)) contended += 1;
    if (contended >= settings.hotAfterConflicts || knownHot(request.orgId)) throw new TurnedHot();
  };
  try {
    await transact(
      chargeTransaction(request, payer, chargeId),
      (reasons) => {
        const found = chargeCancellation(reasons, request);
        return found && refusalOf(found, payer, request);
      },
      request.retryUntilMs,
      onConflict,
    );
  } catch (error) {
    if (!(error instanceof TurnedHot)) throw error;
    if (!knownHot(request.orgId))
      logger.info('charges conflict on the balance: the organization turns hot', { organization_id: request.orgId });
    markHot(request.orgId, settings);
    await chargeOnLane(payer, request, chargeId, settings);
  }
}

/**
 * A hot organization's charge: on a lane of the payer that no other run of this process is
 * charging (lib/billing/lanes.ts), moving to another when another process held it. A lane that
 * cannot pay is filled from the balance; when neither the balance nor a limit can fill it, the
 * run waits for this process's other runs on the organization's lanes to finish (idleHere), every
 * lane goes back to the balance and the run is charged as a cold organization's, whose refusal is
 * exact: a run is refused only when the organization's unreserved credits and allowance could not
 * pay it, up to what lanes other processes' runs were charging at that moment held
 * (docs/charges.md).
 */
async function chargeOnLane(payer: Payer, request: ChargeRequest, chargeId: string, settings: LaneSettings): Promise<void> {
  const { orgId, userId } = request;
  const lease = await takeLane(orgId, userId, settings);
  let released = false;
  let moves = 0;
  // Another process's charge held the lane: move to another at most LANE_MOVES times, then wait for it
  // under the charge's retry policy (lib/db/conflict-retry.ts), as a cold charge waits for the balance.
  const lost = (reasons: CancellationReason[]) => {
    if (reasons[LANE_CHARGE_ITEM.lane]?.Code === 'TransactionConflict' && moves < LANE_MOVES) throw new LaneHeld();
  };
  try {
    for (let attempt = 1; attempt <= LANE_ATTEMPTS; attempt += 1) {
      try {
        const items = laneChargeTransaction(request, chargeId, lease.lane);
        await transact(items, (reasons) => laneChargeCancellation(reasons, request), request.retryUntilMs, lost);
        return;
      } catch (error) {
        if (error instanceof LaneHeld) {
          moves += 1;
          lease.move();
          continue;
        }
        if (!(error instanceof LaneShort)) throw error;
        const lane = error.item ? laneOf(error.item) : emptyLane(orgId, userId, lease.lane);
        if (await fillLane(payer, request, lane, settings).catch(rethrowAsStale)) continue;
        // About to be refused: this process's other runs may hold what it needs in their lanes.
        // Out of the lanes, let them finish, then every lane back and a cold charge.
        lease.release();
        released = true;
        await idleHere(orgId, request.retryUntilMs);
        await reclaimLanes(orgId);
        return await oneAtATime(orgId, () => chargeBalance(payer, request, chargeId, { ...settings, mode: 'off' }));
      }
    }
    throw new StaleRead('the lane kept changing under this charge');
  } finally {
    if (!released) lease.release();
  }
}

/** A charge moves off a lane another process holds at most this often; then it waits its turn there. */
const LANE_MOVES = 2;

/** A charge on a lane gives up (and the run reads again) after this many fills or moves that did not let it through. */
const LANE_ATTEMPTS = 8;

/** A fill found the payer or the organization's limits changed: the run reads them again and decides afresh. */
const rethrowAsStale = (error: unknown): never => {
  throw error instanceof LanePayerChanged ? new StaleRead(error.message) : error;
};

async function undoUnconfirmedCharge(run: HeldCharge, error: unknown): Promise<unknown> {
  const outcome = await refundRun(run, 'the charge could not be confirmed');
  if (outcome === 'refunded') logKeys({ credits_refunded: run.cost });
  if (outcome !== 'failed') return error;
  logError('charge not confirmed and not undone; the sweeper will refund it if it was made', error, { charge: run.eventId });
  logKeys({ credits_refund_pending: run.cost });
  return chargeUnconfirmed();
}

// ---------------------------------------------------------------- the takeover

/** The attempt taking a dead attempt's run over. */
export interface Takeover {
  orgId: string;
  userId: string;
  operation: string;
  owner: string;
  nowMs: number;
  leaseMs: number;
  sweepAfterMs: number;
}

/**
 * Takes an in-progress claim whose lease ran out, and the pending run it names, from the dead
 * attempt that held them, in one transaction: the dead attempt's charge pays for this one, which
 * is not charged again. Throws KeyClaimed when the claim or the run changed hands since it was
 * read, RunOrphaned when the claim is unchanged but its run is gone.
 */
export async function takeOverRun(key: TableKey, record: InProgressRecord & { charge: ClaimedCharge }, to: Takeover): Promise<HeldCharge> {
  const { charge } = record;
  const items = [
    takeoverItem(key, record, to),
    pendingRunTransfer({ orgId: to.orgId, eventId: charge.id }, record.owner, to.owner, to.sweepAfterMs),
  ];
  await transact(items, (reasons) => {
    if (conditionFailed(reasons, 0)) return new KeyClaimed('the Idempotency-Key was taken over concurrently');
    // The transfer returns the run when another attempt holds it, nothing when it is gone.
    if (conditionFailed(reasons, 1)) {
      return conditionFailedOn(reasons, 1) ? new KeyClaimed('the run was taken over concurrently') : new RunOrphaned(charge.id);
    }
    return null;
  });
  logger.info('took over the run of an attempt that died mid-call', { charge: charge.id });
  return {
    orgId: to.orgId,
    userId: to.userId,
    operation: to.operation,
    cost: charge.cost,
    month: charge.month,
    ...(charge.day === undefined ? {} : { day: charge.day }),
    eventId: charge.id,
    ...(charge.job === undefined ? {} : { jobId: charge.job }),
    owner: to.owner,
    sweepAfterMs: to.sweepAfterMs,
    idempotencyKey: key,
  };
}

// ---------------------------------------------------------------- the settle

/** A settle that lost to a concurrent transaction or failed is tried again at most this often. */
const SETTLE_ATTEMPTS = 8;

/**
 * A settle's condition failed. `ours`: what failed can only be this attempt's own earlier write (a
 * settle that landed while its answer was lost, and was sent again by us or by the SDK's retry).
 * Otherwise the run outlived its deadline: the sweeper refunded it (which releases the key) or a
 * retry with its key took it over (which changes the claim's owner).
 */
class RunNotHeld extends Error {
  constructor(readonly ours: boolean) {
    super('the run is not held by this attempt');
  }
}

/**
 * The result is in hand: settle the run (remove its pending record; with a key, store the
 * response for replays in the same transaction) and resolve only once that is confirmed, so that
 * a result is delivered only when its charge stands. A settle that fails is tried again until
 * `untilMs`; if it is still not confirmed, the charge is refunded at once and the run answers
 * 500 (refunded, or the refund is delayed and the pending record left to the sweeper).
 *
 * `response`: with an Idempotency-Key, the answer to store.
 */
export async function settleRun(
  run: HeldCharge,
  response: Parameters<typeof completionItem>[2] | undefined,
  { untilMs, nowMs }: { untilMs: number; nowMs: number },
): Promise<void> {
  const key = run.idempotencyKey;
  // With a key, the claim still being ours tells: a takeover changes its owner, a swept refund
  // deletes it. Without one (no takeover possible), the sweeper refunds only once the run is due.
  // Without a key the settle is one DeleteItem (half the write units of a one-item transaction).
  const send =
    key && response
      ? () =>
          transact([completionItem(key, run.owner, response), pendingRunDelete(run)], (reasons) =>
            conditionFailed(reasons, 0) || conditionFailed(reasons, 1) ? new RunNotHeld(!conditionFailed(reasons, 0)) : null,
          )
      : () =>
          deleteItem(pendingRunDeleteInput(run)).catch((error: unknown) => {
            if ((error as Error | null)?.name !== 'ConditionalCheckFailedException') throw error;
            throw new RunNotHeld(nowMs < run.sweepAfterMs);
          });
  let unconfirmed = false;
  let lastError: unknown;
  for (let attempt = 1; attempt <= SETTLE_ATTEMPTS; attempt += 1) {
    try {
      await send();
      return;
    } catch (error) {
      if (error instanceof RunNotHeld) {
        // Before its deadline nobody else removes this attempt's run: an earlier attempt of this
        // settle was written after all. Otherwise the run outlived its deadline and was refunded
        // by the sweeper or taken over by a retry: this result must not go out.
        if (unconfirmed || error.ours) return;
        logger.warn('run outlived its deadline: its charge was refunded or taken over', { charge: run.eventId });
        throw runOutlivedDeadline();
      }
      lastError = error;
      unconfirmed ||= mayHaveBeenWritten(error);
      const pauseMs = conflictPauseMs(attempt + 2);
      if (Date.now() + pauseMs >= untilMs) break;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
  logError('SETTLE FAILED: refunding the run instead of delivering it', lastError, { charge: run.eventId });
  const outcome = await refundRun(run, 'the result could not be recorded');
  // Gone: the settle was written after all (nobody else removes the run before its deadline).
  if (outcome === 'gone') return;
  logKeys(outcome === 'failed' ? { credits_refund_pending: run.cost } : { credits_refunded: run.cost });
  throw outcome === 'refunded' ? resultNotRecorded() : resultNotRecordedRefundPending();
}

// ---------------------------------------------------------------- the refund

/**
 * What a refund did: `refunded`; `gone` when the run was no longer held by `run.owner` (or no
 * longer due, for the sweeper): refunded already, settled, or handed to a retry, so nothing was
 * written; `failed` when it could not be written (the pending record stays, and the sweeper
 * refunds the run once it is due).
 */
export type RefundOutcome = 'refunded' | 'gone' | 'failed';

/**
 * The refund transaction (pure): credits back, both spend counters of the charge's month and day
 * down (not the current ones, so a refund across midnight or a month boundary frees exactly what
 * the charge took: a run charged before midnight counts in that day however late it ends), a
 * refund event naming the charge, the pending run deleted (held by `run.owner`; due by `dueBy`
 * when the sweeper asks), with a key its claim released and, for an item of a capped job, its
 * cost given back to the job's budget.
 */
export function refundTransaction(
  run: HeldCharge,
  reason: string,
  now: Date,
  dueBy?: number,
  extraMetadata: Record<string, string> = {},
): TransactItem[] {
  const event = newBillingEvent({
    type: 'social_operation.refunded',
    title: `${run.operation} refunded`,
    description: `${run.operation} run by ${run.userId}: ${reason}; charge ${run.eventId} refunded`,
    amount: run.cost,
    now,
    // Extra facts of the run (its providers' attempts, for the health counters), never the money's.
    metadata: { ...extraMetadata, ...eventMetadata(run) },
  });
  const items = [
    creditItem(run.orgId, run.cost),
    orgSpendItem(run.orgId, -run.cost, run),
    memberSpendItem(run.orgId, run.userId, -run.cost, run),
    billingEventPut(run.orgId, event),
    pendingRunDelete(run, dueBy),
  ];
  if (run.idempotencyKey) items.push(releaseItem(run.idempotencyKey, run.owner));
  if (run.jobId !== undefined) items.push(jobBudgetRefund(run.jobId, run.cost));
  return items;
}

/** Positions in the refund transaction. */
const REFUND_ITEM = { pending: 4, release: 5 } as const;

class RunGone extends Error {}
class KeyGone extends Error {}

/**
 * Gives a run's charge back, once, whoever asks (the run itself, any number of sweepers): every
 * item is conditional on the run's pending record being held by `run.owner`. Never throws.
 */
export async function refundRun(
  run: HeldCharge,
  reason: string,
  options: { now?: Date; dueBy?: number; metadata?: Record<string, string> } = {},
): Promise<RefundOutcome> {
  const now = options.now ?? new Date();
  try {
    await transact(refundTransaction(run, reason, now, options.dueBy, options.metadata), (reasons) => {
      if (conditionFailed(reasons, REFUND_ITEM.pending)) return new RunGone();
      if (run.idempotencyKey && conditionFailed(reasons, REFUND_ITEM.release)) return new KeyGone();
      return null;
    });
  } catch (error) {
    if (error instanceof RunGone) return 'gone';
    // The claim is no longer this run's (it expired after 24 h and the key was used again):
    // refund without touching it.
    if (error instanceof KeyGone) return refundRun({ ...run, idempotencyKey: undefined }, reason, options);
    logError('REFUND FAILED: the sweeper will refund this charge once its run is due', error, { charge: run });
    recordRefundFailure();
    return 'failed';
  }
  recordCreditsRefunded(run.cost);
  return 'refunded';
}
