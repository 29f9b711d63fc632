/**
 * A job's life, whole (docs/jobs.md): its creation, the claim of an item, an item's result and the
 * job's end, the release of an item, the cancel, and the recovery's claim of a stalled job. This
 * module alone decides which writes go into each of those transactions, on which conditions, and
 * what a refused one means; lib/db/jobs.ts builds the writes (in the job's terms) and sends
 * single ones. The worker, the routes and the recovery call it. The rules it keeps:
 *
 * - **An item's result is written once**, by whoever holds the item: pending → running (the claim)
 *   → succeeded or failed, each move conditional on the one before, with the job's counters.
 * - **A job ends exactly once**: in the transaction that writes its last item's result, or the
 *   cancel that finds nothing running, or (for a worker that died in between) `endJob`; with its
 *   organization's `active_jobs` down and its active marker gone. It ends `cancelled` if a cancel
 *   was asked, `completed` otherwise, and its webhook's delivery becomes pending.
 * - **A cancel** counts every item not yet claimed as cancelled, at once; no item is claimed after
 *   it, so none of those is ever charged. Items already running finish; the last of them ends
 *   the job.
 * - **A 402** (credits or a limit refused an item) is recorded on the job with that item's
 *   result, the first one only; no item is claimed after it, and each item not yet claimed fails
 *   with that same error, uncharged. The job's own cap (`max_credits`) is not such a 402: it is
 *   a condition of each item's charge (lib/billing/paid-run.ts), and refuses only the items that
 *   would pass it.
 *
 * A write that finds the job changed by a concurrent one (another item's result, a cancel) is
 * decided afresh from the job it found, under lib/db/conflict-retry.ts's policy. A job's counters
 * change a bounded number of times (each item's claim and result, one cancel), so that ends.
 */
import { randomUUID } from 'node:crypto';
import type { ChargeConsent } from '../billing/paid-run.ts';
import { conditionFailed, conditionFailedOn, requestDeadlineMs, type TransactItem, transact, updateIf } from '../db/client.ts';
import { retryConflicts } from '../db/conflict-retry.ts';
import {
  activeJobsDecrement,
  activeJobsIncrement,
  activeMarkerDelete,
  activeMarkerPut,
  getJob,
  type ItemError,
  type ItemResult,
  itemCancelled,
  itemClaim,
  itemReleased,
  itemResult,
  type JobChange,
  type JobCondition,
  type JobCounter,
  type JobKeyClaim,
  type JobRecord,
  jobKeyPut,
  jobOf,
  jobUpdate,
  newJobPut,
} from '../db/jobs.ts';
import { errorFields, jobLimitReached, notAMember, type ServiceError } from '../errors.ts';

/** Queued or running: not ended. */
export const isActive = (job: JobRecord): boolean => job.status === 'queued' || job.status === 'running';

/** Whether its items not yet claimed may still run: active, and no cancel asked. Otherwise a cancel changes nothing. */
export const cancellable = (job: JobRecord): boolean => isActive(job) && !job.cancel_requested;

/** The job read again and found changed by a concurrent write: decide afresh (conflict-retry's policy). */
class JobChanged extends Error {}
const changed = (error: unknown): boolean => error instanceof JobChanged;

/** What ends with a job, beside it: its organization's active-job counter down, its active marker gone. */
const endedWith = (job: { id: string; organization_id: string }): TransactItem[] => [
  activeJobsDecrement(job.organization_id),
  activeMarkerDelete(job.id),
];

/** A job's end as written on it: `cancelled` if a cancel was asked, `completed` otherwise; its webhook's delivery pending. */
const ending = (job: JobRecord, at: string): JobChange => ({
  status: job.cancel_requested ? 'cancelled' : 'completed',
  completedAt: at,
  ...(job.webhook_url ? { webhookStatus: 'pending' as const } : {}),
});

// ---------------------------------------------------------------- creation

export interface NewJobFields {
  orgId: string;
  operation: string;
  total: number;
  createdById: string;
  now: Date;
  maxAgeSeconds?: number | null;
  /** The `fields` every item's output is projected to (its canonical form), or null for whole outputs. */
  outputFields?: string | null;
  /** The most its items may be charged in all, or null: no cap. */
  maxCredits?: number | null;
  webhookUrl?: string | null;
  webhookSecret?: string | null;
}

/**
 * A job as its creation writes it: queued, every item queued, nothing counted, and its messages
 * `sending` until the last one is on the queue (a creation killed before that leaves it to the
 * recovery).
 */
export const newJob = (fields: NewJobFields): JobRecord => ({
  id: `job_${randomUUID().replaceAll('-', '')}`,
  organization_id: fields.orgId,
  operation: fields.operation,
  status: 'queued',
  total: fields.total,
  queued: fields.total,
  running: 0,
  succeeded: 0,
  failed: 0,
  cancelled: 0,
  charged: 0,
  created_at: fields.now.toISOString(),
  created_by_id: fields.createdById,
  completed_at: null,
  max_age_seconds: fields.maxAgeSeconds ?? null,
  fields: fields.outputFields ?? null,
  max_credits: fields.maxCredits ?? null,
  // A capped job's budget starts at nothing spent: its items' charges are conditional on it.
  budget_spent: fields.maxCredits == null ? null : 0,
  cancel_requested: false,
  refusal: null,
  webhook_url: fields.webhookUrl ?? null,
  webhook_secret: fields.webhookSecret ?? null,
  webhook_status: null,
  webhook_attempts: 0,
  messages: 'sending',
  messages_sent_at: null,
  recovered_at: null,
});

/** The Idempotency-Key names a job already. */
class KeyTaken extends Error {
  constructor(readonly record: { jobId: string; requestHash: string }) {
    super(`the Idempotency-Key names job ${record.jobId}`);
  }
}

/**
 * The creation transaction: the job, its organization's active-job counter (at most
 * `maxActive`, so that concurrent creations can never pass it), its active marker and, with a
 * key, the key's record. Null once written; the job the key names already (nothing written), so
 * that a concurrent creation with the same key answers with it. Throws 409 `job_limit_reached`
 * at the limit, 403 when the organization is gone.
 */
export async function createJob(
  job: JobRecord,
  maxActive: number,
  claim: JobKeyClaim | undefined,
  nowMs: number,
  consent?: ChargeConsent,
): Promise<{ jobId: string; requestHash: string } | null> {
  const items = [newJobPut(job), activeJobsIncrement(job.organization_id, maxActive), activeMarkerPut(job)];
  if (claim) items.push(jobKeyPut(claim, job.id, nowMs));
  // A consent the creation spends (MCP start_job above confirm_above): last, once.
  if (consent) items.push(consent.item);
  try {
    await transact(items, (reasons) => {
      const taken = claim ? conditionFailedOn(reasons, 3) : undefined;
      if (taken) return new KeyTaken({ jobId: String(taken.job_id), requestHash: String(taken.request_hash) });
      if (consent && conditionFailed(reasons, items.length - 1)) return consent.refusal;
      if (conditionFailed(reasons, 1)) return conditionFailedOn(reasons, 1) ? jobLimitReached(maxActive) : notAMember();
      return null;
    });
    return null;
  } catch (error) {
    if (error instanceof KeyTaken) return error.record;
    throw error;
  }
}

/**
 * The creation's last write: every message of the job is on the queue. Conditional on the job
 * still saying `sending`: false when a recovery marked it first (it sent the messages again; the
 * copies are harmless). Not conditional on the job being active: its items may all have run, or
 * a cancel ended it, before this is written, and that changes nothing.
 */
export async function markJobMessagesSent(jobId: string, now: Date): Promise<boolean> {
  return (await updateIf(jobUpdate(jobId, { messagesSentAt: now.toISOString() }, { messages: 'sending' }))) !== null;
}

// ---------------------------------------------------------------- an item's life

/** Why a claim was refused: the job as it stands (null: gone), or the item no longer pending. */
export type ClaimRefused = { job: JobRecord | null } | { itemNotPending: true };

class ClaimRefusedError extends Error {
  constructor(readonly refused: ClaimRefused) {
    super('the claim was refused');
  }
}

/** When an item may start: its job active, no cancel asked, no 402 recorded, and something queued. */
const CLAIMABLE: JobCondition = { active: true, cancelRequested: false, refused: false, queued: ['>', 0] };

/**
 * Claims a pending item for a worker until `leaseUntilMs`, in one transaction with the job's
 * counters (queued → running) and its status (running). Refused (null is success) when the item
 * is not pending, or the job is not CLAIMABLE.
 */
export async function claimJobItem(jobId: string, index: number, leaseUntilMs: number, now: Date): Promise<ClaimRefused | null> {
  const at = now.toISOString();
  try {
    await transact(
      [
        { Update: itemClaim(jobId, index, leaseUntilMs, now) },
        { Update: jobUpdate(jobId, { status: 'running', startedAt: at, add: { queued: -1, running: 1 } }, CLAIMABLE, true) },
      ],
      (reasons) => {
        if (conditionFailed(reasons, 0)) return new ClaimRefusedError({ itemNotPending: true });
        if (!conditionFailed(reasons, 1)) return null;
        const job = conditionFailedOn(reasons, 1);
        return new ClaimRefusedError({ job: job ? jobOf(job) : null });
      },
    );
    return null;
  } catch (error) {
    if (error instanceof ClaimRefusedError) return error.refused;
    throw error;
  }
}

export interface ItemOutcome extends ItemResult {
  /** The 402 that refused this item: recorded on the job, so that the items after it fail with it uncharged. */
  refusal?: ItemError;
}

/**
 * An item whose run was refused or failed: the error body a single run would have answered. A
 * 402 of the balance or a limit also refuses the job's items not yet claimed. The job's own cap
 * (`max_credits_exceeded`) refuses this item only: each item is judged by what is left when it is
 * charged, which a refund of another item, or a cheaper cached result, may leave room for.
 */
export function failedOutcome(error: ServiceError): ItemOutcome {
  const body = errorFields(error);
  const spreads = error.status === 402 && error.code !== 'max_credits_exceeded';
  return { status: 'failed', error: body, charged: 0, ...(spreads ? { refusal: body } : {}) };
}

/** What writing an item's result did: written (the job goes on), written and the job ended, or not written. */
export type Finished =
  | { result: 'finished' }
  /** This was the job's last item: the job ended in the same transaction. `job` is the job as it stood before. */
  | { result: 'ended'; job: JobRecord }
  /** The item had left `from` (another delivery wrote it first): nothing written. */
  | { result: 'moved' }
  /** A pending item of a job being cancelled: the cancel counted it; nothing written. */
  | { result: 'cancelled' };

class ItemMoved extends Error {}

/** The job's counters say this is its last item (`job` as it stood, null if gone). */
class LastItem extends Error {
  constructor(readonly job: JobRecord | null) {
    super('the last item of its job');
  }
}

/**
 * Writes an item's result once: conditional on its status still being `from` (running for a run,
 * pending for an item failed without running), in one transaction with the job's counters. The
 * transaction also asks that something else remain queued or running; when that fails, this is the
 * job's last item, and the result is written by the transaction that also ends the job: exactly
 * once, and no read of the job after every item to find out.
 */
export async function finishJobItem(
  job: { id: string; organization_id: string },
  index: number,
  from: 'running' | 'pending',
  outcome: ItemOutcome,
  now: Date,
): Promise<Finished> {
  const at = now.toISOString();
  const item: TransactItem = { Update: itemResult(job.id, index, from, outcome, now) };
  const add: Partial<Record<JobCounter, number>> = { charged: outcome.charged };
  add[from === 'running' ? 'running' : 'queued'] = -1;
  add[outcome.status] = 1;
  const counted: JobChange = { add, ...(outcome.refusal ? { refusal: outcome.refusal } : {}) };
  // The counts before this write at which it is the last item: nothing else queued or running.
  const [lastQueued, lastRunning] = from === 'running' ? [0, 1] : [1, 0];
  const othersRemain: JobCondition = {
    anyOf: [{ queued: ['>', lastQueued] }, { running: ['>', lastRunning] }],
    // A pending item is the cancel's to count once a cancel is asked.
    ...(from === 'pending' ? { cancelRequested: false } : {}),
  };
  const attempt = async (): Promise<Finished> => {
    let last: JobRecord;
    try {
      await transact([item, { Update: jobUpdate(job.id, counted, othersRemain, true) }], (reasons) => {
        if (conditionFailed(reasons, 0)) return new ItemMoved();
        const found = conditionFailedOn(reasons, 1);
        return found === undefined ? null : new LastItem(found ? jobOf(found) : null);
      });
      return { result: 'finished' };
    } catch (error) {
      if (error instanceof ItemMoved) return { result: 'moved' };
      if (!(error instanceof LastItem)) throw error;
      if (!error.job) throw new Error(`job ${job.id} is gone while its item ${index} was being written`);
      last = error.job;
    }
    if (from === 'pending' && last.cancel_requested) return { result: 'cancelled' };
    // The last item: its result, the job's end and the organization's counter, together, if the job is still as found.
    const stillLast: JobCondition = {
      active: true,
      queued: ['=', lastQueued],
      running: ['=', lastRunning],
      cancelRequested: last.cancel_requested,
    };
    const end = jobUpdate(job.id, { ...counted, ...ending(last, at) }, stillLast, true);
    try {
      await transact([item, { Update: end }, ...endedWith(job)], (reasons) => {
        if (conditionFailed(reasons, 0)) return new ItemMoved();
        const found = conditionFailedOn(reasons, 1);
        if (found === undefined) return null;
        // Nothing ends a job while one of its items runs: trying again would not help.
        if (from === 'running' && !(found && isActive(jobOf(found))))
          return new Error(`job ${job.id} ended or is gone while its item ${index} was running`);
        return new JobChanged(`the result of item ${index} of job ${job.id} could not be written: the job kept changing`);
      });
      return { result: 'ended', job: last };
    } catch (error) {
      if (error instanceof ItemMoved) return { result: 'moved' };
      throw error;
    }
  };
  return retryConflicts(attempt, changed, requestDeadlineMs());
}

/**
 * A pending item its job will not run. A cancel was asked (or the job ended): the item is shown
 * cancelled, the cancel having counted it. A 402 refused an earlier item: it fails with that
 * error, uncharged. Null: neither, the job may run it (claim it).
 */
export async function settleUnrunnableItem(job: JobRecord, index: number, now: Date): Promise<Finished | null> {
  if (!cancellable(job)) {
    await markItemCancelled(job.id, index, now);
    return { result: 'cancelled' };
  }
  if (!job.refusal) return null;
  const finished = await finishJobItem(job, index, 'pending', { status: 'failed', error: job.refusal, charged: 0 }, now);
  if (finished.result === 'cancelled') await markItemCancelled(job.id, index, now);
  return finished;
}

/**
 * Shows a pending item of a cancelled job as cancelled (the cancel counted it already: no
 * counter moves). Conditional, so it never touches an item a worker claimed.
 */
async function markItemCancelled(jobId: string, index: number, now: Date): Promise<void> {
  await updateIf(itemCancelled(jobId, index, now));
}

/**
 * Ends a running item's lease now: its worker met an error it cannot place (the table throttled,
 * an unknown failure), so the message's next delivery may take the item over at once instead of
 * waiting out the lease. Conditional on the item still running.
 */
export async function releaseJobItem(jobId: string, index: number, nowMs: number): Promise<void> {
  await updateIf(itemReleased(jobId, index, nowMs));
}

// ---------------------------------------------------------------- the end of a job

class NotEnded extends Error {}

/**
 * Ends a job whose items are all finished, exactly once: its end and the organization's
 * active-job counter down, in one transaction conditional on the job being active with nothing
 * queued or running. False when it was not (another worker ended it, or items remain).
 */
async function endJob(job: JobRecord, now: Date): Promise<boolean> {
  try {
    await transact(
      [
        { Update: jobUpdate(job.id, ending(job, now.toISOString()), { active: true, queued: ['=', 0], running: ['=', 0] }) },
        ...endedWith(job),
      ],
      (reasons) => (conditionFailed(reasons, 0) ? new NotEnded() : null),
    );
    return true;
  } catch (error) {
    if (error instanceof NotEnded) return false;
    throw error;
  }
}

/**
 * Ends the job if nothing is queued or running, for a worker that died between an item's
 * result and the job's end (or a result an older worker wrote): the job as it stood when this
 * ended it, or null (not active, items remain, or another got there first).
 */
export async function endJobIfDone(jobId: string, now: Date): Promise<JobRecord | null> {
  const job = await getJob(jobId);
  if (!job || !isActive(job) || job.queued > 0 || job.running > 0) return null;
  return (await endJob(job, now)) ? job : null;
}

export type CancelOutcome = 'ended' | 'requested' | 'inactive';

/**
 * Cancels an active job: every item not yet claimed counts as cancelled at once (its stored
 * status stays pending until a worker or the listing sees the job, and no worker can claim it).
 * With nothing running the job ends now (`ended`, the organization's counter down in the same
 * transaction); otherwise it ends as cancelled when its last running item finishes (`requested`).
 * `inactive`: the job had ended already, or a cancel was asked before.
 */
export async function cancelJob(job: JobRecord, now: Date): Promise<CancelOutcome> {
  const cancel: JobChange = { queuedToCancelled: true, cancelRequested: true };
  const uncancelled: JobCondition = { active: true, cancelRequested: false };
  const ended: JobChange = { ...cancel, ...ending({ ...job, cancel_requested: true }, now.toISOString()) };
  const attempt = async (): Promise<CancelOutcome> => {
    try {
      await transact([{ Update: jobUpdate(job.id, ended, { ...uncancelled, running: ['=', 0] }) }, ...endedWith(job)], (reasons) =>
        conditionFailed(reasons, 0) ? new NotEnded() : null,
      );
      return 'ended';
    } catch (error) {
      if (!(error instanceof NotEnded)) throw error;
    }
    if (await updateIf(jobUpdate(job.id, cancel, { ...uncancelled, running: ['>', 0] }))) return 'requested';
    const found = await getJob(job.id);
    if (!found || !cancellable(found)) return 'inactive';
    // The last running item finished between the two writes.
    throw new JobChanged(`job ${job.id} could not be cancelled: it kept changing`);
  };
  return retryConflicts(attempt, changed, requestDeadlineMs());
}

/**
 * The job as a cancel of `job` (read just before it) wrote it, without reading it again; null
 * when only a read can say (the job had ended, or items were running and may have finished since).
 */
export function afterCancel(job: JobRecord, outcome: CancelOutcome, now: Date): JobRecord | null {
  if (outcome === 'inactive' || job.running > 0) return null;
  const moved: JobRecord = { ...job, cancelled: job.cancelled + job.queued, queued: 0, cancel_requested: true };
  if (outcome === 'requested') return moved;
  return {
    ...moved,
    status: 'cancelled',
    completed_at: now.toISOString(),
    ...(job.webhook_url ? { webhook_status: 'pending' as const } : {}),
  };
}

// ---------------------------------------------------------------- a stalled creation

/**
 * A job stalled at `cutoff`: active, not being cancelled, created by the cutoff, and its messages
 * never marked sent. A job created before `messages` existed counts only while still `queued`
 * with no item ever claimed: one that ran items had its messages sent.
 */
const stalledBy = (cutoff: Date): JobCondition => ({
  active: true,
  cancelRequested: false,
  createdBy: cutoff.toISOString(),
  anyOf: [{ messages: 'sending' }, { messages: 'absent', status: 'queued', started: false }],
});

/** `stalledBy` as read: whether a job looks stalled (the claim's condition decides, atomically). */
export function isStalled(job: JobRecord, cutoff: Date): boolean {
  if (!cancellable(job) || job.created_at > cutoff.toISOString()) return false;
  if (job.messages === 'sending') return true;
  return job.messages === null && job.status === 'queued' && job.queued === job.total;
}

/**
 * Takes a stalled job for one recovery until `leaseUntilMs`: conditional on it being stalled at
 * `cutoff` and no other recovery holding it. The job as it now stands, or null when the
 * condition refused it (healthy, ended, or another recovery's): two recoveries at once never
 * both send.
 */
export async function claimStalledJob(jobId: string, cutoff: Date, leaseUntilMs: number, nowMs: number): Promise<JobRecord | null> {
  const write = jobUpdate(jobId, { recoveryLeaseUntilMs: leaseUntilMs }, { ...stalledBy(cutoff), recoveryFreeAt: nowMs });
  const item = await updateIf({ ...write, ReturnValues: 'ALL_NEW' });
  return item ? jobOf(item) : null;
}

/**
 * A recovery sent the job's messages again: marked sent (and recovered), its hold ended.
 * Conditional on nobody having marked it sent meanwhile (a late creation): false then.
 */
export async function markJobRecovered(jobId: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const write = jobUpdate(
    jobId,
    { messagesSentAt: at, recoveredAt: at, recoveryLeaseUntilMs: null },
    { exists: true, anyOf: [{ messages: 'absent' }, { messages: 'sending' }] },
  );
  return (await updateIf(write)) !== null;
}
