/**
 * Jobs in tests: running the embedded queue dry, and a job creation killed part way (its function
 * stopped by a timeout or a crash). A kill is a step that never returns: nothing after it runs, so
 * the creation's own catch, which cancels a job it could not queue, never runs either, exactly
 * as when Lambda stops the function. Nothing of the service is mocked: the queue's send and
 * DynamoDB's BatchWriteItem simply never answer.
 */
import { expect, vi } from 'vitest';
import { handleDeliveryMessage } from '../../lib/alerts/sources.ts';
import { db } from '../../lib/db/client.ts';
import { listActiveJobs } from '../../lib/db/jobs.ts';
import type { JobMessage, Outgoing } from '../../lib/jobs/queue.ts';
import { handleJobMessage } from '../../lib/jobs/worker.ts';
import { embeddedQueue } from '../../lib/local/embedded-queue.ts';
import { startJobWorker } from '../../lib/local/job-worker.ts';
import { startWebhookDelivery } from '../../lib/local/webhook-delivery.ts';
import type { DeliveryMessage } from '../../lib/webhooks/delivery.ts';

/** This process's embedded queues (test/support/setup-env.ts installs them as the service's). */
export const jobsQueue = () => embeddedQueue<JobMessage>('jobs');
export const webhooksQueue = () => embeddedQueue<DeliveryMessage>('webhooks');

/**
 * Runs the embedded queues' messages until both are empty: job items (4 at a time; a message
 * delivered again after `visibilityTimeoutMs`, 200 ms), then the webhooks their ends queued (4 at
 * a time, retries `webhookBackoffMs` apart, 20 ms; each attempt ends before its message's
 * `webhookVisibilityTimeoutMs`, 10 s, less the writes' reserve).
 */
export async function drainJobs({
  webhookBackoffMs = 20,
  visibilityTimeoutMs = 200,
  webhookVisibilityTimeoutMs = 10_000,
} = {}): Promise<void> {
  const stopJobs = jobsQueue().consume((message) => handleJobMessage(message), { concurrency: 4, visibilityTimeoutMs });
  const stopWebhooks = webhooksQueue().consume(
    (message, receipt) => handleDeliveryMessage(message, receipt, { backoffMs: webhookBackoffMs }),
    { concurrency: 4, visibilityTimeoutMs: webhookVisibilityTimeoutMs },
  );
  try {
    // A job's end queues its webhook before its item's message is acknowledged: once the jobs
    // queue is dry, every webhook is on the other.
    await jobsQueue().drained();
    await webhooksQueue().drained();
  } finally {
    await Promise.all([stopJobs(), stopWebhooks()]);
  }
}

/**
 * The next send to the embedded queue (a creation's) puts its first `sent` messages on the queue,
 * then never returns: the creating function killed mid-send. `resume` lets it go on instead, late
 * (the rest of its messages, then what the creation does after), as a creation that was only slow.
 */
export function killNextSendAfter(sent: number): { reached: Promise<void>; resume: () => void } {
  const queue = jobsQueue();
  const original = queue.send.bind(queue);
  let hit: () => void = () => undefined;
  let resume: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (hit = resolve));
  const gate = new Promise<void>((resolve) => (resume = resolve));
  vi.spyOn(queue, 'send').mockImplementationOnce(async (messages: readonly Outgoing[]) => {
    await original(messages.slice(0, sent));
    hit();
    await gate;
    await original(messages.slice(sent));
  });
  return { reached, resume };
}

/**
 * The service's BatchWriteItem requests after the first `batches` are never answered (and never
 * sent): a creation killed while writing its items. Outermost on the client, so that no call
 * budget cuts the wait. `remove` ends it for later requests; the ones held stay held.
 */
export function killItemWritesAfter(batches: number): { reached: Promise<void>; remove: () => void } {
  const name = `kill-item-writes-${Math.random()}`;
  let seen = 0;
  let hit: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (hit = resolve));
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'BatchWriteItemCommand') return next(args);
      seen += 1;
      if (seen <= batches) return next(args);
      hit();
      return new Promise<never>(() => {});
    },
    { step: 'initialize', priority: 'high', name },
  );
  return { reached, remove: () => db().middlewareStack.remove(name) };
}

/** The id of the one job of `orgId` that is active and not in `known`. */
export async function activeJobOf(orgId: string, known: readonly string[] = []): Promise<string> {
  const found = (await listActiveJobs()).filter((active) => active.orgId === orgId && !known.includes(active.jobId));
  expect(found).toHaveLength(1);
  return found[0]?.jobId ?? '';
}

/** `npm start`'s consumers of the embedded queues, with its defaults; returns what stops them. */
export function startLocalWorkers(): () => Promise<void> {
  const stops = [startJobWorker(), startWebhookDelivery()];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
