/**
 * A job's end as a webhook event (docs/jobs.md, "Webhooks"): the delivery source of the
 * `job.completed` event sent to the job's own `webhook_url`. What is sent is read from the job at
 * each attempt; its `timestamp` is the job's end (the event's time), so every attempt sends the
 * same bytes. Each outcome is recorded on the job (`webhook.status`, `webhook.attempts`).
 */

import { getJob, type JobRecord, recordWebhook } from '../db/jobs.ts';
import { defined } from '../defined.ts';
import type { DeliverySource } from '../webhooks/delivery.ts';
import { jobView } from './jobs.ts';

/** The `job.completed` event's body: the job as the API shows it, without its webhook field. */
export const jobCompletedBody = (job: JobRecord): string =>
  JSON.stringify({
    type: 'job.completed',
    // Set in the very write that ended the job and made its webhook pending.
    timestamp: defined(job.completed_at, `the end of job ${job.id}`),
    data: { ...jobView(job), webhook: undefined },
  });

export const jobWebhookSource: DeliverySource = {
  async prepare(message) {
    const job = await getJob(message.subject.jobId);
    // Already delivered, given up, or this attempt made already (a redelivered message).
    if (!job?.webhook_url || !job.webhook_secret || job.webhook_status !== 'pending' || job.webhook_attempts >= message.attempt)
      return null;
    return { url: job.webhook_url, secret: job.webhook_secret, body: jobCompletedBody(job) };
  },
  record: (message, outcome) => recordWebhook(message.subject.jobId, outcome.status, outcome.attempts),
};
