/**
 * The deployed queues (lib/queues/queue.ts): SQS standard queues, messages sent 10 a request
 * (SendMessageBatch) with `MessageGroupId` = the organization. `queueAt` is the queue of a name in
 * this process: SQS at its URL, or, without one, this process's own (npm start, the tests).
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../config.ts';
import { localQueue, type Outgoing, type Queue, type QueueName } from './queue.ts';

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

/** The queue `name`: SQS at `url` when set, else this process's own. */
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
