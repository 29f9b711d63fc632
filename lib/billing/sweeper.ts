/**
 * The charge sweeper (docs/charges.md): refunds every run that was charged and can no longer
 * finish (its function crashed, was killed or timed out, or its own refund failed), each exactly
 * once, with its `social_operation.refunded` event. Deployed, a scheduled function runs it every
 * minute (functions/sweep-charges.ts); locally, `npm start` runs it on an interval; operators
 * run it with `npm run admin -- charges sweep`. Any number of sweepers may run at once: each
 * refund is one transaction conditional on the pending record still being there, still held by
 * the same attempt, and still due.
 */
import { listOverduePendingRuns, type PendingRun } from '../db/pending-runs.ts';
import { recordSweep } from '../observability/metrics.ts';
import { type RefundOutcome, refundRun } from './paid-run.ts';

/**
 * Time after a run's deadline before the sweeper may refund it: the deadline is when its
 * function is stopped at the latest; the margin covers clocks and a write still on the wire.
 */
export const SWEEP_MARGIN_MS = 30_000;

/** When the sweeper may refund a run that will have ended by `runEndsByMs`. */
export const sweepAfterMs = (runEndsByMs: number): number => runEndsByMs + SWEEP_MARGIN_MS;

/** The reason a swept refund's event gives. */
export const SWEPT_REASON = 'the run never finished (refunded by the sweeper)';

/** Refunds written at once; each is one small transaction. */
const CONCURRENCY = 8;
/** Runs one sweep takes on; the longest overdue first, the rest in the next sweep. */
const DEFAULT_LIMIT = 1000;

export interface SweepResult {
  /** Runs refunded by this sweep. */
  refunded: number;
  /** Runs listed as due that another sweeper, the run itself or a retry had settled in the meantime. */
  gone: number;
  /** Refunds that could not be written (logged; tried again by the next sweep). */
  failed: number;
  /** Due runs left for the next sweep because this one ran out of time. */
  deferred: number;
  /** How long past its due time the oldest run still unrefunded after this sweep is (0 if none). */
  overdueSeconds: number;
}

export interface SweepOptions {
  /** What is due is decided at this time (default: now). */
  now?: Date;
  limit?: number;
  /** Epoch ms after which no new refund is started (a function's own deadline). */
  stopByMs?: number;
}

export async function sweepPendingRuns(options: SweepOptions = {}): Promise<SweepResult> {
  const nowMs = (options.now ?? new Date()).getTime();
  const due = await listOverduePendingRuns(nowMs, options.limit ?? DEFAULT_LIMIT);
  const outcomes = new Map<PendingRun, RefundOutcome | 'deferred'>();
  let next = 0;
  const worker = async () => {
    for (let run = due[next++]; run; run = due[next++]) {
      if (options.stopByMs !== undefined && Date.now() >= options.stopByMs) outcomes.set(run, 'deferred');
      else outcomes.set(run, await refundRun(run, SWEPT_REASON, { dueBy: nowMs }));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));

  const count = (outcome: RefundOutcome | 'deferred') => [...outcomes.values()].filter((value) => value === outcome).length;
  const left = due.filter((run) => outcomes.get(run) === 'failed' || outcomes.get(run) === 'deferred');
  const result: SweepResult = {
    refunded: count('refunded'),
    gone: count('gone'),
    failed: count('failed'),
    deferred: count('deferred'),
    overdueSeconds: left.length === 0 ? 0 : Math.round((nowMs - Math.min(...left.map((run) => run.sweepAfterMs))) / 1000),
  };
  recordSweep(result.refunded, result.overdueSeconds);
  return result;
}
