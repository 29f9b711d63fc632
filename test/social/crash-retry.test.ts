/**
 * Idempotency that never pays twice (docs/charges.md): a run whose attempt dies mid-call (here:
 * a provider call that does not answer, and a clock the test moves past the claim's lease) and
 * is retried with its Idempotency-Key leaves exactly one charge standing and delivers one
 * result, whether the retry takes the dead attempt's run over or the sweeper refunded it first,
 * and whatever the dead attempt does when it comes back.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { db, tableName } from '../../lib/db/client.ts';
import { pendingRunKey } from '../../lib/db/keys.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { listPendingRuns } from '../../lib/db/pending-runs.ts';

// The dead attempt's provider call must not time out by itself while the test runs.
process.env.PROVIDER_TIMEOUT_MS = '600000';
const { runSocialOperation } = await import('../../lib/social/run.ts');
const { leaseMs } = await import('../../lib/social/idempotency.ts');
const { sampleProvider } = await import('../../lib/social/providers/sample.ts');
const { UpstreamError } = await import('../../lib/social/providers/types.ts');
const { sweepPendingRuns } = await import('../../lib/billing/sweeper.ts');
const { uniqueId, workspace } = await import('../support/fixtures.ts');
const { eventsOf } = await import('../support/social.ts');

const LEASE_MS = leaseMs(600_000);
const IN_PROGRESS = { code: 'idempotency_key_reused', message: 'a request with this Idempotency-Key is still in progress; retry shortly' };

/**
 * The first attempt's provider call hangs until `comeBack` says how the "dead" attempt's call
 * ends (answers, or fails); later calls answer at once.
 */
function firstCallHangs() {
  const original = sampleProvider.run.bind(sampleProvider);
  let comeBack: (how: 'answers' | 'fails') => void = () => undefined;
  const gate = new Promise<'answers' | 'fails'>((resolve) => (comeBack = resolve));
  const spy = vi.spyOn(sampleProvider, 'run').mockImplementationOnce(async (request) => {
    if ((await gate) === 'fails') throw new UpstreamError('the dead attempt came back to a failure');
    return original(request);
  });
  return { spy, comeBack };
}

async function started(orgId: string, userId: string) {
  const key = uniqueId('key-');
  const t0 = Date.now();
  const request = { caller: { userId }, orgId, operationName: 'tiktok_profile', input: { handle: 'nasa' }, idempotencyKey: key };
  const provider = firstCallHangs();
  const dead = runSocialOperation({ ...request, now: () => t0 });
  dead.catch(() => undefined);
  await vi.waitFor(() => expect(provider.spy).toHaveBeenCalledTimes(1));
  const retry = (atMs: number) => runSocialOperation({ ...request, now: () => atMs });
  return { t0, dead, retry, provider };
}

const ledger = async (orgId: string) => (await eventsOf(orgId)).map((event) => [event.type, event.amount]);

describe('a run killed mid-call, retried with its Idempotency-Key', () => {
  it.each([
    ['fails', 'its refund finds the run is no longer its own'],
    ['answers', 'its settle finds the run is no longer its own and delivers nothing'],
  ] as const)('after the lease, the retry takes the run over and pays nothing more; the dead attempt that %s later: %s', async (how, _outcome) => {
    // Prepare: an attempt charged and stuck in the provider call.
    const { orgId, users } = await workspace({ credits: 5 });
    const { t0, dead, retry, provider } = await started(orgId, users.editor);
    try {
      // Within the lease the key is held.
      await expect(retry(t0 + 1000)).rejects.toMatchObject(IN_PROGRESS);

      // Act: two retries at once after the lease.
      const afterLease = t0 + LEASE_MS + 1;
      const answers = await Promise.allSettled([retry(afterLease), retry(afterLease)]);

      // Assess: one took the run over and delivered it as the key's one charge; the other was
      // told to retry (or, if it came after, got the replay).
      const delivered = answers.filter((answer) => answer.status === 'fulfilled').map((answer) => answer.value);
      const refused = answers.filter((answer) => answer.status === 'rejected').map((answer) => answer.reason);
      expect(delivered.filter((answer) => !answer.replayed)).toEqual([
        {
          output: expect.objectContaining({ username: 'nasa' }),
          charged: 1,
          remaining: 4,
          replayed: false,
          // The dead attempt's charge, which pays for this run.
          chargeId: expect.stringMatching(/^evt_/),
          cacheStatus: 'workspace; fwd=bypass; stored',
          ageSeconds: undefined,
          sampleData: true,
          provider: 'sample',
        },
      ]);
      for (const answer of delivered) expect(answer.output).toEqual(delivered[0]!.output);
      for (const error of refused) expect(error).toMatchObject(IN_PROGRESS);
      expect(await ledger(orgId)).toEqual([
        ['credits.granted', 5],
        ['social_operation.charged', -1],
      ]);
      expect(await listPendingRuns(orgId)).toEqual([]);
      const replay = await retry(afterLease + 1000);
      expect(replay).toEqual({
        output: delivered[0]!.output,
        charged: 0,
        remaining: undefined,
        replayed: true,
        // What the first (taken-over) run was charged, from the key's stored response.
        firstCharged: 1,
        chargeId: undefined,
        cacheStatus: undefined,
        ageSeconds: undefined,
        sampleData: true,
      });

      // The dead attempt comes back: it neither refunds nor charges anything, and delivers
      // nothing (the one charge stands for the retry's result).
      provider.comeBack(how);
      if (how === 'fails') await expect(dead).rejects.toMatchObject({ code: 'upstream_failed' });
      else await expect(dead).rejects.toMatchObject({ code: 'internal_error', message: expect.stringContaining('outlived its deadline') });
      expect(await ledger(orgId)).toEqual([
        ['credits.granted', 5],
        ['social_operation.charged', -1],
      ]);
      expect((await getOrganization(orgId))!.credits).toBe(4);
      expect((await sweepPendingRuns({ now: new Date(afterLease + 10 * LEASE_MS) })).refunded).toBe(0);
    } finally {
      provider.comeBack('fails');
      provider.spy.mockRestore();
    }
  });

  it('once the sweeper has refunded the dead run, the retry charges once afresh, and the dead attempt refunds nothing', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const { t0, dead, retry, provider } = await started(orgId, users.editor);
    try {
      const [pending] = await listPendingRuns(orgId);
      expect((await sweepPendingRuns({ now: new Date(pending!.sweepAfterMs + 1) })).refunded).toBe(1);

      const answer = await retry(t0 + LEASE_MS + 1);

      expect(answer).toMatchObject({ charged: 1, remaining: 4, replayed: false });
      provider.comeBack('fails');
      await expect(dead).rejects.toMatchObject({ code: 'upstream_failed' });
      expect(await ledger(orgId)).toEqual([
        ['credits.granted', 5],
        ['social_operation.charged', -1],
        ['social_operation.refunded', 1],
        ['social_operation.charged', -1],
      ]);
      expect((await getOrganization(orgId))!.credits).toBe(4);
      expect(await listPendingRuns(orgId)).toEqual([]);
    } finally {
      provider.comeBack('fails');
      provider.spy.mockRestore();
    }
  });

  it('a claim whose pending run was removed outside the protocol does not hold the key: the retry charges afresh', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const { t0, retry, provider } = await started(orgId, users.editor);
    try {
      const [pending] = await listPendingRuns(orgId);
      await db().send(new DeleteCommand({ TableName: tableName(), Key: pendingRunKey(orgId, pending!.eventId) }));

      const answer = await retry(t0 + LEASE_MS + 1);

      expect(answer).toMatchObject({ charged: 1, replayed: false });
      expect((await ledger(orgId)).filter(([type]) => type === 'social_operation.charged')).toHaveLength(2);
      expect(await listPendingRuns(orgId)).toEqual([]);
    } finally {
      provider.comeBack('fails');
      provider.spy.mockRestore();
    }
  });
});
