/**
 * DynamoDB dies while paid runs are in flight (docs/charges.md): ten runs are charged and waiting
 * on the provider when this file's own DynamoDB Local is terminated; the provider then answers.
 * Whatever each run answers, once the database is back and the sweeper has run, the charges left
 * standing are exactly the results delivered (a 200), and every other answer is one of the
 * documented 500s. Before the money path confirmed its settle, 5 of 10 such runs delivered and
 * all 10 were refunded by the sweeper.
 *
 * One kill and one restart serve both cases (each DynamoDB Local start is a JVM's). This file
 * runs its own DynamoDB Local (on a data directory, so that a restart keeps the table)
 * rather than the suite's shared one, which it must not stop.
 *
 * In the long tier (`npm run test:long`, vitest.config.ts): it starts and terminates a DynamoDB Local of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ensureTable } from '../../lib/db/create-table.ts';
import { LOCAL_CREDENTIALS, type RunningDynamo, startDynamoDbLocal } from '../../lib/local/dynamodb-local.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'database-death-'));
let dynamo: RunningDynamo = await startDynamoDbLocal({ dataDir, compilers: 'quick' });
const port = dynamo.port;
// This file's service talks to its own DynamoDB Local (set before the service reads its config).
process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
const setupClient = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
await ensureTable(setupClient, String(process.env.TABLE_NAME), { stream: false });
setupClient.destroy();

const { handler } = await import('../../functions/run-social-operation.ts');
const { sampleProvider } = await import('../../lib/social/providers/sample.ts');
const { sweepPendingRuns } = await import('../../lib/billing/sweeper.ts');
const { getOrganization } = await import('../../lib/db/organizations.ts');
const { workspace } = await import('../support/fixtures.ts');
const { call } = await import('../support/http.ts');
const { tokenFor } = await import('../support/tokens.ts');
const { runUrl } = await import('../support/social.ts');
const { ledgerProblems, readLedger, standingCharges } = await import('../support/ledger.ts');

afterAll(async () => {
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const RUNS = 10;
const OPENING = 20;

/** The documented answers of a run whose result could not be delivered (lib/errors.ts). */
const UNDELIVERED = [
  'the request failed on the service side after its charge; the charge was refunded, retry with backoff',
  'the request failed on the service side after its charge; the refund of its charge is delayed, do not retry before your balance is back',
];

/** Terminates DynamoDB Local as an operator's kill would (SIGTERM: it keeps what it acknowledged). */
async function killDatabase(): Promise<void> {
  process.kill(dynamo.pid, 'SIGTERM');
  await dynamo.stop();
}

const restartDatabase = async () => {
  dynamo = await startDynamoDbLocal({ dataDir, port, compilers: 'quick' });
};

/** Provider calls wait for their gate: the calls for `handle`s starting with `late` wait for `answerLate()`, the others for `answer()`. */
function gatedProvider() {
  const original = sampleProvider.run.bind(sampleProvider);
  let answer: () => void = () => undefined;
  let answerLate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (answer = resolve));
  const lateGate = new Promise<void>((resolve) => (answerLate = resolve));
  const spy = vi.spyOn(sampleProvider, 'run').mockImplementation(async (request) => {
    await (String(request.input.handle).startsWith('late') ? lateGate : gate);
    return original(request);
  });
  return { spy, answer, answerLate };
}

/** Ten paid runs of a fresh organization, for handles with `prefix`. */
async function paidRuns(prefix: string) {
  const { orgId, users } = await workspace({ credits: OPENING });
  const answers = Array.from({ length: RUNS }, (_, i) =>
    call(handler, {
      method: 'POST',
      url: runUrl('tiktok_profile', orgId),
      token: tokenFor(users.editor),
      body: { handle: `${prefix}${i}` },
    }),
  );
  return { orgId, answers };
}

/** After the sweep: standing charges = delivered results, nothing pending, the balance what was delivered cost. */
async function expectChargesEqualDeliveries(orgId: string, answers: { status: number; body: { message?: string } }[]) {
  const delivered = answers.filter((answer) => answer.status === 200).length;
  for (const answer of answers.filter((each) => each.status !== 200)) {
    expect(answer.status).toBe(500);
    expect(UNDELIVERED).toContain(answer.body.message);
  }
  const ledger = await readLedger(orgId);
  expect(ledgerProblems(ledger, delivered)).toEqual([]);
  expect(ledger.pending.size).toBe(0);
  expect(standingCharges(ledger)).toHaveLength(delivered);
  expect((await getOrganization(orgId))?.credits).toBe(OPENING - delivered);
  return delivered;
}

describe('DynamoDB dies while paid runs are at the provider', () => {
  it('down past the settle: nothing delivered, all refunded; back at once: what is delivered is what stays charged', async () => {
    // Prepare: two organizations, ten runs each, all charged and waiting on the provider.
    const provider = gatedProvider();
    const early = await paidRuns('early');
    const late = await paidRuns('late');
    await vi.waitFor(() => expect(provider.spy).toHaveBeenCalledTimes(2 * RUNS), { timeout: 15_000 });

    // Act: the database dies. The first ten get their provider's answer and give up on their
    // settle while it is down; then the other ten get theirs, and the database is restarted at
    // once (how many of those settle depends on how fast it starts; the invariant may not).
    await killDatabase();
    provider.answer();
    const downAnswers = await Promise.all(early.answers);
    provider.answerLate();
    await restartDatabase();
    const backAnswers = await Promise.all(late.answers);
    provider.spy.mockRestore();
    await sweepPendingRuns({ now: new Date(Date.now() + 3_600_000) });

    // Assess
    expect(downAnswers.map((answer) => answer.status)).toEqual(Array(RUNS).fill(500));
    expect(await expectChargesEqualDeliveries(early.orgId, downAnswers)).toBe(0);
    await expectChargesEqualDeliveries(late.orgId, backAnswers);
  }, 60_000);
});
