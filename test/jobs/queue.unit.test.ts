/**
 * The embedded queue (lib/jobs/queue.ts), the one `npm start` and the tests run jobs on: SQS's
 * at-least-once semantics (a message not acknowledged comes back after its visibility timeout, a
 * delayed one waits) and fairness (receivers take the organizations in turn). No DynamoDB.
 */
import { describe, expect, it } from 'vitest';
import { EmbeddedQueue, type JobMessage } from '../../lib/jobs/queue.ts';

const item = (orgId: string, index: number): JobMessage => ({ kind: 'item', jobId: `job_${orgId}`, orgId, index });
const send = (queue: EmbeddedQueue, orgId: string, count: number) =>
  queue.send(Array.from({ length: count }, (_, index) => ({ message: item(orgId, index), groupId: orgId })));

describe('the embedded queue', () => {
  it("takes the organizations in turn: a 30-message backlog does not hold back four others' 3 messages", async () => {
    // Prepare: one organization's big job first, then four small ones.
    const queue = new EmbeddedQueue();
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
    const queue = new EmbeddedQueue();
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
    const queue = new EmbeddedQueue();
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
      { concurrency: 1 },
    );
    await queue.drained();
    await stop();

    expect(receivedAt - sentAt).toBeGreaterThanOrEqual(150);
    // The wait is measured from the end of the delay.
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeLessThan(100);
  });
});
