/**
 * Bulk runs as jobs (docs/jobs.md), through the real handlers on DynamoDB Local and the embedded
 * queue with short timeouts: creation (every input validated first, nothing written on a 400), the
 * active-job limit under concurrency, Idempotency-Key, reading and paging items, cancel, credits
 * running out mid-job, a provider failing one item in ten, a redelivered message, a worker that
 * died mid-item. After each, every item is succeeded-and-charged once or failed-and-not-charged,
 * and the balance equals the sum of the events.
 */
import { gunzipSync } from 'node:zlib';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as cancelJob } from '../../functions/cancel-social-job.ts';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { handler as getJob } from '../../functions/get-social-job.ts';
import { handler as listItems } from '../../functions/list-social-job-items.ts';
import { sweepPendingRuns } from '../../lib/billing/sweeper.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { listActiveJobs } from '../../lib/db/jobs.ts';
import { jobItemKey } from '../../lib/db/keys.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { requeueActiveJobs } from '../../lib/jobs/recovery.ts';
import { handleJobMessage } from '../../lib/jobs/worker.ts';
import { resetHealthSettings } from '../../lib/social/health/settings.ts';
import { forgetHealth, noteAttempts } from '../../lib/social/health/view.ts';
import { findOperation } from '../../lib/social/operations.ts';
import { workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { drainJobs, jobsQueue } from '../support/jobs.ts';
import { ledgerProblems, readLedger, standingCharges } from '../support/ledger.ts';
import { eventsOf } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const OPERATION = 'tiktok_profile';
const COST = findOperation(OPERATION).cost;

const jobsUrl = (orgId: string, operation = OPERATION) => `/social/${operation}/jobs?organization_id=${orgId}`;
const create = (orgId: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
  call(createJob, { method: 'POST', url: jobsUrl(orgId), token, body, headers });
const read = (jobId: string, token: string) => call(getJob, { url: `/social/jobs/${jobId}`, token });
const items = (jobId: string, token: string, query = '') => call(listItems, { url: `/social/jobs/${jobId}/items${query}`, token });
const cancel = (jobId: string, token: string) => call(cancelJob, { method: 'POST', url: `/social/jobs/${jobId}/cancel`, token });
const handles = (count: number, name = (i: number) => `creator${i}`) => Array.from({ length: count }, (_, i) => ({ handle: name(i) }));

/** The money of the organization adds up: balance = events, no charge without its result. */
async function expectLedgerHolds(orgId: string, delivered: number) {
  const ledger = await readLedger(orgId);
  expect(ledgerProblems(ledger, delivered)).toEqual([]);
  expect(ledger.pending.size).toBe(0);
  return ledger;
}

describe('POST /social/{operation}/jobs', () => {
  /** One workspace for the 400s below: each writes nothing (which they check), so none needs a fresh one. */
  let refusing: ReturnType<typeof workspace> | undefined;
  const refusingWorkspace = () => (refusing ??= workspace({ credits: 10 }));

  it('answers 202 with the job and Location, then runs every item once, charged like a single run', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);

    // Act
    const created = await create(orgId, token, { inputs: handles(3) });

    // Assess
    expect(created.status).toBe(202);
    expect(created.headers.location).toBe(`/social/jobs/${created.body.id}`);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^job_[0-9a-f]{32}$/),
      organization_id: orgId,
      operation: OPERATION,
      status: 'queued',
      total: 3,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
      pending: 3,
      charged: 0,
      max_credits: null,
      created_at: expect.any(String),
      created_by_id: users.editor,
      completed_at: null,
      fields: null,
      webhook: null,
    });
    await drainJobs();
    const done = await read(created.body.id, tokenFor(users.viewer));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', succeeded: 3, failed: 0, pending: 0, charged: 3 * COST });
    expect(done.body.completed_at).toEqual(expect.any(String));
    const listed = await items(created.body.id, token);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item: Record<string, unknown>) => [item.index, item.status, item.charged])).toEqual([
      [0, 'succeeded', COST],
      [1, 'succeeded', COST],
      [2, 'succeeded', COST],
    ]);
    expect(listed.body.items[0].input).toEqual({ handle: 'creator0' });
    expect(listed.body.items[0].output).toEqual(expect.objectContaining({}));
    expect(listed.body.items[0].error).toBeNull();
    // Kept compressed on its item (the 400 KB item limit), answered as the run's own output.
    const stored = await db().send(new GetCommand({ TableName: tableName(), Key: jobItemKey(created.body.id, 0), ConsistentRead: true }));
    expect(stored.Item).not.toHaveProperty('output');
    expect(JSON.parse(gunzipSync(stored.Item?.output_gzip as Uint8Array).toString('utf8'))).toEqual(listed.body.items[0].output);
    expect((await getOrganization(orgId))?.credits).toBe(100 - 3 * COST);
    const ledger = await expectLedgerHolds(orgId, 3);
    expect(standingCharges(ledger)).toHaveLength(3);
  });

  it.each([
    ['no inputs', { inputs: [] }, ['body', 'inputs']],
    ['1,001 inputs', { inputs: handles(1001) }, ['body', 'inputs']],
    ['no inputs field', {}, ['body', 'inputs']],
    ['an unknown field', { inputs: handles(1), callback: 'x' }, ['body']],
  ])('refuses %s: 400, and writes nothing', async (_, body, path) => {
    const { orgId, users } = await refusingWorkspace();
    const answer = await create(orgId, tokenFor(users.editor), body);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.data.issues[0].path).toEqual(path);
    expect((await readLedger(orgId)).charges).toEqual([]);
    expect(jobsQueue().size).toBe(0);
  });

  it('refuses one invalid input among valid ones, naming it: 400, no job, nothing queued or charged', async () => {
    const { orgId, users } = await refusingWorkspace();
    const inputs = [...handles(3), { handle: '' }, { handle: 'ok', extra: 1 }];
    const answer = await create(orgId, tokenFor(users.editor), { inputs });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.data.issues.map((issue: { path: unknown[] }) => issue.path.slice(0, 3))).toEqual([
      ['body', 'inputs', 3],
      ['body', 'inputs', 3],
      ['body', 'inputs', 4],
    ]);
    expect(answer.body.message).toMatch(/^body\.inputs\.3\.handle: /);
    expect(jobsQueue().size).toBe(0);
    expect((await getOrganization(orgId))?.credits).toBe(10);
  });

  it.each([
    ['plain http', 'http://example.com/hook', 'must be an https URL (or http on a loopback address)'],
    ['a private address', 'https://10.0.0.7/hook', 'its host is a private, link-local or otherwise non-public address'],
    ['the metadata address', 'https://169.254.169.254/latest', 'its host is a private, link-local or otherwise non-public address'],
    ['an IPv6 link-local address', 'https://[fe80::1]/hook', 'its host is a private, link-local or otherwise non-public address'],
    [
      'an IPv4-mapped private address',
      'https://[::ffff:192.168.1.1]/hook',
      'its host is a private, link-local or otherwise non-public address',
    ],
    ['credentials', 'https://user:pw@example.com/hook', 'must not carry credentials'],
    ['not a URL', 'hook', 'must be an absolute URL'],
  ])('refuses a webhook URL with %s: 400 naming webhook_url', async (_, url, message) => {
    const { orgId, users } = await refusingWorkspace();
    const answer = await create(orgId, tokenFor(users.editor), { inputs: handles(1), webhook_url: url });
    expect(answer.status).toBe(400);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'validation_failed',
      message: `body.webhook_url: ${message}`,
      data: { issues: [{ path: ['body', 'webhook_url'], code: 'invalid_webhook_url', message }] },
    });
    expect(jobsQueue().size).toBe(0);
  });

  it('refuses viewers (403), non-members (403) and unknown operations (404)', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    expect((await create(orgId, tokenFor(users.viewer), { inputs: handles(1) })).body.code).toBe('forbidden');
    expect((await create(orgId, tokenFor('stranger'), { inputs: handles(1) })).status).toBe(403);
    const unknown = await call(createJob, {
      method: 'POST',
      url: jobsUrl(orgId, 'tiktok_profil'),
      token: tokenFor(users.editor),
      body: { inputs: handles(1) },
    });
    expect(unknown.status).toBe(404);
    expect(jobsQueue().size).toBe(0);
  });

  it('allows 5 jobs queued or running per organization, exactly, when 8 are created at once; an ended job frees its place', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(orgId, token, { inputs: handles(1) })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 202, 202, 202, 202, 409, 409, 409]);
    const refused = answers.find((answer) => answer.status === 409);
    expect(withoutRequestId(refused?.body)).toEqual({
      code: 'job_limit_reached',
      message: 'the organization has 5 jobs queued or running, the most it may: wait for one to end, or cancel one',
      data: { max_active_jobs: 5 },
    });
    const first = answers.find((answer) => answer.status === 202);
    expect((await cancel(first?.body.id, token)).body.status).toBe('cancelled');
    expect((await create(orgId, token, { inputs: handles(1) })).status).toBe(202);
    await drainJobs();
    expect((await create(orgId, token, { inputs: handles(1) })).status).toBe(202);
    await drainJobs();
    // 4 of the first 5, and the 2 created after.
    await expectLedgerHolds(orgId, 6);
    expect((await getOrganization(orgId))?.credits).toBe(100 - 6 * COST);
  });

  it('answers the same job to a retry with the same Idempotency-Key, and 409 with another body', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const headers = { 'Idempotency-Key': 'batch-1' };
    const [first, second] = await Promise.all([
      create(orgId, token, { inputs: handles(2) }, headers),
      create(orgId, token, { inputs: handles(2) }, headers),
    ]);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body.id).toBe(first.body.id);
    expect([first.headers['idempotent-replayed'], second.headers['idempotent-replayed']].sort()).toEqual(['true', undefined]);
    const other = await create(orgId, token, { inputs: handles(3) }, headers);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('idempotency_key_reused');
    await drainJobs();
    expect((await read(first.body.id, token)).body).toMatchObject({ status: 'completed', succeeded: 2, charged: 2 * COST });
    await expectLedgerHolds(orgId, 2);
  });
});

describe('reading a job', () => {
  it('shows a job to members only: a stranger and another organization get 404', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const other = await workspace();
    const created = await create(orgId, tokenFor(users.editor), { inputs: handles(1) });
    expect((await read(created.body.id, tokenFor(users.viewer))).status).toBe(200);
    for (const token of [tokenFor('stranger'), tokenFor(other.users.owner)]) {
      const answer = await read(created.body.id, token);
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('not_found');
      expect((await items(created.body.id, token)).status).toBe(404);
    }
    expect((await read('job_0123456789abcdef0123456789abcdef', tokenFor(users.editor))).status).toBe(404);
    await drainJobs();
  });

  it('pages items by index and filters them by status, with cursors bound to the job and the filter', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const inputs = handles(7, (i) => (i % 3 === 0 ? 'sample_not_found' : `creator${i}`));
    const created = await create(orgId, token, { inputs });
    await drainJobs();
    const first = await items(created.body.id, token, '?limit=3');
    expect(first.body.items.map((item: { index: number }) => item.index)).toEqual([0, 1, 2]);
    expect(first.body.has_more).toBe(true);
    const second = await items(created.body.id, token, `?limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items.map((item: { index: number }) => item.index)).toEqual([3, 4, 5]);
    const failed = await items(created.body.id, token, '?status=failed');
    expect(failed.body.items.map((item: { index: number }) => item.index)).toEqual([0, 3, 6]);
    expect(failed.body.items[0]).toMatchObject({ status: 'failed', charged: 0, output: null, error: { code: 'not_found' } });
    const crossed = await items(created.body.id, token, `?status=failed&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(crossed.status).toBe(400);
    expect(crossed.body.data.issues[0].path).toEqual(['query', 'cursor']);
    expect((await read(created.body.id, token)).body).toMatchObject({ succeeded: 4, failed: 3, charged: 4 * COST });
    await expectLedgerHolds(orgId, 4);
  });
});

describe('running a job', () => {
  it('cancels the items not yet started: never charged; a viewer may not cancel', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const created = await create(orgId, token, { inputs: handles(4) });
    expect((await cancel(created.body.id, tokenFor(users.viewer))).status).toBe(403);
    const cancelled = await cancel(created.body.id, token);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelled: 4, pending: 0, charged: 0 });
    await drainJobs();
    const listed = await items(created.body.id, token, '?status=cancelled');
    expect(listed.body.items).toHaveLength(4);
    expect((await cancel(created.body.id, token)).body).toMatchObject({ status: 'cancelled', cancelled: 4 });
    expect((await eventsOf(orgId)).map((event) => event.type)).toEqual(['credits.granted']);
  });

  it('fails the items after credits run out with the 402, uncharged', async () => {
    const { orgId, users } = await workspace({ credits: 2 * COST });
    const token = tokenFor(users.editor);
    const created = await create(orgId, token, { inputs: handles(5) });
    // One at a time, so that "after" is well defined.
    const stop = jobsQueue().consume((message) => handleJobMessage(message), { concurrency: 1, visibilityTimeoutMs: 200 });
    await jobsQueue().drained();
    await stop();
    const job = (await read(created.body.id, token)).body;
    expect(job).toMatchObject({ status: 'completed', succeeded: 2, failed: 3, charged: 2 * COST });
    const failed = (await items(created.body.id, token, '?status=failed')).body.items;
    expect(failed.map((item: { index: number }) => item.index)).toEqual([2, 3, 4]);
    for (const item of failed) {
      expect(item.charged).toBe(0);
      expect(item.error.code).toBe('insufficient_credits');
      expect(item.error.data).toMatchObject({
        balance: 0,
        cost: COST,
        billing_url: `http://127.0.0.1/console?organization_id=${orgId}#billing`,
      });
    }
    expect((await getOrganization(orgId))?.credits).toBe(0);
    await expectLedgerHolds(orgId, 2);
  });

  it('refunds the items the provider fails (one in ten): each item charged once or not at all', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const inputs = handles(10, (i) => (i === 4 ? 'sample_upstream_error' : `creator${i}`));
    const created = await create(orgId, token, { inputs });
    await drainJobs();
    expect((await read(created.body.id, token)).body).toMatchObject({ succeeded: 9, failed: 1, charged: 9 * COST });
    const [failed] = (await items(created.body.id, token, '?status=failed')).body.items;
    expect(failed).toMatchObject({ index: 4, charged: 0, error: { code: 'upstream_failed' } });
    const ledger = await expectLedgerHolds(orgId, 9);
    expect(ledger.charges).toHaveLength(10);
    expect(ledger.refunds.size).toBe(1);
    expect(ledger.credits).toBe(100 - 9 * COST);
  });

  it('never charges twice for a message delivered twice, before or after its item finished', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const created = await create(orgId, token, { inputs: handles(2) });
    const message = { kind: 'item' as const, jobId: created.body.id, orgId, index: 0 };
    // Two deliveries of the same message at once, then once more after it finished.
    const outcomes = await Promise.all([handleJobMessage(message), handleJobMessage(message)]);
    // One of them runs the item; the other finds it claimed (false: try again later) or, if the
    // first finished before it looked, finished (true). Either way the item is charged once.
    expect(outcomes).toContain(true);
    expect(await handleJobMessage(message)).toBe(true);
    await drainJobs();
    expect((await read(created.body.id, token)).body).toMatchObject({ status: 'completed', succeeded: 2, charged: 2 * COST });
    const ledger = await expectLedgerHolds(orgId, 2);
    expect(ledger.charges).toHaveLength(2);
  });

  it("puts back, uncharged, an item whose every provider's breaker is open (503), until JOB_UNAVAILABLE_RETRY_SECONDS; then it fails, uncharged", async () => {
    // Prepare: two items; this instance saw the provider fail on the operation enough to trip its breaker.
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const created = await create(orgId, token, { inputs: handles(2) });
    const [first, second] = [0, 1].map((index) => ({ kind: 'item' as const, jobId: created.body.id, orgId, index }));
    const saved = { min: process.env.HEALTH_BREAKER_MIN_FAILURES, retry: process.env.JOB_UNAVAILABLE_RETRY_SECONDS };
    process.env.HEALTH_BREAKER_MIN_FAILURES = '1';
    resetHealthSettings();
    try {
      noteAttempts(
        OPERATION,
        Array.from({ length: 100 }, () => ({ provider: 'sample', ok: false, ms: 5 })),
        Date.now(),
      );

      // Act and assess: within the job's hour, each delivery puts the item back (false: delivered again), charging nothing.
      expect(await handleJobMessage(first!)).toBe(false);
      expect(await handleJobMessage(first!)).toBe(false);
      expect((await getOrganization(orgId))?.credits).toBe(100);
      expect((await items(created.body.id, token)).body.items[0]).toMatchObject({ status: 'pending', charged: 0, error: null });
      // Past the job's deadline for an outage (here 0 s), the item fails with the run's 503 body, uncharged.
      process.env.JOB_UNAVAILABLE_RETRY_SECONDS = '0';
      expect(await handleJobMessage(second!)).toBe(true);
      expect((await items(created.body.id, token)).body.items[1]).toMatchObject({
        status: 'failed',
        charged: 0,
        error: { code: 'operation_unavailable', data: { operation: OPERATION, providers: ['sample'] } },
      });
    } finally {
      Object.assign(process.env, { HEALTH_BREAKER_MIN_FAILURES: saved.min });
      if (saved.retry === undefined) delete process.env.JOB_UNAVAILABLE_RETRY_SECONDS;
      else process.env.JOB_UNAVAILABLE_RETRY_SECONDS = saved.retry;
      resetHealthSettings();
      forgetHealth();
    }
    // The provider back (its breaker closed): the put-back item runs, charged once; the queued messages find both finished.
    expect(await handleJobMessage(first!)).toBe(true);
    await drainJobs();
    expect((await read(created.body.id, token)).body).toMatchObject({ status: 'completed', succeeded: 1, failed: 1, charged: COST });
    const ledger = await expectLedgerHolds(orgId, 1);
    expect(ledger.charges).toHaveLength(1);
  });

  it('replays, not charges again, an item whose worker died after its run and before its result was written', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const created = await create(orgId, token, { inputs: handles(1) });
    const message = { kind: 'item' as const, jobId: created.body.id, orgId, index: 0 };
    // The first worker runs the item (charged, settled) and dies writing its result.
    // Its result's write fails, and so does the release of its lease: as if its process were gone.
    const removeFault = failWrites((input) => /:to"|:released"/.test(JSON.stringify(input)), 'InternalServerError');
    await expect(handleJobMessage(message)).rejects.toThrow('injected');
    removeFault();
    expect((await items(created.body.id, token)).body.items[0].status).toBe('pending');
    // Redelivered before the item's lease is out: left for later. After it: taken over, and the run replays.
    expect(await handleJobMessage(message)).toBe(false);
    const later = () => Date.now() + 120_000;
    expect(await handleJobMessage(message, { now: later })).toBe(true);
    expect((await read(created.body.id, token)).body).toMatchObject({ status: 'completed', succeeded: 1, charged: COST });
    const ledger = await expectLedgerHolds(orgId, 1);
    expect(ledger.charges).toHaveLength(1);
  });

  it('queues again, at start, the items of the jobs whose messages a stopped server lost: each run once', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const created = await create(orgId, token, { inputs: handles(3) });
    expect(await handleJobMessage({ kind: 'item', jobId: created.body.id, orgId, index: 0 })).toBe(true);
    // The server stops: its embedded queue's messages are gone. The next one starts.
    jobsQueue().purge();
    expect((await listActiveJobs()).map((active) => active.jobId)).toContain(created.body.id);
    const requeued = await requeueActiveJobs();
    expect(requeued.messages).toBeGreaterThanOrEqual(2);
    await drainJobs();
    expect((await read(created.body.id, token)).body).toMatchObject({ status: 'completed', succeeded: 3, charged: 3 * COST });
    expect((await listActiveJobs()).map((active) => active.jobId)).not.toContain(created.body.id);
    const ledger = await expectLedgerHolds(orgId, 3);
    expect(ledger.charges).toHaveLength(3);
  });

  it('finishes a job through DynamoDB throttling (one command in five): every item charged once or not at all', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const created = await create(orgId, token, { inputs: handles(6) });
    let sent = 0;
    const removeFault = failWrites(() => {
      sent += 1;
      return sent % 5 === 0;
    }, 'ThrottlingException');
    try {
      await drainJobs();
    } finally {
      removeFault();
    }
    const job = (await read(created.body.id, token)).body;
    expect(job.status).toBe('completed');
    expect(job.succeeded + job.failed).toBe(6);
    expect(job.charged).toBe(job.succeeded * COST);
    await sweepPendingRuns({ now: new Date(Date.now() + 10 * 60_000) });
    const ledger = await readLedger(orgId);
    expect(ledgerProblems(ledger, job.succeeded)).toEqual([]);
    expect(standingCharges(ledger)).toHaveLength(job.succeeded);
  });
});

/** Makes the service's writes that `matches` selects (by their input) throw `errorName` before they are sent. */
function failWrites(matches: (input: Record<string, unknown>) => boolean, errorName: string): () => void {
  const name = `fail-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName);
      const write = /Write|Update|Put|Delete/.test(command);
      if (write && matches(args.input as Record<string, unknown>)) throw Object.assign(new Error('injected'), { name: errorName });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

afterAll(async () => {
  await jobsQueue().drained();
});

beforeAll(() => {
  expect(jobsQueue().size).toBe(0);
});
