/**
 * The one retry loop (lib/db/conflict-retry.ts `retryConflicts`): a conflict is tried again, any
 * other error is thrown at once, and no attempt starts at or after the limit. Its pauses and
 * bounds are pinned in test/hot-org.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { retryConflicts } from '../lib/db/conflict-retry.ts';

class Conflict extends Error {}
const isConflict = (error: unknown) => error instanceof Conflict;

/** An attempt that fails with `errors` in turn, then answers `done`; counts its calls. */
function attempts(...errors: Error[]) {
  const made = { count: 0 };
  const attempt = async () => {
    made.count += 1;
    const error = errors[made.count - 1];
    if (error) throw error;
    return 'done';
  };
  return { made, attempt };
}

describe('retryConflicts', () => {
  it('tries a conflict again until the attempt answers', async () => {
    const { made, attempt } = attempts(new Conflict(), new Conflict());
    await expect(retryConflicts(attempt, isConflict, Number.POSITIVE_INFINITY)).resolves.toBe('done');
    expect(made.count).toBe(3);
  });

  it('throws any other error at once', async () => {
    const { made, attempt } = attempts(new Error('throttled'));
    await expect(retryConflicts(attempt, isConflict, Number.POSITIVE_INFINITY)).rejects.toThrow('throttled');
    expect(made.count).toBe(1);
  });

  it('starts no attempt at or after the limit: the last conflict is thrown', async () => {
    const last = new Conflict('lost');
    const { made, attempt } = attempts(last, new Conflict());
    await expect(retryConflicts(attempt, isConflict, Date.now())).rejects.toBe(last);
    expect(made.count).toBe(1);
  });
});
