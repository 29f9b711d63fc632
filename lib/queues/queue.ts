/**
 * The queues work travels on, at least once: the jobs queue (a job's items) and the webhooks
 * queue (deliveries of signed events, lib/webhooks/). One interface, two implementations:
 *
 * - deployed (the queue's URL set: JOBS_QUEUE_URL, WEBHOOKS_QUEUE_URL): an SQS standard queue
 *   (lib/queues/sqs-queue.ts, which also picks the queue of a name: `queueAt`).
 *   Messages are sent 10 a request (SendMessageBatch) with `MessageGroupId` = the organization,
 *   which SQS fair queues use to keep one tenant's backlog from delaying the others' messages;
 *   each queue's event source mapping invokes a function of its own;
 * - locally (npm start, tests, benches): an in-process queue with SQS's semantics, which
 *   lib/local/embedded-queue.ts installs here (`useLocalQueues`; the tests install it lazily). It
 *   is never bundled: no function deployed carries it, and a deployed function without its
 *   queue's URL says so. This module imports nothing, so that installing costs nothing.
 *
 * Whatever the queue, the consumers make a delivery exactly-once in effect (lib/jobs/worker.ts)
 * or at-least-once by design with a stable id (lib/webhooks/delivery.ts).
 */

export type QueueName = 'jobs' | 'webhooks';

export interface Outgoing<M> {
  message: M;
  /** The fairness key: the organization. */
  groupId: string;
  /** Invisible this long after sending (at most 900 s on SQS). */
  delaySeconds?: number;
}

export interface Queue<M> {
  send(messages: readonly Outgoing<M>[]): Promise<void>;
}

/** What a consumer knows of one receive besides the message. */
export interface Receipt {
  /**
   * Epoch ms after which the message may be delivered again (its visibility timeout, or the
   * function's own end deployed): work on it must be over by then, or it runs twice at once.
   */
  deadlineMs: number;
}

/** How a consumer handles one message: true acknowledges it; false (or a throw) leaves it to be delivered again. */
export type MessageHandler<M> = (message: M, receipt: Receipt) => Promise<boolean>;

// ---------------------------------------------------------------- this process's own (npm start, tests)

let provider: ((name: QueueName) => Queue<unknown>) | undefined;

/** Makes `provide` where a queue without a URL is found (lib/local/embedded-queue.ts). */
export function useLocalQueues(provide: (name: QueueName) => Queue<unknown>): void {
  provider = provide;
}

/** This process's queue `name`, if it has its own. */
export const localQueue = (name: QueueName): Queue<unknown> | undefined => provider?.(name);
