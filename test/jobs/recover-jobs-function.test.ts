/**
 * The deployed recovery of stalled jobs (functions/recover-jobs.ts) as EventBridge invokes it, and
 * `npm start`'s interval (lib/local/job-recovery.ts): what it answers, the line it logs per job
 * recovered and per run, and a run that could not recover a job ending in an error (the function's
 * error alarm) while a later run recovers it. The stalled jobs are created as the route creates
 * them (lib/jobs/create-job.ts), ten minutes ago, and killed part way (test/support/jobs.ts).
 * Logging is switched on here (the other files keep it silent).
 */
import type { Context } from 'aws-lambda';
import { afterAll, describe, expect, it, vi } from 'vitest';

process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
const { handler } = await import('../../functions/recover-jobs.ts');
const { jobsConfig } = await import('../../lib/config.ts');
const { db } = await import('../../lib/db/client.ts');
const { getJob } = await import('../../lib/db/jobs.ts');
const { createSocialJob } = await import('../../lib/jobs/create-job.ts');
const { recoverStalledJobs } = await import('../../lib/jobs/recovery.ts');
const { startJobRecovery } = await import('../../lib/local/job-recovery.ts');
const { workspace } = await import('../support/fixtures.ts');
const { activeJobOf, drainJobs, jobsQueue, killItemWritesAfter, killNextSendAfter } = await import('../support/jobs.ts');
const { ledgerProblems, readLedger } = await import('../support/ledger.ts');
const { captureOutput } = await import('../support/output.ts');

const THRESHOLD_MS = jobsConfig().stalledAfterSeconds * 1000;
const TEN_MINUTES_AGO = () => new Date(Date.now() - 10 * 60_000);
const context = {
  functionName: 'RecoverJobs',
  awsRequestId: 'recovery-test',
  getRemainingTimeInMillis: () => 50_000,
} as unknown as Context;
const handles = (count: number) => Array.from({ length: count }, (_, i) => ({ handle: `creator${i}` }));

const { records } = captureOutput();

/** A job created ten minutes ago whose creation was killed mid-send after `sent` messages. */
async function killedMidSend(orgId: string, userId: string, items: number, sent = 0): Promise<string> {
  const kill = killNextSendAfter(sent);
  void createSocialJob({ caller: { userId }, orgId, operationName: 'tiktok_profile', inputs: handles(items), now: TEN_MINUTES_AGO() });
  await kill.reached;
  return activeJobOf(orgId);
}

/** A job created ten minutes ago whose creation was killed before any of its items was written. */
async function killedWritingItems(orgId: string, userId: string, items: number, known: string[]): Promise<string> {
  const kill = killItemWritesAfter(0);
  void createSocialJob({ caller: { userId }, orgId, operationName: 'tiktok_profile', inputs: handles(items), now: TEN_MINUTES_AGO() });
  await kill.reached;
  kill.remove();
  return activeJobOf(orgId, known);
}

describe('functions/recover-jobs.ts', () => {
  it('answers what it did, logs one line per job recovered and one per run, and leaves young jobs alone', async () => {
    // Prepare: one job killed mid-send, one killed before its items, one just created and healthy.
    const { orgId, users } = await workspace({ credits: 100 });
    const sending = await killedMidSend(orgId, users.editor, 2);
    const unwritten = await killedWritingItems(orgId, users.editor, 3, [sending]);
    const young = await createSocialJob({ caller: { userId: users.editor }, orgId, operationName: 'tiktok_profile', inputs: handles(1) });

    // Act
    const answer = await handler({}, context);

    // Assess
    expect(answer).toEqual({ jobs: 1, messages: 2, cancelled: 1 });
    const created = await Promise.all([getJob(sending), getJob(unwritten)]);
    const lines = records().filter((record) => String(record.message).startsWith('stalled job') || record.message === 'job recovery');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          level: 'WARN',
          message: 'stalled job recovered: the messages of its pending items sent again',
          job: sending,
          organization_id: orgId,
          created_at: created[0]?.created_at,
          total: 2,
          messages: 2,
          function_name: 'RecoverJobs',
        }),
        expect.objectContaining({
          level: 'WARN',
          message: 'stalled job cancelled: its items were never all written',
          job: unwritten,
          organization_id: orgId,
          created_at: created[1]?.created_at,
          total: 3,
          items_written: 0,
          outcome: 'ended',
        }),
        expect.objectContaining({ level: 'INFO', message: 'job recovery', jobs: 1, messages: 2, cancelled: 1 }),
      ]),
    );
    expect(lines).toHaveLength(3);
    await drainJobs();
    expect(await getJob(sending)).toMatchObject({ status: 'completed', succeeded: 2, charged: 2, messages: 'sent' });
    expect(await getJob(unwritten)).toMatchObject({ status: 'cancelled', cancelled: 3, charged: 0 });
    expect(await getJob(young.job.id)).toMatchObject({ status: 'completed', succeeded: 1, recovered_at: null });
    const ledger = await readLedger(orgId);
    expect(ledgerProblems(ledger, 3)).toEqual([]);
    expect(ledger.charges).toHaveLength(3);
  });

  it('ends in an error when a job could not be recovered; that job is held until the threshold, then recovered', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const jobId = await killedMidSend(orgId, users.editor, 3);
    const removeFault = failItemStates();

    const failing = await handler({}, context).catch((error: unknown) => error);
    removeFault();
    const held = await recoverStalledJobs(new Date());
    const later = await recoverStalledJobs(new Date(Date.now() + THRESHOLD_MS + 1_000));
    await drainJobs();

    expect(failing).toEqual(new Error(`recovering 1 stalled jobs failed (${jobId}); recovered 0, cancelled 0`));
    expect(records()).toContainEqual(
      expect.objectContaining({ level: 'ERROR', message: 'recovering a stalled job failed; a later recovery tries again', job: jobId }),
    );
    expect(held).toEqual({ jobs: 0, messages: 0, cancelled: 0 });
    expect(later).toEqual({ jobs: 1, messages: 3, cancelled: 0 });
    expect(await getJob(jobId)).toMatchObject({ status: 'completed', succeeded: 3, charged: 3 });
  });
});

describe("npm start's interval", () => {
  it('recovers at once and then on its period, until stopped', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const jobId = await killedMidSend(orgId, users.editor, 2, 1);
    const lines: string[] = [];

    const stop = startJobRecovery(3600, (line) => lines.push(line));
    try {
      await vi.waitFor(() => expect(lines).toEqual(['job recovery: 1 stalled jobs queued again (2 messages), 0 cancelled']), {
        timeout: 5000,
      });
    } finally {
      stop();
    }
    await drainJobs();

    expect(await getJob(jobId)).toMatchObject({ status: 'completed', succeeded: 2, messages: 'sent' });
  });
});

/** The Query of a stalled job's item states fails (after the job was taken), as a throttled read would. */
function failItemStates(): () => void {
  const name = `fail-item-states-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ProjectionExpression?: string };
      if (context.commandName === 'QueryCommand' && input.ProjectionExpression === 'SK, #status')
        throw Object.assign(new Error('injected'), { name: 'ProvisionedThroughputExceededException' });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

afterAll(async () => {
  await jobsQueue().drained();
});
