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
