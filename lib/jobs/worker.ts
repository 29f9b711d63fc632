/**
 * The worker: what one queue message does, whatever queue delivered it (functions/job-worker.ts
 * on SQS, the embedded queue under `npm start` and the tests). Deliveries are at least once; each
 * step is conditional or idempotent, so a message delivered twice, or taken over after its
 * worker died, changes nothing the first delivery did:
 *
 * 1. read the job and the item;
 * 2. an item already finished: acknowledge (and end the job if that is what the dead worker left);
 * 3. a pending item of a cancelled job: shown cancelled, uncharged; of a job a 402 refused: failed
 *    with that error, uncharged; otherwise claimed (pending → running, with a lease) in one
 *    transaction with the job's counters;
 * 4. run it like a single run, through `runSocialOperation` with the Idempotency-Key
 *    `job:<job id>:<index>`: a redelivery after the run settled replays it (no second charge), one
 *    after its worker died mid-call takes the run over once the key's lease has run out (the dead
 *    attempt's charge pays for it), and one after the sweeper refunded it charges afresh;
 * 5. write the result once (conditional on the item still running), with the job's counters;
 * 6. end the job when nothing is queued or running, exactly once (its organization's active-job
 *    counter down in the same transaction), and queue its webhook (on the webhooks queue: a
 *    delivery never holds a worker that runs items, lib/webhooks/delivery.ts).
 *
 * A running item whose lease has not run out belongs to a live worker (or one not yet known dead):
 * the message is left unacknowledged, to come back after its visibility timeout. Every write of
 * the job's or the item's state, and what a refused one means, is lib/jobs/lifecycle.ts's.
 */
import { apiKeyStanding } from '../auth/api-key-standing.ts';
import { TokenRefused } from '../auth/refusals.ts';
import { integer, socialConfig } from '../config.ts';
import { getJob, getJobItem, type JobItemRecord, type JobRecord } from '../db/jobs.ts';
import { invalidToken, ServiceError } from '../errors.ts';
import { logger } from '../log.ts';
import { type Caller, isApiKeyId } from '../model.ts';
import { leaseMs } from '../social/idempotency.ts';
import { runSocialOperation } from '../social/run.ts';
import { jobEnded, sendWebhookMessage } from './job-ended.ts';
import {
  claimJobItem,
  endJobIfDone,
  type Finished,
  failedOutcome,
  finishJobItem,
  type ItemOutcome,
  releaseJobItem,
  settleUnrunnableItem,
} from './lifecycle.ts';
import type { ItemMessage, JobMessage, WebhookMessage } from './queue.ts';

export interface WorkerOptions {
  /** The clock (epoch ms); tests move it past a lease. */
  now?: () => number;
  /** Epoch ms by which a run must have answered (the worker function's deadline). */
  deadlineMs?: number;
}

/** Handles one message; true acknowledges it, false leaves it to be delivered again. */
export async function handleJobMessage(message: JobMessage, options: WorkerOptions = {}): Promise<boolean> {
  return message.kind === 'webhook' ? passOnWebhook(message) : runJobItem(message, options);
}

const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

/** The Idempotency-Key an item's run is charged under: the same for every delivery of its message. */
export const itemIdempotencyKey = (jobId: string, index: number): string => `job:${jobId}:${index}`;

/** One item as its run needs it: from the message (first delivery) or from the job and item records. */
interface RunnableItem {
  jobId: string;
  orgId: string;
  index: number;
  operation: string;
  createdById: string;
  maxAgeSeconds: number | null;
  /** The job's `fields`: the item's run answers (and the item stores) only these paths. Absent from messages queued before it existed. */
  fields?: string | null | undefined;
  /** The job's `max_credits`: every item's charge counts in the job's budget under it. Absent from messages queued before it existed. */
  maxCredits?: number | null | undefined;
  input: unknown;
  /** When its job was created: an item whose operation is unavailable is retried until JOB_UNAVAILABLE_RETRY_SECONDS after it. */
  createdAtMs?: number | undefined;
}

/**
 * How long after its job's creation an item whose every provider is skipped by an open breaker
 * (503 `operation_unavailable`) is put back and tried again later rather than failed: the job's
 * deadline for an outage (JOB_UNAVAILABLE_RETRY_SECONDS, default an hour).
 */
const unavailableRetryMs = (): number => integer('JOB_UNAVAILABLE_RETRY_SECONDS', 3_600, 0) * 1000;

const runnableOf = (job: JobRecord, item: JobItemRecord): RunnableItem => ({
  jobId: job.id,
  orgId: job.organization_id,
  index: item.index,
  operation: job.operation,
  createdById: job.created_by_id,
  maxAgeSeconds: job.max_age_seconds,
  fields: job.fields,
  maxCredits: job.max_credits,
  input: item.input,
  createdAtMs: Date.parse(job.created_at),
});

const leaseUntil = (clock: () => number): number => clock() + leaseMs(socialConfig().providerTimeoutMs);

async function runJobItem(message: ItemMessage, options: WorkerOptions): Promise<boolean> {
  const clock = options.now ?? Date.now;
  const { jobId, orgId, index } = message;
  // The common case, a first delivery: claim at once (the claim's conditions check the job and the item).
  if (message.run && !(await claimJobItem(jobId, index, leaseUntil(clock), new Date(clock())))) {
    return runClaimed({ jobId, orgId, index, ...message.run }, options);
  }
  for (let round = 0; round < 3; round += 1) {
    const [job, item] = await Promise.all([getJob(jobId), getJobItem(jobId, index)]);
    if (!job || !item) {
      logger.warn('job message for no such job or item; dropped', { job: jobId, index });
      return true;
    }
    if (FINISHED.has(item.status)) {
      // A worker that died after writing the result but before the job's end: end it now.
      await endIfDone(jobId, options);
      return true;
    }
    if (item.status === 'running') {
      // Its worker may still be at work: come back after the visibility timeout.
      if ((item.lease_until_ms ?? 0) > clock()) return false;
      return runClaimed(runnableOf(job, item), options);
    }
    // Cancelled, or refused by an earlier item's 402: settled without running.
    const settled = await settleUnrunnableItem(job, index, new Date(clock()));
    if (settled) {
      await afterFinish(settled);
      return true;
    }
    const refused = await claimJobItem(jobId, index, leaseUntil(clock), new Date(clock()));
    if (!refused) return runClaimed(runnableOf(job, item), options);
    // The job was cancelled or refused, or another delivery claimed the item: read again and decide.
  }
  return false;
}

/** The payer of a job's items: its creator, a user or an API key (whose standing is read again, as on each request). */
function callerOf(item: RunnableItem): Caller {
  if (!isApiKeyId(item.createdById)) return { userId: item.createdById };
  const standing = apiKeyStanding(item.orgId, item.createdById);
  // Observed here: the run awaits it, and a refusal must not surface as an unhandled rejection first.
  standing.grant.catch(() => undefined);
  standing.settled.catch(() => undefined);
  return { userId: item.createdById, apiKey: { id: item.createdById, orgId: item.orgId, grant: standing.grant } };
}

async function runClaimed(item: RunnableItem, options: WorkerOptions): Promise<boolean> {
  try {
    return await runAndRecord(item, options);
  } catch (error) {
    // Not a refusal: the table failed (throttled, timed out) before the run or its result was
    // written. The next delivery may take the item over at once: its run's Idempotency-Key
    // replays what was done and does what was not, without charging twice.
    await releaseJobItem(item.jobId, item.index, (options.now ?? Date.now)()).catch(() => undefined);
    throw error;
  }
}

async function runAndRecord(item: RunnableItem, options: WorkerOptions): Promise<boolean> {
  const clock = options.now ?? Date.now;
  let outcome: ItemOutcome;
  try {
    const result = await runSocialOperation({
      caller: callerOf(item),
      orgId: item.orgId,
      operationName: item.operation,
      input: item.input,
      idempotencyKey: itemIdempotencyKey(item.jobId, item.index),
      maxAgeSeconds: item.maxAgeSeconds ?? undefined,
      // Checked when the job was created, against the same catalog.
      fields: item.fields == null ? undefined : { text: item.fields, at: ['body', 'fields'] },
      ...(item.maxCredits == null ? {} : { job: { id: item.jobId, maxCredits: item.maxCredits } }),
      requestId: `${item.jobId}:${item.index}`,
      ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
      now: clock,
    });
    outcome = {
      status: 'succeeded',
      output: result.output,
      charged: result.replayed ? (result.firstCharged ?? 0) : result.charged,
      ...(result.provider === undefined ? {} : { provider: result.provider }),
    };
  } catch (error) {
    if (!(error instanceof ServiceError || error instanceof TokenRefused)) throw error;
    // Another delivery holds the item's run (its lease not yet out): come back later.
    if (error instanceof ServiceError && error.code === 'idempotency_key_reused' && error.details.retryAfterSeconds) return false;
    // Every provider out (nothing charged): put the item back for a later delivery, until the job's deadline.
    if (
      error instanceof ServiceError &&
      error.code === 'operation_unavailable' &&
      clock() < (item.createdAtMs ?? 0) + unavailableRetryMs()
    ) {
      await releaseJobItem(item.jobId, item.index, clock());
      return false;
    }
    outcome = failedOutcome(error instanceof TokenRefused ? invalidToken(error.reason, error.message) : error);
  }
  const finished = await finishJobItem({ id: item.jobId, organization_id: item.orgId }, item.index, 'running', outcome, new Date(clock()));
  await afterFinish(finished);
  return true;
}

/** The item's result ended its job. */
async function afterFinish(finished: Finished): Promise<void> {
  if (finished.result === 'ended') await jobEnded(finished.job);
}

/**
 * Ends the job if nothing is queued or running (once, whoever gets there first): for a
 * redelivered message whose item is finished, in case its worker died between the item's result
 * and the job's end (a cancel that ended it, a result written by an older worker). The item's own
 * last result ends the job in its transaction (finishJobItem).
 */
async function endIfDone(jobId: string, options: WorkerOptions): Promise<void> {
  const job = await endJobIfDone(jobId, new Date((options.now ?? Date.now)()));
  if (job) await jobEnded(job);
}

/**
 * A webhook attempt queued here before deliveries had a queue of their own (a stack updated
 * while a retry waited): passed on to the webhooks queue, whose consumer makes it.
 */
async function passOnWebhook(message: WebhookMessage): Promise<boolean> {
  await sendWebhookMessage({ id: message.jobId, organization_id: message.orgId }, message.attempt, 0);
  return true;
}
