/**
 * A job's lifecycle under a race (lib/jobs/lifecycle.ts), on DynamoDB Local: a member's cancel,
 * an item's end and the recovery of stalled jobs at once, on many jobs. Every job is stalled (its
 * creation "died" before marking its messages sent, long enough ago), so the recovery takes it
 * on too. Three shapes:
 *
 * - `last item`: the running item is the job's last one; its end (which completes the job) races
 *   the cancel (which ends it, or asks that it end as cancelled) and the recovery's claim;
 * - `pending items`: two items are still pending; one's message is handled by the worker in the
 *   race (claim, run, end), and the recovery sends theirs again;
 * - `unwritten items`: one item was never written, so the recovery cancels the job itself,
 *   racing the member's cancel and the running item's end.
 *
 * After each: every item that succeeded was charged once and no other was (the billing events,
 * the balance, the job's and each item's `charged`), and the job ended exactly once (its counters
 * add up with nothing queued or running, its organization's `active_jobs` back to 0 and not below,
 * its active marker gone).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/client.ts';
import { getJob, type JobRecord, listActiveJobs, listJobItemsPage, putJobItems } from '../../lib/db/jobs.ts';
import { orgKey } from '../../lib/db/keys.ts';
import { defined } from '../../lib/defined.ts';
import { cancelJob, claimJobItem, createJob, finishJobItem, type ItemOutcome, newJob } from '../../lib/jobs/lifecycle.ts';
import { recoverStalledJobs } from '../../lib/jobs/recovery.ts';
import { handleJobMessage, itemIdempotencyKey } from '../../lib/jobs/worker.ts';
import { findOperation } from '../../lib/social/operations.ts';
import { runSocialOperation } from '../../lib/social/run.ts';
import { atDepth } from '../support/depth.ts';
import { workspace } from '../support/fixtures.ts';
import { drainJobs } from '../support/jobs.ts';
import { ledgerProblems, readLedger, standingCharges } from '../support/ledger.ts';

const OPERATION = 'tiktok_profile';
const COST = findOperation(OPERATION).cost;
const CREDITS = 100;
/** Jobs raced per shape (one round of AT_ONCE everyday, two under `npm run test:long`: test/support/depth.ts). */
const JOBS = atDepth(6, 12);
const AT_ONCE = 6;
/** How long before the race each job was created: past the recovery's threshold. */
const STALE_MS = 10 * 60_000;

type Shape = 'last item' | 'pending items' | 'unwritten items';

interface Prepared {
  job: JobRecord;
  /** Item 0's result: run and charged before the race, not yet written. */
  first: ItemOutcome;
}

/**
 * A random pause before the cancel's and the item's writes: a write to a busy DynamoDB Local
 * takes tens to hundreds of milliseconds, and the recovery's reads come before its claim, so that
 * each participant wins some of the races (checked by hand: each shape sees the cancel end the
 * job, ask for its end and find it ended, and the recovery take jobs on).
 */
const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 300));

/** An item claimed and run as the worker runs it (same Idempotency-Key): charged and settled; its result is returned, not written. */
async function run(job: JobRecord, index: number): Promise<ItemOutcome> {
  expect(await claimJobItem(job.id, index, Date.now() + 60_000, new Date())).toBeNull();
  const result = await runSocialOperation({
    caller: { userId: job.created_by_id },
    orgId: job.organization_id,
    operationName: OPERATION,
    input: { handle: `creator${index}` },
    idempotencyKey: itemIdempotencyKey(job.id, index),
    requestId: `${job.id}:${index}`,
  });
  return { status: 'succeeded', output: result.output, charged: result.charged };
}

/** A job of its own organization, created STALE_MS ago, whose messages were never marked sent, with item 0 at the provider. */
async function prepare(shape: Shape): Promise<Prepared> {
  const { orgId, users } = await workspace({ credits: CREDITS });
  const total = shape === 'last item' ? 2 : 4;
  const job = newJob({ orgId, operation: OPERATION, total, createdById: users.editor, now: new Date(Date.now() - STALE_MS) });
  expect(await createJob(job, 5, undefined, Date.now())).toBeNull();
  const inputs = Array.from({ length: total }, (_, i) => ({ handle: `creator${i}` }));
  await putJobItems(job.id, shape === 'unwritten items' ? inputs.slice(0, -1) : inputs);
  const first = await run(job, 0);
  if (shape === 'last item') expect(await finishJobItem(job, 1, 'running', await run(job, 1), new Date())).toEqual({ result: 'finished' });
  return { job, first };
}

/** The cancel as a member's, from the job as read when the race starts. */
async function memberCancel(jobId: string) {
  const job = defined(await getJob(jobId), 'the job');
  await pause();
  return cancelJob(job, new Date());
}

async function race(shape: Shape, prepared: Prepared[]): Promise<void> {
  await Promise.all([
    ...prepared.map(({ job, first }) =>
      Promise.all([
        memberCancel(job.id),
        // As long as the cancel's read, then a pause.
        getJob(job.id)
          .then(pause)
          .then(() => finishJobItem(job, 0, 'running', first, new Date())),
        shape === 'last item'
          ? undefined
          : pause().then(() => handleJobMessage({ kind: 'item', jobId: job.id, orgId: job.organization_id, index: 1 })),
      ]),
    ),
    recoverStalledJobs(new Date()),
  ]);
  // What the recovery sent again, and the items nobody ran.
  await drainJobs();
}

async function activeJobsOf(orgId: string): Promise<number> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: true }));
  return Number(Item?.active_jobs);
}

/** Each succeeded item charged once and no other; the job ended once. */
async function expectChargedOnceEndedOnce({ job: { id, organization_id: orgId, total } }: Prepared, active: Set<string>): Promise<void> {
  const job = defined(await getJob(id), 'the job');
  expect(job).toMatchObject({ queued: 0, running: 0, failed: 0, charged: job.succeeded * COST });
  expect(['completed', 'cancelled']).toContain(job.status);
  expect(job.completed_at).not.toBeNull();
  expect(job.succeeded + job.cancelled).toBe(total);
  expect(await activeJobsOf(orgId)).toBe(0);
  expect(active.has(id)).toBe(false);

  const { items } = await listJobItemsPage(id, 10, undefined, undefined);
  // Item 0's run was charged before the race: its end is never lost, whoever won.
  expect(items[0]).toMatchObject({ status: 'succeeded', charged: COST });
  expect(items.filter((item) => item.status === 'succeeded')).toHaveLength(job.succeeded);
  expect(items.reduce((sum, item) => sum + item.charged, 0)).toBe(job.charged);

  const ledger = await readLedger(orgId);
  expect(ledgerProblems(ledger, job.succeeded)).toEqual([]);
  expect(ledger.charges).toHaveLength(job.succeeded);
  expect(standingCharges(ledger)).toHaveLength(job.succeeded);
  expect(ledger.pending.size).toBe(0);
  expect(ledger.credits).toBe(CREDITS - job.charged);
}

describe.each<Shape>(['last item', 'pending items', 'unwritten items'])('a cancel, an item’s end and a recovery at once (%s)', (shape) => {
  it('charges each item once and ends the job once', async () => {
    for (let start = 0; start < JOBS; start += AT_ONCE) {
      const prepared = await Promise.all(Array.from({ length: Math.min(AT_ONCE, JOBS - start) }, () => prepare(shape)));
      await race(shape, prepared);
      const active = new Set((await listActiveJobs()).map((marker) => marker.jobId));
      for (const one of prepared) await expectChargedOnceEndedOnce(one, active);
    }
  }, 60_000);
});
