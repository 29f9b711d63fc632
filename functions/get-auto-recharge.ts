import * as z from 'zod/mini';
import { readAutoRecharge } from '../lib/billing/auto-recharge-settings.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';

export { autoRechargeSchema as responseSchema } from '../lib/billing/auto-recharge-schemas.ts';

/** GET /organizations/{organization_id}/auto-recharge — owners with a user's token; other members 403, anyone else 404. */
export const handler = endpoint({ schemas: { path: z.object({ organization_id: organizationId }) } }, async ({ path }, context) =>
  readAutoRecharge(context.caller, path.organization_id),
);
