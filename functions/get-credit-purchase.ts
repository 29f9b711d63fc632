import * as z from 'zod/mini';
import { readPurchase } from '../lib/billing/purchases.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId, purchaseIdParam } from '../lib/http/params.ts';

export { purchaseSchema as responseSchema } from '../lib/billing/purchase-schemas.ts';

/** GET /organizations/{organization_id}/credit-purchases/{purchase_id} — owners with a user's token; anyone else 404. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId, purchase_id: purchaseIdParam }) } },
  async ({ path }, context) => readPurchase(context.caller, path.organization_id, path.purchase_id),
);
