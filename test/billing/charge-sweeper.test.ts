/**
 * Charges that cannot be lost (docs/charges.md): every charge leaves a pending record until its
 * run settles or is refunded, and the sweeper refunds what is left once the run can no longer
 * finish, exactly once, however many sweepers run. Failures are injected at the SDK; the table
 * is DynamoDB Local.
 */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/run-social-operation.ts';
import { SWEEP_MARGIN_MS, sweepPendingRuns } from '../../lib/billing/sweeper.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { memberSpendKey, orgSpendKey, spendMonth } from '../../lib/db/keys.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { listPendingRuns, type PendingRun } from '../../lib/db/pending-runs.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { startChargeSweeper } from '../../lib/local/charge-sweeper.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { UpstreamError } from '../../lib/social/providers/types.ts';
import { chargeDirectly } from '../support/charges.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { failCommands } from '../support/inject-failure.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const run = (orgId: string, user: string, headers: Record<string, string> = {}) =>
  call(handler, { method: 'POST', url: runUrl('tiktok_profile', orgId), token: tokenFor(user), body: { handle: 'nasa' }, headers });

const spent = async (key: { PK: string; SK: string }) =>
  Number((await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item?.spent ?? 0);

/** A charge whose run died: charged (with its pending record) and never settled, due `dueAgoMs` ago. */
async function lostCharge(orgId: string, userId: string, dueAgoMs = 1000): Promise<PendingRun> {
  return chargeDirectly({ orgId, userId, owner: `attempt-${uniqueId('')}`, sweepAfterMs: Date.now() - dueAgoMs });
}

const dueTime = (run: PendingRun) => new Date(run.sweepAfterMs + 1);

describe('pending runs', () => {
  it.each([
    // The balance read, the settle, and the result stored for later runs: one wave.
    ['without a key', undefined, ['GetItemCommand', 'DeleteItemCommand', 'PutItemCommand']],
    ['with a key', 'key', ['GetItemCommand', 'TransactWriteItemsCommand', 'PutItemCommand']],
  ])('%s: a paid run is pending while the provider works, and settling it takes one round trip after the provider answers', async (_case, withKey, afterProvider) => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 5 });
    const headers: Record<string, string> = withKey ? { 'Idempotency-Key': uniqueId('key-') } : {};
    const original = sampleProvider.run.bind(sampleProvider);
    let during: PendingRun[] = [];
    const counter = countRoundTrips(db());
    const spy = vi.spyOn(sampleProvider, 'run').mockImplementation(async (request) => {
      during = await listPendingRuns(orgId);
      counter.reset();
      return original(request);
    });
    const startedAt = Date.now();

    // Act
    let answer: Awaited<ReturnType<typeof run>>;
    try {
      answer = await run(orgId, users.editor, headers);
    } finally {
      spy.mockRestore();
      counter.stop();
    }

    // Assess
    expect(answer.status).toBe(200);
    const [charge] = (await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged');
    expect(during).toEqual([
      {
        orgId,
        userId: users.editor,
        operation: 'tiktok_profile',
        cost: 1,
        month: spendMonth(new Date()),
        // The day it counts in: its refund gives back that day's spend, however late it comes.
        day: new Date().toISOString().slice(0, 10),
        eventId: expect.stringMatching(/^evt_/),
        owner: expect.any(String),
        chargedAt: expect.any(String),
        // The handler's deadline (the local context gives 29 s) plus the margin.
        sweepAfterMs: expect.any(Number),
        // The request that charged, named by the refund event whoever refunds.
        requestId: expect.any(String),
        ...(withKey ? { idempotencyKey: expect.objectContaining({ SK: 'IDEM' }) } : {}),
      },
    ]);
    expect(charge).toBeDefined();
    expect(during[0]!.sweepAfterMs - startedAt).toBeGreaterThanOrEqual(29_000 + SWEEP_MARGIN_MS - 1000);
    expect(during[0]!.sweepAfterMs - Date.now()).toBeLessThanOrEqual(29_000 + SWEEP_MARGIN_MS);
    expect(counter.log).toEqual({ commands: afterProvider, sequential: 1 });
    expect(await listPendingRuns(orgId)).toEqual([]);
    expect((await sweepPendingRuns({ now: new Date(Date.now() + 3600_000) })).refunded).toBe(0);
  });

  it('a refunded run leaves nothing pending', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const spy = vi.spyOn(sampleProvider, 'run').mockRejectedValueOnce(new UpstreamError('upstream down'));
    try {
      expect((await run(orgId, users.editor)).status).toBe(500);
    } finally {
      spy.mockRestore();
    }
    expect(await listPendingRuns(orgId)).toEqual([]);
    expect((await getOrganization(orgId))!.credits).toBe(5);
  });
});

describe('the sweeper', () => {
  it.each([
    ['without a key', undefined],
    ['with a key', 'key'],
  ])('%s: a refund that could not be written is left pending, and the sweeper completes it once it is due, exactly once', async (_case, withKey) => {
    // Prepare: the provider fails, and so does the refund transaction (the second transaction).
    const { orgId, users } = await workspace({ credits: 5 });
    const headers: Record<string, string> = withKey ? { 'Idempotency-Key': uniqueId('key-') } : {};
    const spy = vi.spyOn(sampleProvider, 'run').mockRejectedValueOnce(new UpstreamError('upstream down'));
    let transactions = 0;
    const stop = failCommands((command) => command === 'TransactWriteItemsCommand' && ++transactions === 2);
    let answer: Awaited<ReturnType<typeof run>>;
    try {
      answer = await run(orgId, users.editor, headers);
    } finally {
      stop();
      spy.mockRestore();
    }
    expect(answer.status).toBe(500);
    expect(answer.body.message).toContain('the refund of its charge is delayed');
    const [pending] = await listPendingRuns(orgId);
    expect(pending).toBeDefined();
    if (withKey) {
      // Until the sweep, the key is held: a retry neither runs nor pays.
      const early = await run(orgId, users.editor, headers);
      expect(early.status).toBe(409);
      expect(withoutRequestId(early.body).message).toBe('a request with this Idempotency-Key is still in progress; retry shortly');
    }

    // Act: a sweep before the run is due, then sweeps after it.
    const early = await sweepPendingRuns();
    const due = await sweepPendingRuns({ now: dueTime(pending!) });
    const again = await sweepPendingRuns({ now: dueTime(pending!) });

    // Assess
    expect(early).toMatchObject({ refunded: 0, failed: 0 });
    expect(due).toEqual({ refunded: 1, gone: 0, failed: 0, deferred: 0, overdueSeconds: 0 });
    expect(again.refunded).toBe(0);
    expect((await getOrganization(orgId))!.credits).toBe(5);
    expect(await spent(orgSpendKey(orgId, pending!.month))).toBe(0);
    expect(await spent(memberSpendKey(orgId, users.editor, pending!.month))).toBe(0);
    expect(await listPendingRuns(orgId)).toEqual([]);
    const events = await eventsOf(orgId);
    expect(events.map((event) => [event.type, event.amount])).toEqual([
      ['credits.granted', 5],
      ['social_operation.charged', -1],
      ['social_operation.refunded', 1],
    ]);
    expect(events[2]!.description).toBe(
      `tiktok_profile run by ${users.editor}: the run never finished (refunded by the sweeper); charge ${pending!.eventId} refunded`,
    );
    if (withKey) {
      // The sweep released the key: the retry runs, and pays once.
      const retry = await run(orgId, users.editor, headers);
      expect(retry.status).toBe(200);
      expect(retry.headers['credits-charged']).toBe('1');
      expect((await getOrganization(orgId))!.credits).toBe(4);
    }
  });

  it('three sweepers at once refund each lost charge exactly once, across organizations', async () => {
    // Prepare: 8 lost charges in two organizations, and one not due yet.
    const a = await workspace({ credits: 10 });
    const b = await workspace({ credits: 10 });
    const lost = await Promise.all([
      ...Array.from({ length: 5 }, () => lostCharge(a.orgId, a.users.editor)),
      ...Array.from({ length: 3 }, () => lostCharge(b.orgId, b.users.owner)),
    ]);
    const notDue = await lostCharge(a.orgId, a.users.editor, -86_400_000);

    // Act
    const sweeps = await Promise.all([sweepPendingRuns(), sweepPendingRuns(), sweepPendingRuns()]);

    // Assess
    expect(sweeps.reduce((sum, sweep) => sum + sweep.refunded, 0)).toBe(8);
    expect(sweeps.every((sweep) => sweep.failed === 0)).toBe(true);
    expect((await getOrganization(a.orgId))!.credits).toBe(9);
    expect((await getOrganization(b.orgId))!.credits).toBe(10);
    const refunds = [...(await eventsOf(a.orgId)), ...(await eventsOf(b.orgId))].filter(
      (event) => event.type === 'social_operation.refunded',
    );
    expect(refunds.map((event) => /charge (evt_\S+) refunded/.exec(event.description)?.[1]).sort()).toEqual(
      lost.map((charge) => charge.eventId).sort(),
    );
    expect((await listPendingRuns(a.orgId)).map((run) => run.eventId)).toEqual([notDue.eventId]);
    expect(await listPendingRuns(b.orgId)).toEqual([]);
  });

  it('a sweep out of time defers the rest and reports how long they are overdue', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const lost = await lostCharge(orgId, users.editor, 90_000);

    const cutShort = await sweepPendingRuns({ stopByMs: 0 });

    expect(cutShort).toMatchObject({ refunded: 0, deferred: 1, failed: 0 });
    expect(cutShort.overdueSeconds).toBeGreaterThanOrEqual(90);
    expect((await sweepPendingRuns()).refunded).toBe(1);
    expect(await listPendingRuns(orgId)).toEqual([]);
    expect((await eventsOf(orgId)).filter((event) => event.description.includes(lost.eventId)).map((event) => event.type)).toEqual([
      'social_operation.refunded',
    ]);
  });

  it('the scheduled function answers {refunded}, and fails (for its error alarm) when a refund cannot be written', async () => {
    const { handler: sweep } = await import('../../functions/sweep-charges.ts');
    const { orgId, users } = await workspace({ credits: 10 });
    const context = { getRemainingTimeInMillis: () => 50_000 } as Parameters<typeof sweep>[1];
    await lostCharge(orgId, users.editor);

    const stop = failCommands((command) => command === 'TransactWriteItemsCommand');
    let failing: unknown;
    try {
      failing = await sweep({}, context).catch((error: unknown) => error);
    } finally {
      stop();
    }
    const working = await sweep({}, context);

    expect(failing).toEqual(new Error('refunds failed: 1 (refunded 0); the next sweep tries again'));
    expect(working).toEqual({ refunded: 1 });
    expect((await getOrganization(orgId))!.credits).toBe(10);
  });

  it("npm start's interval sweeper sweeps at once and then on its period, until stopped", async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    await lostCharge(orgId, users.editor);
    const lines: string[] = [];

    const stop = startChargeSweeper(3600, (line) => lines.push(line));
    try {
      await vi.waitFor(() => expect(lines).toEqual(['charge sweeper: refunded 1, failed 0']), { timeout: 5000 });
    } finally {
      stop();
    }

    expect((await getOrganization(orgId))!.credits).toBe(10);
  });
});
