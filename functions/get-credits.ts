import * as z from 'zod/mini';
import { readCreditsOverview } from '../lib/billing/balance.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import { ROLES } from '../lib/model.ts';

const spend = z.object({ spending_limit: z.nullable(z.number()), spent: z.number() });

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  organization_id: z.string(),
  balance: z.number(),
  currency: z.literal('credits'),
  period: z.object({ start: z.iso.datetime(), end: z.iso.datetime() }),
  organization: spend,
  member: z.extend(spend, { role: z.enum(ROLES) }),
});

/** GET /organizations/{organization_id}/credits — any member; the balance and this month's spend. */
export const handler = endpoint({ schemas: { path: z.object({ organization_id: organizationId }) } }, async ({ path }, context) =>
  readCreditsOverview(context.caller, path.organization_id),
);
