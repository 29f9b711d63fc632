import * as z from 'zod/mini';
import { listGrants } from '../lib/billing/grants.ts';
import { GRANT_SOURCES, GRANT_STATUSES } from '../lib/db/grants.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';

const grantSchema = z.object({
  id: z.string(),
  source: z.enum(GRANT_SOURCES),
  credits: z.int(),
  remaining: z.int(),
  status: z.enum(GRANT_STATUSES),
  expires_at: z.nullable(z.iso.datetime()),
  expired_credits: z.int(),
  purchase_id: z.nullable(z.string()),
  created_at: z.iso.datetime(),
});

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  grants: z.array(grantSchema),
  debt: z.int(),
  next_cursor: z.nullable(z.string()),
  has_more: z.boolean(),
});

/** GET /organizations/{organization_id}/credit-grants — owners; other members and API keys 403, anyone else 404. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({
        status: z.optional(z.enum(GRANT_STATUSES, { error: `must be one of ${GRANT_STATUSES.join(', ')}` })),
        limit: integerParam(1, 100, 25),
        cursor: z.optional(pageCursor),
      }),
    },
  },
  async ({ path, query }, context) => listGrants(context.caller, path.organization_id, query),
);
