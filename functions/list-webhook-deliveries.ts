import * as z from 'zod/mini';
import { listEndpointDeliveries } from '../lib/alerts/endpoints.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor, webhookIdParam } from '../lib/http/params.ts';

export { deliveriesPageSchema as responseSchema } from '../lib/alerts/schemas.ts';

/** GET /organizations/{organization_id}/webhooks/{webhook_id}/deliveries — owners: the endpoint's deliveries, newest first. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId, webhook_id: webhookIdParam }),
      query: z.object({ limit: integerParam(1, 100, 25), cursor: z.optional(pageCursor) }),
    },
  },
  async ({ path, query }, context) => listEndpointDeliveries(context.caller, path.organization_id, path.webhook_id, query),
);
