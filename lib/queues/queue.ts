/**
 * The queues work travels on, at least once: the jobs queue (a job's items) and the webhooks
 * queue (deliveries of signed events, lib/webhooks/). One interface, two implementations:
 *
 * - deployed (the queue's URL set: JOBS_QUEUE_URL, WEBHOOKS_QUEUE_URL): an SQS standard queue.
 *   Messages are sent 10 a request (SendMessageBatch) with `MessageGroupId` = the organization,
 *   which SQS fair queues use to keep one tenant's backlog from delaying the others' messages;
 *   each queue's event source mapping invokes a function of its own;
 * - locally (npm start, tests, benches): an in-process queue with SQS's semantics, which
 *   lib/local/embedded-queue.ts installs (lib/queues/local.ts). It is never bundled: no
 *   function deployed carries it, and a deployed function without its queue's URL says so.
 *
 * Whatever the queue, the consumers make a delivery exactly-once in effect (lib/jobs/worker.ts)
 * or at-least-once by design with a stable id (lib/webhooks/delivery.ts).
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.ts';
import { localQueue } from './local.ts';

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

// ---------------------------------------------------------------- SQS (deployed)

let sqs: SQSClient | undefined;

class SqsQueue<M> implements Queue<M> {
  constructor(private readonly url: string) {}

  async send(messages: readonly Outgoing<M>[]): Promise<void> {
    sqs ??= new SQSClient({ region: config().region });
    const client = sqs;
    const batches: Outgoing<M>[][] = [];
    for (let start = 0; start < messages.length; start += 10) batches.push(messages.slice(start, start + 10));
    let next = 0;
    const sender = async () => {
      for (let batch = batches[next++]; batch; batch = batches[next++]) {
        let entries = batch.map((outgoing, i) => ({
          Id: String(i),
          MessageBody: JSON.stringify(outgoing.message),
          MessageGroupId: outgoing.groupId,
          ...(outgoing.delaySeconds ? { DelaySeconds: Math.min(900, Math.ceil(outgoing.delaySeconds)) } : {}),
        }));
        // An entry SQS failed (throttled, internal) is sent again; a sender fault is not retried.
        for (let attempt = 0; entries.length > 0; attempt += 1) {
          if (attempt >= 5) throw new Error(`SendMessageBatch left ${entries.length} messages unsent after ${attempt} attempts`);
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
          const result = await client.send(new SendMessageBatchCommand({ QueueUrl: this.url, Entries: entries }));
          const failed = result.Failed ?? [];
          const fatal = failed.find((entry) => entry.SenderFault);
          if (fatal) throw new Error(`SendMessageBatch refused a message: ${fatal.Code} ${fatal.Message ?? ''}`);
          const retry = new Set(failed.map((entry) => entry.Id));
          entries = entries.filter((entry) => retry.has(entry.Id));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(10, batches.length) }, sender));
  }
}

/** The queue `name`: SQS at `url` when set, else this process's own (lib/queues/local.ts). */
export function queueAt<M>(name: QueueName, url: string | undefined): Queue<M> {
  if (url) return new SqsQueue<M>(url);
  const local = localQueue(name);
  if (!local) {
    throw new Error(
      `no ${name} queue: deployed, its URL is in the function's environment (${name === 'jobs' ? 'JOBS_QUEUE_URL' : 'WEBHOOKS_QUEUE_URL'}); locally, lib/local/embedded-queue.ts provides it`,
    );
  }
  return local as Queue<M>;
}
