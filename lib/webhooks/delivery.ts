/**
 * Webhook deliveries: one event to one receiver, signed (Standard Webhooks), at least once, with
 * the event's id as `webhook-id` on every attempt so that a receiver drops duplicates. Whatever
 * produced the event (a job's end, lib/jobs/job-ended.ts; an owners' notification endpoint's
 * event, lib/alerts/endpoints.ts) is a `DeliverySource`: it says what an attempt sends (URL,
 * secret, body) and records each outcome. Which source a message belongs to is lib/alerts/sources.ts's.
 *
 * Deliveries travel on a queue of their own, the webhooks queue (deployed: an SQS queue whose
 * function does nothing else; locally: an embedded queue with its own consumer, at most
 * WEBHOOK_DELIVERIES_PER_ORGANIZATION attempts of one organization at once). So a slow receiver
 * never holds a worker that runs job items, and slow receivers of some organizations never hold
 * the others' deliveries (docs/jobs.md, "Webhooks"; docs/scaling.md).
 *
 * Each attempt is one message: a failed one queues the next after an exponential backoff
 * (JOBS_WEBHOOK_BACKOFF_MS doubling), up to WEBHOOK_ATTEMPTS in all, then the delivery is
 * `failed`. An attempt ends by the smaller of JOBS_WEBHOOK_TIMEOUT_MS and its message's own
 * deadline (less time for the writes after it), so it never outlives its message: no second
 * copy of it can start while it runs.
 */
import { webhooksConfig } from '../config.ts';
import { logger } from '../log.ts';
import { recordWebhookDeliveryFailed } from '../observability/metrics.ts';
import { queueAt } from '../queues/sqs-queue.ts';
import { attemptWebhook } from './attempt.ts';

/** Attempts in all: the first, then up to 5 retries after 1, 2, 4, 8 and 16 backoffs (30 s to 8 min by default). */
export const WEBHOOK_ATTEMPTS = 6;

/** Who holds a delivery's event and receiver, and where its outcome is recorded. */
export type DeliverySubject =
  | { type: 'job'; jobId: string }
  // An owner's notification endpoint: the delivery's item is found by its endpoint and its event's time.
  | { type: 'endpoint'; webhookId: string; createdAt: string };

/** Attempt `attempt` of delivering event `eventId` (one message on the webhooks queue). */
export interface DeliveryMessage {
  kind: 'delivery';
  /** The event's id: the `webhook-id` of every attempt. */
  eventId: string;
  /** The organization whose event it is: the queue's fairness group. */
  orgId: string;
  subject: DeliverySubject;
  /** 1 for the first attempt. */
  attempt: number;
}

/** What one attempt sends. */
export interface PreparedDelivery {
  url: string;
  secret: string;
  /** The event as JSON: the same bytes on every attempt (its `timestamp` is the event's time). */
  body: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One attempt's outcome, as its source records it. */
export interface DeliveryOutcome {
  status: DeliveryStatus;
  attempts: number;
  /** The receiver's status, or null when none came back. */
  statusCode: number | null;
  /** When the next attempt is due (while `pending`). */
  nextAttemptAt: string | null;
}

/** A producer of events: what to send, and where its outcome goes. */
export interface DeliverySource {
  /**
   * What attempt `message.attempt` sends, or null when nothing is to be sent: delivered or
   * given up already, its subject gone, or this attempt made already (a redelivered message).
   * `deadlineMs` is when the message's handling must be over (epoch ms).
   */
  prepare(message: DeliveryMessage, deadlineMs: number): Promise<PreparedDelivery | null>;
  record(message: DeliveryMessage, outcome: DeliveryOutcome): Promise<void>;
}

/** The webhooks queue of this deployment: SQS when WEBHOOKS_QUEUE_URL is set, this process's own otherwise. */
export const deliveryQueue = () => queueAt<DeliveryMessage>('webhooks', webhooksConfig().queueUrl);

/** Queues one attempt, after `delayMs`. */
export const sendDelivery = (message: DeliveryMessage, delayMs = 0): Promise<void> =>
  deliveryQueue().send([{ message, groupId: message.orgId, ...(delayMs > 0 ? { delaySeconds: delayMs / 1000 } : {}) }]);

/** Kept back from a message's deadline for the writes after its attempt (at most a quarter of what is left). */
const RECORD_RESERVE_MS = 5_000;

/** When an attempt begun at `startMs` must be over: the timeout, and never past its message's deadline less the writes' reserve. */
export function attemptDeadline(startMs: number, messageDeadlineMs: number, timeoutMs = webhooksConfig().timeoutMs): number {
  const left = messageDeadlineMs - startMs;
  return Math.min(startMs + timeoutMs, messageDeadlineMs - Math.min(RECORD_RESERVE_MS, left / 4));
}

export interface DeliverOptions {
  /** Epoch ms by which this message's handling must be over (its visibility, or the function's end). */
  deadlineMs: number;
  /** The clock (epoch ms). */
  now?: () => number;
  /** The first retry's delay (ms); each next one doubles it. */
  backoffMs?: number;
}

/** Makes one attempt of `message`; true acknowledges it (the next attempt, if any, is queued). */
export async function deliver(message: DeliveryMessage, source: DeliverySource, options: DeliverOptions): Promise<boolean> {
  const prepared = await source.prepare(message, options.deadlineMs);
  if (!prepared) return true;
  const now = options.now ?? Date.now;
  const result = await attemptWebhook(
    { url: prepared.url, secret: prepared.secret, id: message.eventId, body: prepared.body },
    { deadlineMs: attemptDeadline(Date.now(), options.deadlineMs), now },
  );
  const attempts = message.attempt;
  const outcome = { attempts, statusCode: result.statusCode, nextAttemptAt: null };
  if (result.ok) {
    await source.record(message, { ...outcome, status: 'delivered' });
    return true;
  }
  const fields = { event: message.eventId, subject: message.subject, organization_id: message.orgId, attempt: attempts };
  logger.warn('webhook attempt failed', { ...fields, status_code: result.statusCode, detail: result.detail });
  if (attempts >= WEBHOOK_ATTEMPTS) {
    await source.record(message, { ...outcome, status: 'failed' });
    // Counted once the outcome is recorded: a message that comes back after it finds the delivery
    // over (prepare answers null) and counts nothing again.
    logger.error('webhook delivery failed', { ...fields, status_code: result.statusCode, detail: result.detail });
    recordWebhookDeliveryFailed();
    return true;
  }
  // The next attempt is queued before this one is recorded: if the record fails, this message
  // comes back and tries again, where the other order could leave no attempt queued at all.
  const delayMs = (options.backoffMs ?? webhooksConfig().backoffMs) * 2 ** (attempts - 1);
  await sendDelivery({ ...message, attempt: attempts + 1 }, delayMs);
  await source.record(message, { ...outcome, status: 'pending', nextAttemptAt: new Date(now() + delayMs).toISOString() });
  return true;
}
