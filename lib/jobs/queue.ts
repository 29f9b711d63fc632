/**
 * The jobs queue: the messages a job's items travel on (lib/queues/queue.ts: SQS deployed, the
 * embedded queue locally), received by the worker (lib/jobs/worker.ts). A job's webhook travels
 * on the webhooks queue instead (lib/webhooks/delivery.ts): a delivery never takes a worker that
 * runs items.
 */
import { jobsConfig } from '../config.ts';
import type { Queue, Outgoing as QueueOutgoing } from '../queues/queue.ts';
import { queueAt } from '../queues/sqs-queue.ts';

/** Run (or take over) one item of a job. */
export interface ItemMessage {
  kind: 'item';
  jobId: string;
  orgId: string;
  index: number;
  /**
   * What the run needs, copied from the job and the item at creation, so that the first delivery
   * claims the item without reading it first. Absent: the worker reads the job and the item.
   */
  run?: {
    operation: string;
    createdById: string;
    maxAgeSeconds: number | null;
    fields?: string | null;
    /** The job's `max_credits` (null: no cap); absent from messages queued before it existed, whose jobs have none. */
    maxCredits?: number | null;
    input: unknown;
  };
}

/**
 * A job's webhook attempt as this queue carried it before deliveries had a queue of their own:
 * one still queued when the stack is updated is passed on to the webhooks queue.
 */
export interface WebhookMessage {
  kind: 'webhook';
  jobId: string;
  orgId: string;
  attempt: number;
}

export type JobMessage = ItemMessage | WebhookMessage;

export type Outgoing = QueueOutgoing<JobMessage>;

export type JobQueue = Queue<JobMessage>;

/** The queue of this deployment: SQS when JOBS_QUEUE_URL is set, this process's own otherwise. */
export const jobQueue = (): JobQueue => queueAt<JobMessage>('jobs', jobsConfig().queueUrl);
