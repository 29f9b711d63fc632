/**
 * A job's cap (docs/jobs.md, "A cap on the whole job"): `max_credits` in a job's body (or the
 * `Max-Credits` header, or MCP's `start_job`) is the most its items may be charged in all. Each
 * item's charge adds its cost to the job's budget in the charge's own transaction, under the cap;
 * an item with no room left fails uncharged with 402 `max_credits_exceeded` (`remaining`), the
 * others run, and the job ends normally. A refunded item gives its cost back. Through the real
 * handlers on DynamoDB Local and the embedded queue; the concurrent case holds every charge
 * between its reads and its transaction, so that all of them race for the same budget.
 */
import { describe, expect, it } from 'vitest';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { handler as getJobRoute } from '../../functions/get-social-job.ts';
import { handler as listItems } from '../../functions/list-social-job-items.ts';
import { handler as mcpHandler } from '../../functions/mcp.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { getJob } from '../../lib/db/jobs.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { handleJobMessage } from '../../lib/jobs/worker.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { holdCharges, until } from '../support/hold-charges.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { drainJobs, jobsQueue } from '../support/jobs.ts';
import { ledgerProblems, readLedger, standingCharges } from '../support/ledger.ts';
import { runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

/** x_profile costs 1 credit (0 from the cache). */
const OPERATION = 'x_profile';

const create = (orgId: string, token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(createJob, { method: 'POST', url: `/social/${OPERATION}/jobs?organization_id=${orgId}`, token, body, headers });
const read = (jobId: string, token: string) => call(getJobRoute, { url: `/social/jobs/${jobId}`, token });
const itemsOf = async (jobId: string, token: string) =>
  (await call(listItems, { url: `/social/jobs/${jobId}/items?limit=100`, token })).body.items as {
    index: number;
    status: string;
    charged: number;
    error: { code: string; message: string; data?: Record<string, unknown> } | null;
  }[];
const handles = (count: number, name = (i: number) => `creator${i}`) => Array.from({ length: count }, (_, i) => ({ handle: name(i) }));

/** The error an item with no room left records. */
const capped = (cost: number, max: number, remaining: number) => ({
  code: 'max_credits_exceeded',
  message: `this item would be charged ${cost} credit${cost === 1 ? '' : 's'} and its job has ${remaining} of its max_credits ${max} left; nothing was charged`,
  data: { cost, max_credits: max, remaining },
});

/** Runs the queue one message at a time, so that "after" is well defined. */
async function oneAtATime(): Promise<void> {
  const stop = jobsQueue().consume((message) => handleJobMessage(message), { concurrency: 1, visibilityTimeoutMs: 200 });
  try {
    await jobsQueue().drained();
  } finally {
    await stop();
  }
}

async function expectLedgerHolds(orgId: string, delivered: number) {
  const ledger = await readLedger(orgId);
  expect(ledgerProblems(ledger, delivered)).toEqual([]);
  expect(ledger.pending.size).toBe(0);
  expect(standingCharges(ledger)).toHaveLength(delivered);
  return ledger;
}

describe('max_credits on a job', () => {
  /** One workspace for the refusals below: each creates nothing, so none needs a fresh one. */
  let refusing: ReturnType<typeof workspace> | undefined;
  const refusingWorkspace = () => (refusing ??= workspace({ credits: 10 }));

  it('charges a job of 10 items of 1 credit capped at 5 exactly 5; the other 5 fail uncharged, and the job ends normally', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);

    // Act
    const created = await create(orgId, token, { inputs: handles(10), max_credits: 5 });
    await drainJobs();

    // Assess
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'queued', total: 10, charged: 0, max_credits: 5 });
    const job = await read(created.body.id, tokenFor(users.viewer));
    expect(job.body).toMatchObject({ status: 'completed', succeeded: 5, failed: 5, pending: 0, charged: 5, max_credits: 5 });
    const items = await itemsOf(created.body.id, token);
    expect(items.filter((item) => item.status === 'succeeded').map((item) => item.charged)).toEqual([1, 1, 1, 1, 1]);
    for (const item of items.filter((one) => one.status === 'failed')) {
      expect(item.charged).toBe(0);
      expect(item.error).toEqual(capped(1, 5, 0));
    }
    expect((await getOrganization(orgId))?.credits).toBe(95);
    expect(await getJob(created.body.id)).toMatchObject({ budget_spent: 5, refusal: null });
    await expectLedgerHolds(orgId, 5);
  });

  it('never passes the cap when every item is charged at once: 20 charges held, then let go together', async () => {
    // Prepare: every item claimed and read, each holding its charge transaction.
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const created = await create(orgId, token, { inputs: handles(20), max_credits: 7 });
    const hold = holdCharges();
    const stop = jobsQueue().consume((message) => handleJobMessage(message), { concurrency: 20, visibilityTimeoutMs: 30_000 });

    // Act
    try {
      await until(() => hold.held() === 20);
      hold.release();
      await jobsQueue().drained();
    } finally {
      hold.release();
      await stop();
    }

    // Assess
    expect((await read(created.body.id, token)).body).toMatchObject({ status: 'completed', succeeded: 7, failed: 13, charged: 7 });
    const failed = (await itemsOf(created.body.id, token)).filter((item) => item.status === 'failed');
    expect(failed.map((item) => item.error)).toEqual(Array.from({ length: 13 }, () => capped(1, 7, 0)));
    expect((await getOrganization(orgId))?.credits).toBe(93);
    await expectLedgerHolds(orgId, 7);
  });

  it('gives a refunded item its credits back: items the provider fails or does not find leave room for the others', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const token = tokenFor(users.editor);
    const inputs = [{ handle: 'sample_upstream_error' }, { handle: 'sample_not_found' }, ...handles(4)];
    const created = await create(orgId, token, { inputs, max_credits: 3 });
    await oneAtATime();

    expect((await read(created.body.id, token)).body).toMatchObject({ status: 'completed', succeeded: 3, failed: 3, charged: 3 });
    const items = await itemsOf(created.body.id, token);
    expect(items.map((item) => [item.status, item.charged, item.error?.code ?? null])).toEqual([
      ['failed', 0, 'upstream_failed'],
      ['failed', 0, 'not_found'],
      ['succeeded', 1, null],
      ['succeeded', 1, null],
      ['succeeded', 1, null],
      ['failed', 0, 'max_credits_exceeded'],
    ]);
    expect(await getJob(created.body.id)).toMatchObject({ budget_spent: 3 });
    const ledger = await expectLedgerHolds(orgId, 3);
    expect(ledger.charges).toHaveLength(5);
    expect(ledger.refunds.size).toBe(2);
    expect(ledger.credits).toBe(97);
  });

  it('answers the cap first of the 402s: an item the balance refuses too is told about the cap', async () => {
    const { orgId, users } = await workspace({ credits: 2 });
    const token = tokenFor(users.editor);
    const created = await create(orgId, token, { inputs: handles(4), max_credits: 2 });
    await oneAtATime();

    const items = await itemsOf(created.body.id, token);
    expect(items.map((item) => item.error)).toEqual([null, null, capped(1, 2, 0), capped(1, 2, 0)]);
    expect(await getJob(created.body.id)).toMatchObject({ succeeded: 2, failed: 2, refusal: null });
    await expectLedgerHolds(orgId, 2);
  });

  it('judges each item by what is left: under max_credits 0 an item is refused, and a cached one after it runs at no cost', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const warm = await call(runOperation, { method: 'POST', url: runUrl(OPERATION, orgId), token, body: { handle: 'cached' } });
    expect(warm.status).toBe(200);

    const inputs = [{ handle: 'fresh' }, { handle: 'cached' }];
    const created = await create(orgId, token, { inputs, max_credits: 0 }, { 'Cache-Control': 'max-age=600' });
    await oneAtATime();

    expect(created.body.max_credits).toBe(0);
    const items = await itemsOf(created.body.id, token);
    expect(items.map((item) => [item.status, item.charged, item.error])).toEqual([
      ['failed', 0, capped(1, 0, 0)],
      ['succeeded', 0, null],
    ]);
    expect((await getOrganization(orgId))?.credits).toBe(9);
  });

  it('takes the cap from the Max-Credits header too, and shows no cap as null', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const fromHeader = await create(orgId, token, { inputs: handles(3) }, { 'Max-Credits': '2' });
    const same = await create(orgId, token, { inputs: handles(1), max_credits: 4 }, { 'Max-Credits': '4' });
    const none = await create(orgId, token, { inputs: handles(1) });
    await drainJobs();

    expect(fromHeader.status).toBe(202);
    expect((await read(fromHeader.body.id, token)).body).toMatchObject({ max_credits: 2, succeeded: 2, failed: 1, charged: 2 });
    expect(same.body.max_credits).toBe(4);
    expect(none.body.max_credits).toBeNull();
    expect(await getJob(none.body.id)).toMatchObject({ max_credits: null, budget_spent: null });
  });

  it.each([
    ['a negative cap', { max_credits: -1 }, {}, ['body', 'max_credits']],
    ['a fraction', { max_credits: 1.5 }, {}, ['body', 'max_credits']],
    ['a string', { max_credits: '5' }, {}, ['body', 'max_credits']],
    ['a cap above 1,000,000', { max_credits: 1_000_001 }, {}, ['body', 'max_credits']],
    ['null', { max_credits: null }, {}, ['body', 'max_credits']],
    ['a header that is not digits', {}, { 'Max-Credits': '5.0' }, ['header', 'max-credits']],
    ['a header above 1,000,000', {}, { 'Max-Credits': '1000001' }, ['header', 'max-credits']],
    ['a body and a header that differ', { max_credits: 5 }, { 'Max-Credits': '6' }, ['body', 'max_credits']],
  ])('refuses %s with 400 naming it, and creates nothing', async (_, extra, headers, path) => {
    const { orgId, users } = await refusingWorkspace();
    const answer = await create(orgId, tokenFor(users.editor), { inputs: handles(2), ...extra }, headers);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.data.issues.map((issue: { path: unknown }) => issue.path)).toEqual([path]);
    expect(jobsQueue().size).toBe(0);
  });

  it('says which values differ when the body and the header disagree', async () => {
    const { orgId, users } = await refusingWorkspace();
    const answer = await create(orgId, tokenFor(users.editor), { inputs: handles(1), max_credits: 5 }, { 'Max-Credits': '6' });
    expect(answer.body.message).toBe(
      "body.max_credits: is 5 but header.max-credits is 6: give the job's max_credits once, or the same value in both",
    );
  });

  it('makes the cap part of the job an Idempotency-Key names: the same cap replays it, another is 409', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const token = tokenFor(users.editor);
    const key = uniqueId('job-key-');
    const first = await create(orgId, token, { inputs: handles(2), max_credits: 1 }, { 'Idempotency-Key': key });
    const again = await create(orgId, token, { inputs: handles(2) }, { 'Idempotency-Key': key, 'Max-Credits': '1' });
    const other = await create(orgId, token, { inputs: handles(2), max_credits: 2 }, { 'Idempotency-Key': key });
    const uncapped = await create(orgId, token, { inputs: handles(2) }, { 'Idempotency-Key': key });
    await drainJobs();

    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect([other.status, other.body.code]).toEqual([409, 'idempotency_key_reused']);
    expect([uncapped.status, uncapped.body.code]).toEqual([409, 'idempotency_key_reused']);
  });
});

describe('max_credits through MCP start_job', () => {
  const startJob = (orgId: string, userId: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    call(mcpHandler, {
      method: 'POST',
      url: `/mcp?organization_id=${orgId}`,
      token: tokenFor(userId),
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'start_job', arguments: args, ...(meta ? { _meta: meta } : {}) },
      },
    });
  const refusalOf = (answer: { body: any }) => {
    expect(answer.body.result.isError).toBe(true);
    return withoutRequestId(JSON.parse(answer.body.result.content[0].text));
  };

  it('caps the job with _meta.max_credits, or the max_credits argument', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const fromMeta = await startJob(orgId, users.editor, { operation: OPERATION, inputs: handles(4) }, { max_credits: 2 });
    const fromArgument = await startJob(orgId, users.editor, { operation: OPERATION, inputs: handles(2), max_credits: 1 });
    await drainJobs();

    expect(fromMeta.body.result.structuredContent).toMatchObject({ total: 4, max_credits: 2 });
    expect(await getJob(fromMeta.body.result.structuredContent.id)).toMatchObject({ succeeded: 2, failed: 2, charged: 2 });
    expect(await getJob(fromArgument.body.result.structuredContent.id)).toMatchObject({ max_credits: 1, succeeded: 1, failed: 1 });
    expect((await getOrganization(orgId))?.credits).toBe(7);
  });

  it('refuses a bad or contradicting cap as a tool result with validation_failed, starting nothing', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const args = { operation: OPERATION, inputs: handles(1) };

    const badMeta = refusalOf(await startJob(orgId, users.editor, args, { max_credits: -1 }));
    const badArgument = refusalOf(await startJob(orgId, users.editor, { ...args, max_credits: 2.5 }));
    const differing = refusalOf(await startJob(orgId, users.editor, { ...args, max_credits: 2 }, { max_credits: 3 }));

    expect(badMeta).toMatchObject({ code: 'validation_failed', data: { issues: [{ path: ['_meta', 'max_credits'] }] } });
    expect(badArgument).toMatchObject({ code: 'validation_failed', data: { issues: [{ path: ['arguments', 'max_credits'] }] } });
    expect(differing).toMatchObject({
      code: 'validation_failed',
      message: "arguments.max_credits: is 2 but _meta.max_credits is 3: give the job's max_credits once, or the same value in both",
    });
    expect(jobsQueue().size).toBe(0);
  });
});
