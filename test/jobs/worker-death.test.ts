/**
 * A job's worker killed mid-item (docs/jobs.md, "Exactly once"): its item was claimed and
 * charged, and its provider call never answers. The message comes back after the item's lease
 * (here: a clock the test moves past it) and the item is retried or refunded, exactly once:
 * taken over with the dead attempt's charge, or, once the sweeper refunded that charge, charged
 * afresh. Whatever the dead attempt does when it comes back changes nothing. As in
 * test/social/crash-retry.test.ts, the "dead" call is the sample provider's first call, held.
 */
import { describe, expect, it, vi } from 'vitest';

// The dead attempt's provider call must not time out by itself while the test runs.
process.env.PROVIDER_TIMEOUT_MS = '600000';
const { handler: createJob } = await import('../../functions/create-social-job.ts');
const { getJob } = await import('../../lib/db/jobs.ts');
const { handleJobMessage } = await import('../../lib/jobs/worker.ts');
const { leaseMs } = await import('../../lib/social/idempotency.ts');
const { sampleProvider } = await import('../../lib/social/providers/sample.ts');
const { UpstreamError } = await import('../../lib/social/providers/types.ts');
const { sweepPendingRuns } = await import('../../lib/billing/sweeper.ts');
const { workspace } = await import('../support/fixtures.ts');
const { call } = await import('../support/http.ts');
const { ledgerProblems, readLedger, standingCharges } = await import('../support/ledger.ts');
const { tokenFor } = await import('../support/tokens.ts');

const AFTER_LEASE_MS = leaseMs(600_000) + 1_000;

/** The first provider call hangs until `comeBack` says how it ends; later calls answer at once. */
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

/** A job of one x_profile item (1 credit); capped at `maxCredits` when given, so that a second charge of its item would be refused. */
async function oneItemJob(maxCredits?: number, handle = 'nasa') {
  const { orgId, users } = await workspace({ credits: 10 });
  const created = await call(createJob, {
    method: 'POST',
    url: `/social/x_profile/jobs?organization_id=${orgId}`,
    token: tokenFor(users.editor),
    body: { inputs: [{ handle }], ...(maxCredits === undefined ? {} : { max_credits: maxCredits }) },
  });
  expect(created.status).toBe(202);
  return { orgId, jobId: created.body.id as string, message: { kind: 'item' as const, jobId: created.body.id as string, orgId, index: 0 } };
}

async function untilCharged(orgId: string) {
  await vi.waitFor(async () => expect((await readLedger(orgId)).pending.size).toBe(1), { timeout: 5_000, interval: 50 });
}

describe('a job worker killed mid-item', () => {
  it.each([
    ['answers', undefined],
    ['fails', undefined],
    ['answers', 1],
  ] as const)('is taken over after the lease with its one charge; the dead attempt that %s later changes nothing (max_credits %s)', async (how, maxCredits) => {
    // Prepare: the first delivery claims and charges the item, then hangs at the provider.
    const { orgId, jobId, message } = await oneItemJob(maxCredits);
    const provider = firstCallHangs();
    const dead = handleJobMessage(message);
    await untilCharged(orgId);

    // Act: the message comes back before the lease (left alone), then after it (taken over).
    expect(await handleJobMessage(message)).toBe(false);
    const later = () => Date.now() + AFTER_LEASE_MS;
    expect(await handleJobMessage(message, { now: later })).toBe(true);
    provider.comeBack(how);
    expect(await dead).toBe(true);

    // Assess: one charge, one result, the job ended once.
    const job = await getJob(jobId);
    expect(job).toMatchObject({ status: 'completed', succeeded: 1, failed: 0, charged: 1, queued: 0, running: 0 });
    const ledger = await readLedger(orgId);
    expect(ledgerProblems(ledger, 1)).toEqual([]);
    expect(ledger.charges).toHaveLength(1);
    expect(ledger.refunds.size).toBe(0);
    expect(standingCharges(ledger)).toHaveLength(1);
    expect(provider.spy).toHaveBeenCalledTimes(2);
    // The takeover charged nothing new: the job's budget holds the one charge.
    if (maxCredits !== undefined) expect(job).toMatchObject({ budget_spent: 1 });
    provider.spy.mockRestore();
  });

  it('gives the job its credit back when the retry that took the run over fails at the provider (the claim names the job)', async () => {
    const { orgId, jobId, message } = await oneItemJob(1, 'sample_upstream_error');
    const provider = firstCallHangs();
    const dead = handleJobMessage(message);
    await untilCharged(orgId);

    expect(await handleJobMessage(message, { now: () => Date.now() + AFTER_LEASE_MS })).toBe(true);
    provider.comeBack('fails');
    expect(await dead).toBe(true);

    expect(await getJob(jobId)).toMatchObject({ status: 'completed', failed: 1, charged: 0, budget_spent: 0 });
    const ledger = await readLedger(orgId);
    expect(ledgerProblems(ledger, 0)).toEqual([]);
    expect([ledger.charges.length, ledger.refunds.size, ledger.credits]).toEqual([1, 1, 10]);
    provider.spy.mockRestore();
  });

  it.each([
    undefined,
    1,
  ])('is charged afresh after the sweeper refunded the dead charge: one refund, one standing charge (max_credits %s)', async (maxCredits) => {
    // With a cap of 1, the fresh charge fits only because the sweeper's refund gave the job its credit back.
    const { orgId, jobId, message } = await oneItemJob(maxCredits);
    const provider = firstCallHangs();
    const dead = handleJobMessage(message);
    await untilCharged(orgId);

    // The sweeper refunds the charge once it is due (and releases the item's key).
    const swept = await sweepPendingRuns({ now: new Date(Date.now() + AFTER_LEASE_MS + 60_000) });
    expect(swept.refunded).toBe(1);
    expect(await handleJobMessage(message, { now: () => Date.now() + AFTER_LEASE_MS })).toBe(true);
    provider.comeBack('answers');
    expect(await dead).toBe(true);

    expect(await getJob(jobId)).toMatchObject({ status: 'completed', succeeded: 1, failed: 0, charged: 1 });
    if (maxCredits !== undefined) expect(await getJob(jobId)).toMatchObject({ budget_spent: 1 });
    const ledger = await readLedger(orgId);
    expect(ledgerProblems(ledger, 1)).toEqual([]);
    expect(ledger.charges).toHaveLength(2);
    expect(ledger.refunds.size).toBe(1);
    expect(standingCharges(ledger)).toHaveLength(1);
    expect(ledger.credits).toBe(9);
    provider.spy.mockRestore();
  });
});
