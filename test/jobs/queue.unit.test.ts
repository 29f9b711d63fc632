/**
 * The embedded queue (lib/local/embedded-queue.ts), the one `npm start` and the tests run jobs and
 * webhooks on: SQS's at-least-once semantics (a message not acknowledged comes back after its
 * visibility timeout, a delayed one waits), fairness (receivers take the organizations in turn),
 * a bound per organization when a consumer asks for one, and each receive's deadline. No DynamoDB.
 */
import { describe, expect, it } from 'vitest';
import type { JobMessage } from '../../lib/jobs/queue.ts';
import { EmbeddedQueue } from '../../lib/local/embedded-queue.ts';

const item = (orgId: string, index: number): JobMessage => ({ kind: 'item', jobId: `job_${orgId}`, orgId, index });
const send = (queue: EmbeddedQueue<JobMessage>, orgId: string, count: number) =>
  queue.send(Array.from({ length: count }, (_, index) => ({ message: item(orgId, index), groupId: orgId })));

describe('the embedded queue', () => {
  it("takes the organizations in turn: a 30-message backlog does not hold back four others' 3 messages", async () => {
    // Prepare: one organization's big job first, then four small ones.
    const queue = new EmbeddedQueue<JobMessage>();
    await send(queue, 'big', 30);
    for (const org of ['a', 'b', 'c', 'd']) await send(queue, org, 3);
    const order: string[] = [];

    // Act: one receiver, one message at a time.
    const stop = queue.consume(
      async (message) => {
        order.push(message.orgId);
        return true;
      },
      { concurrency: 1, visibilityTimeoutMs: 1_000 },
    );
    await queue.drained();
    await stop();

    // Assess: the small jobs' 12 messages are all delivered within the first 16 (round-robin over 5 groups).
    expect(order).toHaveLength(42);
    expect(order.slice(0, 5).sort()).toEqual(['a', 'b', 'big', 'c', 'd']);
    const lastSmall = Math.max(...['a', 'b', 'c', 'd'].map((org) => order.lastIndexOf(org)));
    expect(lastSmall).toBeLessThan(15);
    expect(queue.stats).toMatchObject({ sent: 42, received: 42, acknowledged: 42, redelivered: 0 });
  });

  it('delivers a message again after its visibility timeout when it is not acknowledged (or its handler throws)', async () => {
    const queue = new EmbeddedQueue<JobMessage>();
    await send(queue, 'org', 2);
    const seen: number[] = [];
    const started = Date.now();
    const stop = queue.consume(
      async (message) => {
        if (message.kind !== 'item') return true;
        seen.push(message.index);
        const times = seen.filter((index) => index === message.index).length;
        if (message.index === 0 && times === 1) return false;
        if (message.index === 1 && times === 1) throw new Error('a worker that crashed');
        return true;
      },
      { concurrency: 2, visibilityTimeoutMs: 100 },
    );
    await queue.drained();
    await stop();

    expect(seen.sort()).toEqual([0, 0, 1, 1]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(queue.stats).toMatchObject({ sent: 2, received: 4, acknowledged: 2, redelivered: 2 });
  });

  it('keeps a delayed message invisible until its delay is over', async () => {
    const queue = new EmbeddedQueue<JobMessage>();
    const sentAt = Date.now();
    await queue.send([{ message: { kind: 'webhook', jobId: 'job_x', orgId: 'org', attempt: 2 }, groupId: 'org', delaySeconds: 0.15 }]);
    let receivedAt = 0;
    const waits: number[] = [];
    queue.onFirstReceive = (waitedMs) => waits.push(waitedMs);
    const stop = queue.consume(
      async () => {
        receivedAt = Date.now();
        return true;
      },
      { concurrency: 1, visibilityTimeoutMs: 1_000 },
    );
    await queue.drained();
    await stop();

    expect(receivedAt - sentAt).toBeGreaterThanOrEqual(150);
    // The wait is measured from the end of the delay: what the receive took beyond the 150 ms, not
    // the 150 ms (a bound on the delivery time would fail on a loaded machine: it once took 105 ms).
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(0);
    expect(waits[0]).toBeLessThanOrEqual(receivedAt - sentAt - 150 + 5);
  });

  it("holds at most `perGroup` messages of one organization at once: its slow messages leave the others' free slots", async () => {
    // Prepare: one organization's 10 slow messages first, then another's 2.
    const queue = new EmbeddedQueue<JobMessage>();
    await send(queue, 'slow', 10);
    await send(queue, 'other', 2);
    let slowAtOnce = 0;
    let mostSlowAtOnce = 0;
    const otherDoneAt: number[] = [];
    const release: (() => void)[] = [];
    const started = Date.now();

    // Act: 4 receivers, at most 2 of one organization; the slow ones wait to be released.
    const stop = queue.consume(
      async (message) => {
        if (message.orgId === 'other') {
          otherDoneAt.push(Date.now() - started);
          return true;
        }
        slowAtOnce += 1;
        mostSlowAtOnce = Math.max(mostSlowAtOnce, slowAtOnce);
        await new Promise<void>((resolve) => release.push(resolve));
        slowAtOnce -= 1;
        return true;
      },
      { concurrency: 4, visibilityTimeoutMs: 10_000, perGroup: 2 },
    );
    for (const give = Date.now() + 2_000; otherDoneAt.length < 2 && Date.now() < give; ) await new Promise((r) => setTimeout(r, 5));
    const slowHeldWhileOthersRan = slowAtOnce;
    for (let released = 0; released < 10; released += 1) {
      for (const give = Date.now() + 2_000; release.length === 0 && Date.now() < give; ) await new Promise((r) => setTimeout(r, 5));
      release.shift()?.();
    }
    await queue.drained();
    await stop();

    // Assess: the other organization's messages ran at once, beside 2 slow ones (never more).
    expect(otherDoneAt).toHaveLength(2);
    expect(Math.max(...otherDoneAt)).toBeLessThan(500);
    expect({ slowHeldWhileOthersRan, mostSlowAtOnce }).toEqual({ slowHeldWhileOthersRan: 2, mostSlowAtOnce: 2 });
    expect(queue.stats).toMatchObject({ sent: 12, received: 12, acknowledged: 12, redelivered: 0 });
  });

  it('tells the handler when its message becomes visible again: the receive time plus the visibility timeout', async () => {
    const queue = new EmbeddedQueue<JobMessage>();
    await send(queue, 'org', 1);
    let received = 0;
    let deadline = 0;
    const stop = queue.consume(
      async (_message, receipt) => {
        received = Date.now();
        deadline = receipt.deadlineMs;
        return true;
      },
      { concurrency: 1, visibilityTimeoutMs: 750 },
    );
    await queue.drained();
    await stop();

    expect(deadline - received).toBeGreaterThan(740);
    expect(deadline - received).toBeLessThanOrEqual(750);
  });
});
