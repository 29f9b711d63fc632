import * as z from 'zod/mini';
import { baseUrl } from '../lib/http/base-url.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, jobIdParam, pageCursor } from '../lib/http/params.ts';
import { JOB_ITEM_STATUSES, listSocialJobItems } from '../lib/jobs/jobs.ts';

const errorSchema = z.object({ code: z.string(), message: z.string(), data: z.optional(z.record(z.string(), z.unknown())) });

/** One item of a job (for the OpenAPI document). */
export const jobItemSchema = z.object({
  index: z.int().register(z.globalRegistry, { description: 'its position in the inputs, from 0' }),
  input: z.unknown().register(z.globalRegistry, { description: 'the input, as validated (defaults applied)' }),
  status: z.enum(JOB_ITEM_STATUSES),
  output: z.unknown().register(z.globalRegistry, { description: "the operation's output once succeeded; null otherwise" }),
  error: z.nullable(errorSchema).register(z.globalRegistry, {
    description: 'once failed: the error body a single run would have answered (a 402 refusal, `upstream_failed`, …); null otherwise',
  }),
  charged: z.int().register(z.globalRegistry, { description: 'credits this item was charged' }),
  finished_at: z.nullable(z.string()),
  provider: z.nullable(z.string()).register(z.globalRegistry, {
    description: 'the provider that produced its output (`Social-Provider` of a single run); null until it succeeded',
  }),
});

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({ items: z.array(jobItemSchema), next_cursor: z.nullable(z.string()), has_more: z.boolean() });

/** GET /social/jobs/{job_id}/items — members of the job's organization: its items by index, paged. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ job_id: jobIdParam }),
      query: z.object({
        status: z.optional(
          z.enum(JOB_ITEM_STATUSES, { error: 'must be one of pending, succeeded, failed, cancelled' }).register(z.globalRegistry, {
            description: 'only the items in this status',
          }),
        ),
        limit: integerParam(1, 100, 25),
        cursor: z.optional(pageCursor),
      }),
    },
  },
  async ({ path, query }, context, event) => listSocialJobItems(context.caller, path.job_id, query, baseUrl(event)),
);
