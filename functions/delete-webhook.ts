import * as z from 'zod/mini';
import { deleteWebhookEndpoint } from '../lib/alerts/endpoints.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { organizationId, webhookIdParam } from '../lib/http/params.ts';

/** Its success, for the API description: no body. */
export const otherResponses = { '204': 'The endpoint and its deliveries are gone: it receives nothing more.' };

/** DELETE /organizations/{organization_id}/webhooks/{webhook_id} — owners: 204; an unknown endpoint 404. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId, webhook_id: webhookIdParam }) } },
  async ({ path }, context) => {
    await deleteWebhookEndpoint(context.caller, path.organization_id, path.webhook_id);
    return new Reply(undefined, {}, 204);
  },
);
