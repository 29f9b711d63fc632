import * as z from 'zod/mini';
import { readCard } from '../lib/billing/auto-recharge-settings.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';

export { paymentMethodSchema as responseSchema } from '../lib/billing/auto-recharge-schemas.ts';

/** GET /organizations/{organization_id}/auto-recharge/payment-method — owners with a user's token: the saved card, or null. */
export const handler = endpoint({ schemas: { path: z.object({ organization_id: organizationId }) } }, async ({ path }, context) =>
  readCard(context.caller, path.organization_id),
);
