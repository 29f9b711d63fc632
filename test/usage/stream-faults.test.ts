/**
 * Usage under the faults the table stream meets: a poison record, the aggregator stopped while
 * runs go on, the aggregator killed (SIGKILL, a real child process) in the middle of a batch and
 * started again, and many members and keys running at once. Each time, usage equals what the
 * billing events say, exactly: nothing counted twice, nothing lost.
 *
 * In the long tier (`npm run test:long`, vitest.config.ts): it SIGKILLs the aggregator, a process of its own, and waits out retries.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { refundRun, settleRun } from '../../lib/billing/paid-run.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { billingEventKey } from '../../lib/db/keys.ts';
import { addMembership } from '../../lib/db/memberships.ts';
import { memoryCheckpoints } from '../../lib/local/stream-poller.ts';
import { forEachIndex } from '../../scripts/bench/pool.ts';
import { chargeDirectly } from '../support/charges.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { runUrl } from '../support/social.ts';
import { spawnTableStreamChild, startTableStream, turnOnTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';
import { entriesOf, sumOf, totalsFromEvents, totalsFromUsage } from '../support/usage.ts';

const DAY_MS = 86_400_000;
/** Today and yesterday (a run near midnight lands in either). */
const window = () => {
  const toMs = (Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS;
  return { fromMs: toMs - 2 * DAY_MS, toMs };
};
const settleNow = () => ({ untilMs: Date.now() + 5_000, nowMs: Date.now() });

async function expectUsageEqualsEvents(orgId: string, owner: string) {
  const { fromMs, toMs } = window();
  const [usage, events] = await Promise.all([
    totalsFromUsage(orgId, owner, fromMs, toMs, 'hour'),
    totalsFromEvents(orgId, fromMs, toMs, 'hour'),
  ]);
  expect(entriesOf(usage)).toEqual(entriesOf(events));
  return sumOf(events);
}

// The killed aggregator below reads the stream from a child process: the table's stream is on
// before anything is written.
await turnOnTableStream();

describe('a poison record', () => {
  it('goes to the on-failure destination alone, after its retries, and the records around it are counted', async () => {
    // Prepare
    const stream = await startTableStream({ maxRetryAttempts: 2 });
    try {
      const { orgId, users } = await workspace({ credits: 100 });
      await settleRun(await chargeDirectly({ orgId, userId: users.editor, cost: 2 }), undefined, settleNow());
      // A charge event the aggregator cannot read (its amount is not a number): written as no
      // code of the service would, in the organization's partition, between two good ones.
      const createdAt = new Date().toISOString();
      const poisonId = `evt_${uniqueId('poison')}`;
      await db().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...billingEventKey(orgId, createdAt, poisonId),
            entity: 'billing_event',
            id: poisonId,
            type: 'social_operation.charged',
            created_at: createdAt,
            amount: 'three',
            metadata: { operation: 'x_profile', user_id: users.editor },
          },
        }),
      );
      const after = await chargeDirectly({ orgId, userId: users.owner, cost: 5 });
      await refundRun(after, 'test');

      // Act
      await stream.catchUp();

      // Assess: the poison record alone was given up on (bisected down to it), described as Lambda does.
      expect(stream.failures).toEqual([
        {
          requestContext: {
            requestId: expect.any(String),
            functionArn: 'arn:aws:lambda:local:000000000000:function:table-stream',
            condition: 'RetryAttemptsExhausted',
            approximateInvokeCount: 3,
          },
          responseContext: { statusCode: 200, executedVersion: '$LATEST' },
          version: '1.0',
          timestamp: expect.any(String),
          DDBStreamBatchInfo: {
            shardId: expect.stringMatching(/^shardId-/),
            startSequenceNumber: expect.stringMatching(/^\d+$/),
            endSequenceNumber: stream.failures[0]?.DDBStreamBatchInfo.startSequenceNumber,
            approximateArrivalOfFirstRecord: expect.any(String),
            approximateArrivalOfLastRecord: expect.any(String),
            batchSize: 1,
            streamArn: expect.stringContaining(`table/${tableName()}/stream/`),
          },
        },
      ]);
      // Counted: the charge before it, the charge and the refund after it; not the poison.
      const { fromMs, toMs } = window();
      const usage = await totalsFromUsage(orgId, users.owner, fromMs, toMs, 'hour');
      expect(sumOf(usage)).toEqual({ runs: 2, charged: 7, refunded: 5 });
    } finally {
      await stream.stop();
    }
  }, 60_000);
});

describe('the aggregator stopped', () => {
  it('leaves runs answering as before, and usage catches up exactly once it starts again', async () => {
    const checkpoints = memoryCheckpoints();
    const first = await startTableStream({ checkpoints });
    const { orgId, users } = await workspace({ credits: 100 });
    const run = () =>
      call(runOperation, { method: 'POST', url: runUrl('x_profile', orgId), token: tokenFor(users.editor), body: { handle: 'nasa' } });
    expect((await run()).status).toBe(200);
    await first.catchUp();
    await first.stop();

    // Runs while nothing reads the stream: answered, charged, as ever.
    const answers = await Promise.all(Array.from({ length: 6 }, run));
    expect(answers.map((answer) => [answer.status, answer.headers['credits-charged']])).toEqual(Array(6).fill([200, '1']));
    const { fromMs, toMs } = window();
    expect(sumOf(await totalsFromUsage(orgId, users.owner, fromMs, toMs, 'hour'))).toEqual({ runs: 1, charged: 1, refunded: 0 });

    const second = await startTableStream({ checkpoints });
    try {
      await second.catchUp();
      expect(await expectUsageEqualsEvents(orgId, users.owner)).toEqual({ runs: 7, charged: 7, refunded: 0 });
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('counts each event once when the whole stream is read again from its oldest record', async () => {
    const stream = await startTableStream();
    const { orgId, users } = await workspace({ credits: 100 });
    await settleRun(await chargeDirectly({ orgId, userId: users.editor, cost: 3 }), undefined, settleNow());
    await stream.catchUp();
    await stream.stop();

    // No checkpoint: every record of the stream is delivered again, each event's marker is found.
    const again = await startTableStream();
    try {
      await again.catchUp();
      expect(await expectUsageEqualsEvents(orgId, users.owner)).toEqual({ runs: 1, charged: 3, refunded: 0 });
    } finally {
      await again.stop();
    }
  }, 60_000);
});

describe('the aggregator killed in the middle of a batch (SIGKILL), then started again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'table-stream-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const startChild = () => spawnTableStreamChild(dir, { COMMIT_PAUSE_MS: '150', LOG_LEVEL: 'INFO' });
  const until = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 80_000) => {
    const giveUpAt = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const exited = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));

  it('counts every event exactly once: what the killed batch committed is found by its markers, the rest counted', async () => {
    // Prepare: 120 charges of 25 members (every 10th refunded), more than one batch, each batch
    // more than one transaction.
    const { orgId, users } = await workspace({ credits: 10_000 });
    const members = Array.from({ length: 25 }, (_, i) => `member_${i}_${uniqueId('')}`);
    await Promise.all(members.map((member) => addMembership({ orgId, userId: member, role: 'editor' })));
    await forEachIndex(120, 6, async (i) => {
      const run = await chargeDirectly({ orgId, userId: members[i % members.length] ?? '', cost: 1 + (i % 3), operation: 'x_profile' });
      if (i % 10 === 0) await refundRun(run, 'test');
    });
    const { fromMs, toMs } = window();
    const expected = sumOf(await totalsFromEvents(orgId, fromMs, toMs, 'hour'));

    // Act: killed right after the first transaction of the first batch committed.
    const first = startChild();
    await until(() => first.output().includes('committed'), 'a first commit');
    first.child.kill('SIGKILL');
    await exited(first.child);
    const partial = sumOf(await totalsFromUsage(orgId, users.owner, fromMs, toMs, 'hour'));
    expect(partial.runs).toBeGreaterThan(0);
    expect(partial.runs).toBeLessThan(expected.runs);

    const second = startChild();
    try {
      // The whole stream is read again (no batch finished before the kill, so no checkpoint).
      await until(
        async () => sumOf(await totalsFromUsage(orgId, users.owner, fromMs, toMs, 'hour')).runs === expected.runs,
        'usage to catch up',
      );
      // A moment more: anything still in flight would show as a double count.
      await new Promise((resolve) => setTimeout(resolve, 500));

      // Assess
      expect(await expectUsageEqualsEvents(orgId, users.owner)).toEqual(expected);
      const counted = second
        .output()
        .split('\n')
        .filter((line) => line.includes('"usage counted"'))
        .map((line) => JSON.parse(line) as { duplicates: number; counted: number });
      // The events the killed batch had committed came again and were found counted (with those of
      // the file's earlier tests: no checkpoint was written, so the stream is read from its start).
      expect(counted.reduce((sum, line) => sum + line.duplicates, 0)).toBeGreaterThanOrEqual(partial.runs);
      expect(readFileSync(join(dir, 'checkpoint.json'), 'utf8')).toContain('shardId-');
    } finally {
      second.child.kill('SIGKILL');
      await exited(second.child);
    }
  }, 120_000);
});

describe('20 members and 5 API keys running at once', () => {
  it('gives usage equal to the billing events, per payer and per hour', async () => {
    const stream = await startTableStream();
    try {
      const { orgId, users } = await workspace({ credits: 10_000 });
      const members = Array.from({ length: 20 }, (_, i) => `runner_${i}_${uniqueId('')}`);
      for (const member of members) await addMembership({ orgId, userId: member, role: 'editor' });
      const keys = await Promise.all(
        Array.from({ length: 5 }, async (_, i) => {
          const created = await call(createKey, {
            method: 'POST',
            url: `/organizations/${orgId}/api-keys`,
            token: tokenFor(users.owner),
            body: { name: `agent ${i}`, role: 'editor' },
          });
          expect(created.status).toBe(201);
          return created.body.token as string;
        }),
      );
      const tokens = [...members.map((member) => tokenFor(member)), ...keys];

      const answers = await Promise.all(
        tokens.flatMap((token) =>
          ['x_profile', 'tiktok_profile'].map((operation) =>
            call(runOperation, { method: 'POST', url: runUrl(operation, orgId), token, body: { handle: 'nasa' } }),
          ),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
      await stream.catchUp();

      expect(await expectUsageEqualsEvents(orgId, users.owner)).toEqual({ runs: 50, charged: 50, refunded: 0 });
    } finally {
      await stream.stop();
    }
  }, 60_000);
});
