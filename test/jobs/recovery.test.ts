/**
 * The recovery of stalled jobs (lib/jobs/recovery.ts, docs/jobs.md "When a creation is cut
 * short"), through the real creation handler on DynamoDB Local and the embedded queue: a creation
 * killed after its transaction (mid-send, or while writing its items; test/support/jobs.ts) is
 * found once past the threshold and runs to its end, every item charged once; or, its items never
 * all written, it is cancelled, its place under the limit and its webhook as a cancel's. Jobs
 * younger than the threshold, and healthy ones, are never sent anything; two recoveries at once,
 * or a recovery and a late creation, send at most one extra copy of a message.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { handler as getJob } from '../../functions/get-social-job.ts';
import { jobsConfig } from '../../lib/config.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { getJob as readJob } from '../../lib/db/jobs.ts';
import { orgKey } from '../../lib/db/keys.ts';
import { defined } from '../../lib/defined.ts';
import { recoverStalledJobs } from '../../lib/jobs/recovery.ts';
import { findOperation } from '../../lib/social/operations.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { activeJobOf, drainJobs, jobsQueue, killItemWritesAfter, killNextSendAfter } from '../support/jobs.ts';
import { ledgerProblems, readLedger, standingCharges } from '../support/ledger.ts';
import { tokenFor } from '../support/tokens.ts';

const OPERATION = 'tiktok_profile';
const COST = findOperation(OPERATION).cost;
const THRESHOLD_MS = jobsConfig().stalledAfterSeconds * 1000;
const NOTHING = { jobs: 0, messages: 0, cancelled: 0 };

const handles = (count: number) => Array.from({ length: count }, (_, i) => ({ handle: `creator${i}` }));
const create = (orgId: string, token: string, body: unknown) =>
  call(createJob, { method: 'POST', url: `/social/${OPERATION}/jobs?organization_id=${orgId}`, token, body });
const read = (jobId: string, token: string) => call(getJob, { url: `/social/jobs/${jobId}`, token });
/** A moment `ms` after now. */
const inMs = (ms: number) => new Date(Date.now() + ms);
const sent = () => jobsQueue().stats.sent;

/** The organization's count of jobs queued or running, as stored. */
async function activeJobs(orgId: string): Promise<number> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: true }));
  return Number(Item?.active_jobs);
}

/** Every item charged once: as many standing charges as results, and the balance the sum of the events. */
async function expectChargedOnce(orgId: string, items: number, credits: number) {
  const ledger = await readLedger(orgId);
  expect(ledgerProblems(ledger, items)).toEqual([]);
  expect(ledger.charges).toHaveLength(items);
  expect(standingCharges(ledger)).toHaveLength(items);
  expect(ledger.pending.size).toBe(0);
  expect(ledger.credits).toBe(credits - items * COST);
}

describe('a creation killed while sending its messages', () => {
  it('is left alone before the threshold, then its pending items are sent again once, and it runs to its end', async () => {
    // Prepare: 2 of 4 messages sent, then the function is killed; those 2 items run.
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const kill = killNextSendAfter(2);
    void create(orgId, token, { inputs: handles(4) });
    await kill.reached;
    const jobId = await activeJobOf(orgId);
    await drainJobs();
    expect(await readJob(jobId)).toMatchObject({ status: 'running', succeeded: 2, queued: 2, messages: 'sending', recovered_at: null });

    // Act: recoveries now and just before the threshold, then past it, then again. Times count
    // from the job's own creation, so a slow machine between it and here moves nothing.
    const createdMs = Date.parse(defined(await readJob(jobId), 'the job').created_at);
    const sinceCreation = (ms: number) => new Date(createdMs + ms);
    const early = [await recoverStalledJobs(new Date()), await recoverStalledJobs(sinceCreation(THRESHOLD_MS - 5_000))];
    const sentBefore = sent();
    const at = sinceCreation(THRESHOLD_MS + 1_000);
    const recovered = await recoverStalledJobs(at);
    const again = await recoverStalledJobs(sinceCreation(3 * THRESHOLD_MS));
    const resent = sent() - sentBefore;
    await drainJobs();

    // Assess
    expect(early).toEqual([NOTHING, NOTHING]);
    expect(recovered).toEqual({ jobs: 1, messages: 2, cancelled: 0 });
    expect(again).toEqual(NOTHING);
    expect(resent).toBe(2);
    const job = await readJob(jobId);
    expect(job).toMatchObject({
      status: 'completed',
      succeeded: 4,
      failed: 0,
      charged: 4 * COST,
      messages: 'sent',
      messages_sent_at: at.toISOString(),
      recovered_at: at.toISOString(),
    });
    expect((await read(jobId, token)).body).toMatchObject({ status: 'completed', succeeded: 4, pending: 0, charged: 4 * COST });
    await expectChargedOnce(orgId, 4, 100);
    expect(await activeJobs(orgId)).toBe(0);
  });

  it('is recovered by one of two recoveries at once: its messages sent once more, not twice', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const kill = killNextSendAfter(0);
    void create(orgId, tokenFor(users.editor), { inputs: handles(3) });
    await kill.reached;
    const jobId = await activeJobOf(orgId);
    const sentBefore = sent();

    const at = inMs(THRESHOLD_MS + 1_000);
    const both = await Promise.all([recoverStalledJobs(at), recoverStalledJobs(at)]);
    const resent = sent() - sentBefore;
    await drainJobs();

    expect(both.sort((a, b) => a.jobs - b.jobs)).toEqual([NOTHING, { jobs: 1, messages: 3, cancelled: 0 }]);
    expect(resent).toBe(3);
    expect(await readJob(jobId)).toMatchObject({ status: 'completed', succeeded: 3, charged: 3 * COST, messages: 'sent' });
    await expectChargedOnce(orgId, 3, 100);
  });

  it('sends one extra copy at most when the creation was only late: both send, the first mark wins, each item runs once', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const sentBefore = sent();
    const kill = killNextSendAfter(1);
    const late = create(orgId, tokenFor(users.editor), { inputs: handles(3) });
    await kill.reached;
    const jobId = await activeJobOf(orgId);

    // The recovery sends the 3 pending items; then the creation wakes, sends its other 2 and answers.
    const at = inMs(THRESHOLD_MS + 1_000);
    const recovered = await recoverStalledJobs(at);
    kill.resume();
    const answer = await late;
    const copies = sent() - sentBefore;
    await drainJobs();

    expect(recovered).toEqual({ jobs: 1, messages: 3, cancelled: 0 });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ id: jobId, status: 'queued', total: 3 });
    // 1 + 2 from the creation, 3 from the recovery: each item's message twice, no more.
    expect(copies).toBe(2 * 3);
    expect(await readJob(jobId)).toMatchObject({ status: 'completed', succeeded: 3, recovered_at: at.toISOString() });
    await expectChargedOnce(orgId, 3, 100);
  });
});

describe('healthy jobs', () => {
  it('never sends anything for a job whose creation finished, however old, and the job runs as created', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const created = await create(orgId, tokenFor(users.editor), { inputs: handles(3) });
    expect(created.status).toBe(202);
    const sentBefore = sent();

    const results = [await recoverStalledJobs(inMs(THRESHOLD_MS + 1_000)), await recoverStalledJobs(inMs(24 * 3600_000))];
    const resent = sent() - sentBefore;
    await drainJobs();

    expect(results).toEqual([NOTHING, NOTHING]);
    expect(resent).toBe(0);
    const job = await readJob(created.body.id);
    expect(job).toMatchObject({ status: 'completed', succeeded: 3, messages: 'sent', recovered_at: null });
    expect(Date.parse(job?.messages_sent_at ?? '')).toBeGreaterThanOrEqual(Date.parse(created.body.created_at));
    await expectChargedOnce(orgId, 3, 100);
  });

  it('answers 202 when only the mark of its messages failed; a recovery later sends its pending items again, charged once', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const removeFault = failMark();
    const created = await create(orgId, tokenFor(users.editor), { inputs: handles(3) });
    removeFault();
    const sentBefore = sent();

    const recovered = await recoverStalledJobs(inMs(THRESHOLD_MS + 1_000));
    const resent = sent() - sentBefore;
    await drainJobs();

    expect(created.status).toBe(202);
    expect(recovered).toEqual({ jobs: 1, messages: 3, cancelled: 0 });
    expect(resent).toBe(3);
    expect(await readJob(created.body.id)).toMatchObject({ status: 'completed', succeeded: 3, charged: 3 * COST });
    await expectChargedOnce(orgId, 3, 100);
  });
});

describe('a creation that failed to queue its messages', () => {
  it('answers 500 having cancelled the job, which the recovery leaves alone', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    vi.spyOn(jobsQueue(), 'send').mockImplementationOnce(() => Promise.reject(new Error('SQS is down (injected)')));
    const answer = await create(orgId, tokenFor(users.editor), { inputs: handles(2) });

    const recovered = await recoverStalledJobs(inMs(THRESHOLD_MS + 1_000));

    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({
      code: 'internal_error',
      message: 'the job could not be queued and was cancelled; nothing was charged, retry with backoff',
    });
    expect(recovered).toEqual(NOTHING);
    expect(await activeJobs(orgId)).toBe(0);
    expect((await readLedger(orgId)).charges).toEqual([]);
  });

  it('answers 500 saying the job may still run, and the recovery runs it: each item charged once', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    vi.spyOn(jobsQueue(), 'send').mockImplementationOnce(() => Promise.reject(new Error('SQS is down (injected)')));
    const removeFault = failCancel();
    const answer = await create(orgId, token, { inputs: handles(2) });
    removeFault();
    const jobId = await activeJobOf(orgId);

    const recovered = await recoverStalledJobs(inMs(THRESHOLD_MS + 1_000));
    await drainJobs();

    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({
      code: 'internal_error',
      message: `job ${jobId} could not be queued, and cancelling it failed too: it may still run within minutes; read it (GET /social/jobs/${jobId}) before retrying`,
    });
    expect(recovered).toEqual({ jobs: 1, messages: 2, cancelled: 0 });
    expect(await readJob(jobId)).toMatchObject({ status: 'completed', succeeded: 2, charged: 2 * COST });
    await expectChargedOnce(orgId, 2, 100);
  });
});

describe('a creation killed while writing its items', () => {
  it('is cancelled: its place under the limit given back (a sixth job is accepted) and its webhook delivered', async () => {
    // Prepare: 4 healthy jobs, then a fifth whose creation dies after 25 of its 30 items.
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const healthy: string[] = [];
    for (let i = 0; i < 4; i += 1) healthy.push((await create(orgId, token, { inputs: handles(1) })).body.id);
    const hook = await receiver();
    const kill = killItemWritesAfter(1);
    void create(orgId, token, { inputs: handles(30), webhook_url: hook.url });
    await kill.reached;
    kill.remove();
    const jobId = await activeJobOf(orgId, healthy);
    const refused = await create(orgId, token, { inputs: handles(1) });

    // Act
    const at = inMs(THRESHOLD_MS + 1_000);
    const recovered = await recoverStalledJobs(at);
    const cancelled = await readJob(jobId);
    const sixth = await create(orgId, token, { inputs: handles(1) });
    await drainJobs();

    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('job_limit_reached');
    expect(recovered).toEqual({ jobs: 0, messages: 0, cancelled: 1 });
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      total: 30,
      queued: 0,
      running: 0,
      cancelled: 30,
      charged: 0,
      completed_at: at.toISOString(),
      messages: 'sending',
      webhook_status: 'pending',
    });
    expect(sixth.status).toBe(202);
    expect(hook.received).toHaveLength(1);
    expect(JSON.parse(hook.received[0] ?? '{}')).toMatchObject({
      type: 'job.completed',
      data: { id: jobId, status: 'cancelled', total: 30, cancelled: 30, pending: 0, charged: 0 },
    });
    expect((await read(jobId, token)).body).toMatchObject({
      status: 'cancelled',
      webhook: { url: hook.url, status: 'delivered', attempts: 1 },
    });
    expect(await recoverStalledJobs(inMs(3 * THRESHOLD_MS))).toEqual(NOTHING);
    // The 4 healthy jobs and the sixth ran; the cancelled one charged nothing.
    await expectChargedOnce(orgId, 5, 100);
    expect(await activeJobs(orgId)).toBe(0);
  });
});

/** Makes the creation's mark of its messages (`messages = :sending`) fail, as a throttled write would. */
function failMark(): () => void {
  const name = `fail-mark-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ConditionExpression?: string };
      if (context.commandName === 'UpdateItemCommand' && input.ConditionExpression === 'messages = :sending')
        throw Object.assign(new Error('injected'), { name: 'ThrottlingException' });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

/** Makes the cancel's transaction (`cancel_requested = :true`) fail, as DynamoDB failing would. */
function failCancel(): () => void {
  const name = `fail-cancel-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && JSON.stringify(args.input).includes('cancel_requested = :true'))
        throw Object.assign(new Error('injected'), { name: 'InternalServerError' });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A webhook receiver on 127.0.0.1 answering 200, keeping each body. */
async function receiver(): Promise<{ url: string; received: string[] }> {
  const received: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/jobs`, received };
}

beforeAll(() => {
  expect(jobsQueue().size).toBe(0);
});

afterAll(async () => {
  await jobsQueue().drained();
});
