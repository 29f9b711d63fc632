/**
 * What follows a job's end, whoever ended it (its last item's result, a worker finding it done, a
 * cancel, the recovery's cancel): `jobEnded` says so once in the log and queues its webhook. And
 * the `job.completed` event its two receivers get (docs/jobs.md, "Webhooks"; docs/alerts.md):
 * the job's own `webhook_url`, through this module's delivery source, and the owners' notification
 * endpoints, from the table's stream (lib/alerts/crossings.ts). Both carry the same event
 * (`jobCompleted`), each in its receiver's documented envelope.
 *
 * The job's own webhook: what is sent is read from the job at each attempt; its `timestamp` is the
 * job's end (the event's time), so every attempt sends the same bytes. Each outcome is recorded on
 * the job (`webhook.status`, `webhook.attempts`).
 */
import { getJob, type JobRecord, recordWebhook } from '../db/jobs.ts';
import { defined } from '../defined.ts';
import { logger } from '../log.ts';
import { type DeliverySource, sendDelivery } from '../webhooks/delivery.ts';
import { jobView } from './view.ts';

/** The `job.completed` event of an ended job: its type, its time (the job's end) and its data, the job as the API shows it without its webhook field. */
export const jobCompleted = (job: JobRecord) => ({
  type: 'job.completed' as const,
  // Set in the very write that ended the job and made its webhook pending.
  at: defined(job.completed_at, `the end of job ${job.id}`),
  data: { ...jobView(job), webhook: undefined },
});

/** The event as the job's own `webhook_url` receives it: `{ type, timestamp, data }` (docs/jobs.md). */
export const jobWebhookBody = (job: JobRecord): string => {
  const { type, at, data } = jobCompleted(job);
  return JSON.stringify({ type, timestamp: at, data });
};

/** The `webhook-id` of a job's `job.completed` event on its own `webhook_url`, the same on every attempt. */
export const jobEventId = (jobId: string): string => `msg_${jobId}`;

/** Queues attempt `attempt` of the ended job's webhook, after `delayMs`, on the webhooks queue (lib/webhooks/delivery.ts). */
export const sendWebhookMessage = (job: Pick<JobRecord, 'id' | 'organization_id'>, attempt: number, delayMs: number): Promise<void> =>
  sendDelivery(
    { kind: 'delivery', eventId: jobEventId(job.id), orgId: job.organization_id, subject: { type: 'job', jobId: job.id }, attempt },
    delayMs,
  );

/**
 * The job ended: called once, by whoever's write ended it (lib/jobs/lifecycle.ts ends a job
 * exactly once). Logged, and its webhook's first attempt queued when it has one. Only what the
 * end does not change is logged: a caller may hold the job as it stood before its last item.
 */
export async function jobEnded(job: JobRecord): Promise<void> {
  logger.info('job ended', { job: job.id, organization_id: job.organization_id, total: job.total });
  if (job.webhook_url) await sendWebhookMessage(job, 1, 0);
}

export const jobWebhookSource: DeliverySource = {
  async prepare(message) {
    if (message.subject.type !== 'job') return null;
    const job = await getJob(message.subject.jobId);
    // Already delivered, given up, or this attempt made already (a redelivered message).
    if (!job?.webhook_url || !job.webhook_secret || job.webhook_status !== 'pending' || job.webhook_attempts >= message.attempt)
      return null;
    return { url: job.webhook_url, secret: job.webhook_secret, body: jobWebhookBody(job) };
  },
  async record(message, outcome) {
    if (message.subject.type === 'job') await recordWebhook(message.subject.jobId, outcome.status, outcome.attempts);
  },
};
