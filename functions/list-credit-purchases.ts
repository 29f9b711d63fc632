import * as z from 'zod/mini';
import { PURCHASE_STATUSES } from '../lib/billing/purchase-schemas.ts';
import { listPurchases } from '../lib/billing/purchases.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';

export { purchasesPageSchema as responseSchema } from '../lib/billing/purchase-schemas.ts';

/** GET /organizations/{organization_id}/credit-purchases — owners with a user's token; newest first, with the pricing. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({
        status: z.optional(z.enum(PURCHASE_STATUSES, { error: `must be one of ${PURCHASE_STATUSES.join(', ')}` })),
        limit: integerParam(1, 100, 25),
        cursor: z.optional(pageCursor),
      }),
    },
  },
  async ({ path, query }, context) => listPurchases(context.caller, path.organization_id, query),
);
