/**
 * Alerts when the stream consumer is killed (SIGKILL, a real child process, as `npm start` runs
 * it: test/support/table-stream-child.ts) in the middle of a batch, twice: once right after it
 * stored an event and before it published it, once right after it wrote a delivery and before it
 * queued it. The third process reads the same records again (no batch finished, no checkpoint)
 * and delivers: each crossing is still exactly one event, delivered once.
 *
 * In the long tier (`npm run test:long`, vitest.config.ts): it SIGKILLs the stream consumer, a process of its own, twice.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handler as createWebhook } from '../../functions/create-webhook.ts';
import { handler as listDeliveries } from '../../functions/list-webhook-deliveries.ts';
import { handler as putSettings } from '../../functions/put-alert-settings.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { runUrl } from '../support/social.ts';
import { spawnTableStreamChild, turnOnTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';
import { receiver } from './receivers.ts';

// The consumer reads the stream from child processes: it is on before anything is written.
await turnOnTableStream();

const dir = mkdtempSync(join(tmpdir(), 'alerts-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const startConsumer = (env: Record<string, string>) => spawnTableStreamChild(dir, { COMMIT_PAUSE_MS: '300', ...env });

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('the stream consumer killed in the middle of a batch (SIGKILL)', () => {
  it('sends each crossing once: killed after storing an event, then after writing a delivery, then run to the end', async () => {
    // Prepare: 10 runs of 1 credit, written before any consumer runs: the balance falls below 15
    // at the 6th, the monthly spend reaches 50 % of 10 at the 5th and 100 % at the 10th.
    const { orgId, users } = await workspace({ credits: 20, spendingLimit: 10 });
    const owner = tokenFor(users.owner);
    await call(putSettings, {
      method: 'PUT',
      url: `/organizations/${orgId}/alerts`,
      token: owner,
      body: { low_balance: 15, thresholds: [50, 100] },
    });
    const hook = await receiver();
    const endpoint = await call(createWebhook, {
      method: 'POST',
      url: `/organizations/${orgId}/webhooks`,
      token: owner,
      body: { url: hook.url, events: ['*'] },
    });
    for (let i = 0; i < 10; i += 1) {
      const ran = await call(runOperation, {
        method: 'POST',
        url: runUrl('x_profile', orgId),
        token: tokenFor(users.editor),
        body: { handle: 'nasa' },
      });
      expect(ran.status).toBe(200);
    }

    // Act: killed right after the first event is stored (before it is published) ...
    const first = startConsumer({ ANNOUNCE_WRITES_TO: 'ALERT_EVENT#' });
    await until(() => first.output().includes('wrote ALERT_EVENT#'), 'an event stored');
    await kill(first.child);
    // ... then right after the first delivery is written (before its attempt is queued) ...
    const second = startConsumer({ ANNOUNCE_WRITES_TO: `WEBHOOK#${endpoint.body.id}` });
    await until(() => second.output().includes('wrote WEBHOOK#'), 'a delivery written');
    await kill(second.child);
    // ... then run until every event has arrived, and a moment more (a second copy would show).
    const third = startConsumer({ WEBHOOK_DELIVERY: '1' });
    try {
      await until(() => hook.received.length >= 3, 'three events delivered');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      await kill(third.child);
    }
    const log = await call(listDeliveries, { url: `/organizations/${orgId}/webhooks/${endpoint.body.id}/deliveries`, token: owner });

    // Assess: the three crossings, each one event delivered once, in whatever order.
    const events = hook.events();
    expect(events.map((event) => [event.type, event.data.threshold ?? event.data.low_balance]).sort()).toEqual([
      ['credits.balance_low', 15],
      ['spending_limit.threshold_reached', 100],
      ['spending_limit.threshold_reached', 50],
    ]);
    expect(events.find((event) => event.type === 'credits.balance_low').data).toEqual({ balance: 14, low_balance: 15 });
    expect(
      events
        .filter((event) => event.type !== 'credits.balance_low')
        .map((event) => event.data.spent)
        .sort(),
    ).toEqual([10, 5]);
    expect(new Set(hook.received.map((delivery) => delivery.headers['webhook-id'])).size).toBe(3);
    expect(log.body.deliveries).toHaveLength(3);
    for (const delivery of log.body.deliveries) expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200 });
  }, 120_000);
});
