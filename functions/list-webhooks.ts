import * as z from 'zod/mini';
import { listWebhookEndpoints } from '../lib/alerts/endpoints.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';

export { webhooksPageSchema as responseSchema } from '../lib/alerts/schemas.ts';

/** GET /organizations/{organization_id}/webhooks — owners; other members and API keys 403, anyone else 404. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({ limit: integerParam(1, 100, 25), cursor: z.optional(pageCursor) }),
    },
  },
  async ({ path, query }, context) => listWebhookEndpoints(context.caller, path.organization_id, query),
);
