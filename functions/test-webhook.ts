import * as z from 'zod/mini';
import { sendTestEvent } from '../lib/alerts/endpoints.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { organizationId, webhookIdParam } from '../lib/http/params.ts';

export { deliverySchema as responseSchema } from '../lib/alerts/schemas.ts';
export const successStatus = 202;

/** POST /organizations/{organization_id}/webhooks/{webhook_id}/test — owners: 202 with the queued `webhook.test` delivery. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId, webhook_id: webhookIdParam }) } },
  async ({ path }, context) => new Reply(await sendTestEvent(context.caller, path.organization_id, path.webhook_id), {}, 202),
);
