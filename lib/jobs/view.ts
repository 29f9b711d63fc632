/** A job as the API shows it: the routes, MCP's tools and the `job.completed` event answer the same shape. */
import type { JobRecord } from '../db/jobs.ts';

/** A job as the API shows it. */
export interface JobView {
  id: string;
  organization_id: string;
  operation: string;
  status: JobRecord['status'];
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  /** Items not finished yet: waiting, or at the provider. */
  pending: number;
  /** Credits the job's items were charged (refunds deducted). */
  charged: number;
  /** The most its items may be charged in all, or null: no cap. */
  max_credits: number | null;
  created_at: string;
  created_by_id: string;
  completed_at: string | null;
  /** The `fields` every item's output keeps, or null: whole outputs. */
  fields: string | null;
  webhook: { url: string; status: 'pending' | 'delivered' | 'failed' | null; attempts: number } | null;
}

export const jobView = (job: JobRecord): JobView => ({
  id: job.id,
  organization_id: job.organization_id,
  operation: job.operation,
  status: job.status,
  total: job.total,
  succeeded: job.succeeded,
  failed: job.failed,
  cancelled: job.cancelled,
  pending: job.queued + job.running,
  charged: job.charged,
  max_credits: job.max_credits,
  created_at: job.created_at,
  created_by_id: job.created_by_id,
  completed_at: job.completed_at,
  fields: job.fields ?? null,
  webhook: job.webhook_url ? { url: job.webhook_url, status: job.webhook_status, attempts: job.webhook_attempts } : null,
});
