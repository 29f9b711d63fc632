/**
 * The job as every job route answers it (for the OpenAPI document): its own module, so that a job
 * route that shares it does not import another route's module (and its handler) to get it.
 */
import * as z from 'zod/mini';

const count = (description: string) => z.int().register(z.globalRegistry, { description });

/** A job as every job route answers it (for the OpenAPI document). */
export const jobSchema = z.object({
  id: z.string().register(z.globalRegistry, { description: 'the job id, `job_` and 32 hex digits' }),
  organization_id: z.string(),
  operation: z.string().register(z.globalRegistry, { description: 'the operation every item runs' }),
  status: z.enum(['queued', 'running', 'completed', 'cancelled']).register(z.globalRegistry, {
    description:
      '`queued` until its first item starts, `running`, then `completed` when every item has succeeded or failed, or `cancelled` (a cancel while items ran ends it when they have)',
  }),
  total: count('items in the job (its inputs)'),
  succeeded: count('items run and delivered: each charged like a single run'),
  failed: count('items that failed (the provider, a refusal): never charged'),
  cancelled: count('items cancelled before they started: never charged'),
  pending: count('items not finished yet: waiting, or at the provider'),
  charged: count("credits the job's items were charged"),
  max_credits: z.nullable(z.int()).register(z.globalRegistry, {
    description:
      'the most the whole job may be charged, as given at creation (`max_credits` or `Max-Credits`): an item that would take `charged` (with the items in flight) past it fails uncharged with `max_credits_exceeded`; null: no cap',
  }),
  created_at: z.string(),
  created_by_id: z.string().register(z.globalRegistry, { description: 'the user or API key that created it: its items are charged to it' }),
  completed_at: z.nullable(z.string()).register(z.globalRegistry, { description: 'when the job ended; null while it is active' }),
  fields: z.nullable(z.string()).register(z.globalRegistry, {
    description: "the `fields` given at creation (paths trimmed): every item's `output` keeps only these paths; null: whole outputs",
  }),
  webhook: z
    .nullable(
      z.object({
        url: z.string(),
        status: z.nullable(z.enum(['pending', 'delivered', 'failed'])),
        attempts: z.int(),
      }),
    )
    .register(z.globalRegistry, {
      description:
        'the webhook given at creation and its delivery: `status` null while the job runs, then `pending`, `delivered` or `failed` (after the first attempt and 5 retries); null without a webhook',
    }),
});
