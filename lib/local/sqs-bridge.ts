/**
 * The local server's SQS endpoint, for processes other than `npm start`'s own that send to its
 * queues: each bundled function (a process of its own, bundled mode) and the admin CLI (`admin
 * jobs recover`, `requeue`). They get queue URLs as deployed and send SendMessageBatch (lib/queues/sqs-queue.ts), as
 * deployed; the local server answers those calls here, speaking SQS's JSON protocol
 * (`SendMessageBatch`, `SendMessage`), and puts the messages in the embedded queue the URL names,
 * where the local consumers receive them.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Outgoing, QueueName } from '../queues/queue.ts';
import { embeddedQueue } from './embedded-queue.ts';

const QUEUES: readonly QueueName[] = ['jobs', 'webhooks'];

/** The URL of the local queue `name` (SendMessageBatch goes to its origin; the path names the queue). */
export const bridgeQueueUrl = (baseUrl: string, name: QueueName = 'jobs'): string => `${baseUrl}/local-sqs/${name}`;

/** Whether a request is an SQS API call (`X-Amz-Target: AmazonSQS.<action>`). */
export const isSqsCall = (target: string | string[] | undefined): boolean => typeof target === 'string' && target.startsWith('AmazonSQS.');

interface Entry {
  Id?: string;
  MessageBody?: string;
  MessageGroupId?: string;
  DelaySeconds?: number;
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

const queueNamed = (queueUrl: string | undefined): QueueName | undefined => {
  const name = /\/local-sqs\/([a-z]+)$/.exec(queueUrl ?? '')?.[1];
  return QUEUES.find((queue) => queue === name);
};

/** Answers one SQS call: its status and JSON body. */
export async function answerSqsCall(target: string, body: string): Promise<{ status: number; body: unknown }> {
  const action = target.slice('AmazonSQS.'.length);
  const input = JSON.parse(body || '{}') as { QueueUrl?: string; Entries?: Entry[] } & Entry;
  const entries: Entry[] = action === 'SendMessageBatch' ? (input.Entries ?? []) : action === 'SendMessage' ? [{ ...input, Id: '0' }] : [];
  if (entries.length === 0)
    return { status: 400, body: { __type: 'com.amazonaws.sqs#InvalidAction', message: `${action} is not served here` } };
  const queue = queueNamed(input.QueueUrl);
  if (!queue)
    return { status: 400, body: { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: `no local queue at ${input.QueueUrl}` } };
  const outgoing: Outgoing<unknown>[] = entries.map((entry) => ({
    message: JSON.parse(entry.MessageBody ?? 'null') as unknown,
    groupId: entry.MessageGroupId ?? 'default',
    ...(entry.DelaySeconds ? { delaySeconds: entry.DelaySeconds } : {}),
  }));
  await embeddedQueue(queue).send(outgoing);
  const sent = entries.map((entry) => ({ Id: entry.Id, MessageId: randomUUID(), MD5OfMessageBody: md5(entry.MessageBody ?? '') }));
  return { status: 200, body: action === 'SendMessageBatch' ? { Successful: sent, Failed: [] } : sent[0] };
}
