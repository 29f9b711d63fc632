import * as z from 'zod/mini';
import { removeCard } from '../lib/billing/auto-recharge.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';

/** Its success, for the API description: no body. */
export const otherResponses = { '204': 'No card is saved any more (also when none was); an enabled auto-recharge is disabled.' };

/** DELETE /organizations/{organization_id}/auto-recharge/payment-method — owners with a user's token: 204. */
export const handler = endpoint({ schemas: { path: z.object({ organization_id: organizationId }) } }, async ({ path }, context) => {
  await removeCard(context.caller, path.organization_id);
  return new Reply(undefined, {}, 204);
});
