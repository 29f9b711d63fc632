/**
 * When to try a transaction again after it lost to a concurrent one (TransactionConflict), and
 * after how long. DynamoDB cancels a transaction whose item is part of another ongoing one, and
 * the SDK does not retry a cancelled transaction: we do. Under a hot item (one organization's
 * balance charged by many runs at once, docs/scaling.md) the losers must wait their turn, which
 * may take seconds, not a fixed handful of attempts:
 *
 * - the pause is "full jitter" over an exponential ceiling (BASE_MS · 2^attempt, at most
 *   CAP_MS), so that the losers of one round do not all come back together;
 * - attempts go on while the next one would still start before the caller's `retryUntilMs` (a
 *   run keeps its provider call's budget; lib/social/run.ts), and never past the request's own
 *   deadline; MAX_ATTEMPTS bounds callers that have neither (the admin CLI).
 *
 * `retryConflicts` is the one loop that applies it: a write that lost to a transaction
 * (lib/db/client.ts), and one that found its item changed by a concurrent write and must be
 * decided afresh (a job's item result or cancel, lib/jobs/lifecycle.ts).
 */

export const BASE_MS = 10;
export const CAP_MS = 500;
export const MAX_ATTEMPTS = 100;

/** The pause after failed attempt `attempt` (1-based): uniform in [0, min(CAP_MS, BASE_MS · 2^attempt)). */
export const conflictPauseMs = (attempt: number, random: () => number = Math.random): number =>
  random() * Math.min(CAP_MS, BASE_MS * 2 ** attempt);

/** Whether attempt `attempt` may be followed by another that starts at `nextStartMs`, given the limit `untilMs`. */
export const mayRetryConflict = (attempt: number, nextStartMs: number, untilMs: number): boolean =>
  attempt < MAX_ATTEMPTS && nextStartMs < untilMs;

/**
 * Runs `attempt`, again while it fails with an error `isConflict` accepts, pausing
 * `conflictPauseMs` between attempts: no attempt starts at or after `untilMs` (nor after
 * MAX_ATTEMPTS), and the last conflict is thrown then.
 */
export async function retryConflicts<T>(attempt: () => Promise<T>, isConflict: (error: unknown) => boolean, untilMs: number): Promise<T> {
  for (let made = 1; ; made += 1) {
    try {
      return await attempt();
    } catch (error) {
      const pauseMs = conflictPauseMs(made);
      if (!isConflict(error) || !mayRetryConflict(made, Date.now() + pauseMs, untilMs)) throw error;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      // A timer fires late on a busy machine: the limit holds for when the attempt would start.
      if (Date.now() >= untilMs) throw error;
    }
  }
}
