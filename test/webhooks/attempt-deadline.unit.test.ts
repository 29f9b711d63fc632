/**
 * When an attempt must be over (lib/webhooks/delivery.ts): JOBS_WEBHOOK_TIMEOUT_MS from its start,
 * and never past its message's deadline (its visibility locally, the function's end deployed)
 * less a reserve for the writes after it: 5 s, or a quarter of what is left when that is less.
 */
import { describe, expect, it } from 'vitest';
import { attemptDeadline } from '../../lib/webhooks/delivery.ts';

describe('attemptDeadline', () => {
  it.each([
    // [what is left of the message, the webhook timeout, the attempt's deadline]
    ['a long visibility: the timeout', 60_000, 10_000, 10_000],
    ['the deployed function (30 s): the timeout', 30_000, 10_000, 10_000],
    ['a timeout longer than the function: its end less 5 s', 30_000, 60_000, 25_000],
    ['a short visibility: three quarters of it', 800, 5_000, 600],
    ['2 s left: 1.5 s', 2_000, 10_000, 1_500],
    ['nothing left: now', 0, 10_000, 0],
  ])('%s', (_name, leftMs, timeoutMs, expected) => {
    const start = 1_000_000;

    expect(attemptDeadline(start, start + leftMs, timeoutMs) - start).toBe(expected);
  });
});
