/**
 * Jobs whose messages must be sent again (docs/jobs.md, "When a creation is cut short").
 *
 * - `recoverStalledJobs`: what a schedule runs (deployed: functions/recover-jobs.ts every minute;
 *   `npm start`: on an interval). A job is stalled when its creation was cut short (the function
 *   killed or timed out) between its transaction and its last message: it stays `queued` (or
 *   runs the items whose messages went out) and holds a place under its organization's limit.
 *   The creation marks every job whose messages were all sent (`messages: sent`); a job still
 *   `sending` past the threshold is taken by one recovery (a conditional lease), and either its
 *   pending items' messages are sent again and it is marked sent, or, when its items were never
 *   all written (their inputs died with the creation), it is cancelled as a member's cancel would.
 *   Healthy jobs are never sent anything.
 * - `requeueActiveJobs`: every unfinished item of every active job, what `npm start` does at start
 *   (its embedded queue lived in the memory of the process that stopped) and an operator's last
 *   resort (`admin jobs requeue`). Never on a schedule: it would send the whole backlog each time.
 *
 * Both are safe whatever is still queued: every step of the worker is conditional or idempotent
 * (a duplicate message finds its item claimed or finished).
 */
import { jobsConfig } from '../config.ts';
import { getJob, jobItemStates, listActiveJobs, unfinishedItemIndexes } from '../db/jobs.ts';
import { logError, logger } from '../log.ts';
import { recordStalledJobs } from '../observability/metrics.ts';
import { cancelActiveJob } from './jobs.ts';
import { claimStalledJob, isStalled, markJobRecovered } from './lifecycle.ts';
import { jobQueue, type Outgoing } from './queue.ts';

export async function requeueActiveJobs(): Promise<{ jobs: number; messages: number }> {
  const active = await listActiveJobs();
  let messages = 0;
  for (const { jobId, orgId } of active) {
    const indexes = await unfinishedItemIndexes(jobId);
    const outgoing: Outgoing[] = indexes.map((index) => ({ message: { kind: 'item', jobId, orgId, index }, groupId: orgId }));
    if (outgoing.length > 0) await jobQueue().send(outgoing);
    messages += outgoing.length;
  }
  return { jobs: active.length, messages };
}

/** What one recovery did: jobs whose messages it sent again (and how many), jobs it cancelled. */
export interface RecoveryResult {
  jobs: number;
  messages: number;
  cancelled: number;
}

export interface RecoveryOptions {
  /** Epoch ms after which no job is taken on (a function's own deadline); the rest wait for the next run. */
  stopByMs?: number;
}

/** Jobs recovered at once. */
const CONCURRENCY = 4;

/**
 * Recovers the jobs stalled at `now`: those whose messages were never marked sent, created more
 * than JOBS_STALLED_AFTER_SECONDS before `now`. Each is held by this recovery for that long (so
 * that two recoveries at once never both send), then its pending items' messages are sent again
 * and it is marked sent, or, if its items were never all written, it is cancelled. One log line
 * per job recovered. Throws after trying every job if one of them failed (its hold runs out and
 * the next run after that tries it again).
 */
export async function recoverStalledJobs(now: Date = new Date(), options: RecoveryOptions = {}): Promise<RecoveryResult> {
  const holdMs = jobsConfig().stalledAfterSeconds * 1000;
  const cutoff = new Date(now.getTime() - holdMs);
  // The marker carries the creation time: younger jobs are not even read.
  const old = (await listActiveJobs()).filter((active) => active.createdAt <= cutoff.toISOString());
  const result: RecoveryResult = { jobs: 0, messages: 0, cancelled: 0 };
  const failed: string[] = [];
  let deferred = 0;
  let next = 0;
  const worker = async () => {
    for (let active = old[next++]; active; active = old[next++]) {
      if (options.stopByMs !== undefined && Date.now() >= options.stopByMs) {
        deferred += 1;
        continue;
      }
      try {
        const outcome = await recoverJob(active.jobId, cutoff, now, holdMs);
        if (outcome?.kind === 'sent') {
          result.jobs += 1;
          result.messages += outcome.messages;
        } else if (outcome?.kind === 'cancelled') result.cancelled += 1;
      } catch (error) {
        logError('recovering a stalled job failed; a later recovery tries again', error, { job: active.jobId });
        failed.push(active.jobId);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, old.length) }, worker));
  recordStalledJobs(result.jobs + result.cancelled);
  if (deferred > 0) logger.warn('job recovery ran out of time; the next run takes the rest', { deferred });
  if (failed.length > 0) {
    throw new Error(
      `recovering ${failed.length} stalled jobs failed (${failed.join(', ')}); recovered ${result.jobs}, cancelled ${result.cancelled}`,
    );
  }
  return result;
}

type Recovered = { kind: 'sent'; messages: number } | { kind: 'cancelled' };

/** One job: null when it is not stalled or another recovery holds it. */
async function recoverJob(jobId: string, cutoff: Date, now: Date, holdMs: number): Promise<Recovered | null> {
  const read = await getJob(jobId);
  if (!read || !isStalled(read, cutoff)) return null;
  const job = await claimStalledJob(jobId, cutoff, now.getTime() + holdMs, now.getTime());
  if (!job) return null;
  const items = await jobItemStates(jobId);
  const fields = { job: job.id, organization_id: job.organization_id, created_at: job.created_at, total: job.total };
  if (items.written < job.total) {
    // The creation died writing the items: their inputs are gone, and the job cannot run.
    const outcome = await cancelActiveJob(job, now);
    logger.warn('stalled job cancelled: its items were never all written', { ...fields, items_written: items.written, outcome });
    return outcome === 'inactive' ? null : { kind: 'cancelled' };
  }
  const outgoing: Outgoing[] = items.pending.map((index) => ({
    message: { kind: 'item', jobId, orgId: job.organization_id, index },
    groupId: job.organization_id,
  }));
  if (outgoing.length > 0) await jobQueue().send(outgoing);
  // False when a late creation marked it first: its messages and these are both on the queue.
  await markJobRecovered(jobId, now);
  logger.warn('stalled job recovered: the messages of its pending items sent again', { ...fields, messages: outgoing.length });
  return { kind: 'sent', messages: outgoing.length };
}
