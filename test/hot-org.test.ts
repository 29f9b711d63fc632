/**
 * One hot organization (npm run bench:hot in miniature): many paid runs at once against one
 * balance, with DynamoDB's transaction conflicts modelled (DynamoDB Local has none). Every run
 * is served, the balance is exact; and the charge's retry policy stops where it must.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler } from '../functions/run-social-operation.ts';
import { socialConfig } from '../lib/config.ts';
import { db } from '../lib/db/client.ts';
import { BASE_MS, CAP_MS, conflictPauseMs, MAX_ATTEMPTS, mayRetryConflict } from '../lib/db/conflict-retry.ts';
import { getOrganization } from '../lib/db/organizations.ts';
import { REFUND_RESERVE_MS } from '../lib/social/provider-call.ts';
import { runSocialOperation } from '../lib/social/run.ts';
import { runHotOrganization } from '../scripts/bench/hot-org.ts';
import { workspace } from './support/fixtures.ts';
import { eventsOf } from './support/social.ts';
import { tokenFor } from './support/tokens.ts';

describe('one hot organization', () => {
  it('serves 24 paid runs sent at once, retrying their conflicts, and the balance is exact', async () => {
    const result = await runHotOrganization({ runs: 24, users: 4, conflicts: 'model', tokenFor }, handler as never);
    expect(result.failures).toEqual({});
    expect(result.conflicts).toBeGreaterThan(0);
    expect(result.transactions).toBe(24 + result.conflicts);
    expect(result.balance).toEqual({ opening: 124, expected: 100, final: 100, exact: true });
    expect(result.spend).toEqual({ expected: 24, counted: 24 });
    expect(result.chargeEvents).toBe(24);
  });
});

describe('the charge retry policy', () => {
  it('pauses a random time under an exponential ceiling capped at CAP_MS', () => {
    expect([1, 2, 3].map((attempt) => conflictPauseMs(attempt, () => 0.999999))).toEqual([
      expect.closeTo(BASE_MS * 2, 3),
      expect.closeTo(BASE_MS * 4, 3),
      expect.closeTo(BASE_MS * 8, 3),
    ]);
    expect(conflictPauseMs(30, () => 0.999999)).toBeCloseTo(CAP_MS, 2);
    expect(conflictPauseMs(30, () => 0)).toBe(0);
  });

  it('retries while the next attempt starts before the limit, and at most MAX_ATTEMPTS times', () => {
    expect(mayRetryConflict(1, 1_000, 1_001)).toBe(true);
    expect(mayRetryConflict(1, 1_001, 1_001)).toBe(false);
    expect(mayRetryConflict(MAX_ATTEMPTS - 1, 0, Number.POSITIVE_INFINITY)).toBe(true);
    expect(mayRetryConflict(MAX_ATTEMPTS, 0, Number.POSITIVE_INFINITY)).toBe(false);
  });

  it('stops retrying a charge that keeps losing once the provider call would no longer get its whole budget: the run fails, nothing charged', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const attempts: number[] = [];
    const name = `always-conflict-${Math.random()}`;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        attempts.push(Date.now());
        throw new TransactionCanceledException({
          message: 'Transaction cancelled',
          $metadata: {},
          CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }],
        });
      },
      { step: 'initialize', name },
    );
    // The charge may retry for 400 ms: the deadline leaves the provider call its timeout and the refund its reserve after that.
    const deadlineMs = Date.now() + socialConfig().providerTimeoutMs + REFUND_RESERVE_MS + 400;
    const retryUntilMs = deadlineMs - socialConfig().providerTimeoutMs - REFUND_RESERVE_MS;
    try {
      const run = runSocialOperation({
        caller: { userId: users.editor },
        orgId,
        operationName: 'x_profile',
        input: { handle: 'nasa' },
        deadlineMs,
      });
      await expect(run).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    } finally {
      db().middlewareStack.remove(name);
    }
    expect(attempts.length).toBeGreaterThan(1);
    expect(Math.max(...attempts)).toBeLessThan(retryUntilMs);
    expect((await getOrganization(orgId))!.credits).toBe(5);
    expect((await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged')).toEqual([]);
  });
});
