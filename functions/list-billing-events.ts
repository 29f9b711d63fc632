import * as z from 'zod/mini';
import { listEvents } from '../lib/billing/events.ts';
import { billingEventSchema } from '../lib/db/billing-events.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  events: z.array(billingEventSchema),
  next_cursor: z.nullable(z.string()),
  has_more: z.boolean(),
});

/** GET /organizations/{organization_id}/billing/events — owners only, newest first, paged by `cursor`. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({ days: integerParam(1, 30, 30), limit: integerParam(1, 100, 25), cursor: z.optional(pageCursor) }),
    },
  },
  async ({ path, query }, context) => listEvents(context.caller, path.organization_id, query),
);
