/**
 * Bundled mode's jobs queue: each bundled function is a process of its own, so the job routes
 * cannot reach `npm start`'s embedded queue in memory. They get a JOBS_QUEUE_URL as deployed and
 * send with the SQS client, as deployed; the local server answers those calls here, speaking
 * SQS's JSON protocol (`SendMessageBatch`, `SendMessage`), and puts the messages in its embedded
 * queue, where the local worker receives them.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { JobMessage, Outgoing } from '../jobs/queue.ts';
import { embeddedQueue } from '../jobs/queue.ts';

/** The queue URL the bundled functions are given (any path: the SQS client posts to its origin). */
export const bridgeQueueUrl = (baseUrl: string): string => `${baseUrl}/local-sqs/jobs`;

/** Whether a request is an SQS API call (`X-Amz-Target: AmazonSQS.<action>`). */
export const isSqsCall = (target: string | string[] | undefined): boolean => typeof target === 'string' && target.startsWith('AmazonSQS.');

interface Entry {
  Id?: string;
  MessageBody?: string;
  MessageGroupId?: string;
  DelaySeconds?: number;
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/** Answers one SQS call: its status and JSON body. */
export async function answerSqsCall(target: string, body: string): Promise<{ status: number; body: unknown }> {
  const action = target.slice('AmazonSQS.'.length);
  const input = JSON.parse(body || '{}') as { Entries?: Entry[] } & Entry;
  const entries: Entry[] = action === 'SendMessageBatch' ? (input.Entries ?? []) : action === 'SendMessage' ? [{ ...input, Id: '0' }] : [];
  if (entries.length === 0)
    return { status: 400, body: { __type: 'com.amazonaws.sqs#InvalidAction', message: `${action} is not served here` } };
  const outgoing: Outgoing[] = entries.map((entry) => ({
    message: JSON.parse(entry.MessageBody ?? 'null') as JobMessage,
    groupId: entry.MessageGroupId ?? 'default',
    ...(entry.DelaySeconds ? { delaySeconds: entry.DelaySeconds } : {}),
  }));
  await embeddedQueue().send(outgoing);
  const sent = entries.map((entry) => ({ Id: entry.Id, MessageId: randomUUID(), MD5OfMessageBody: md5(entry.MessageBody ?? '') }));
  return { status: 200, body: action === 'SendMessageBatch' ? { Successful: sent, Failed: [] } : sent[0] };
}
