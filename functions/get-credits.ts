import * as z from 'zod/mini';
import { readCreditsOverview } from '../lib/billing/balance.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import { ROLES } from '../lib/model.ts';

const spend = z.object({
  spending_limit: z.nullable(z.number()).register(z.globalRegistry, { description: 'credits per UTC month; null: none' }),
  spent: z.number().register(z.globalRegistry, { description: 'credits spent this UTC month' }),
  daily_limit: z.nullable(z.number()).register(z.globalRegistry, { description: 'credits per UTC day; null: none' }),
  spent_today: z.number().register(z.globalRegistry, { description: 'credits spent this UTC day (resets at UTC midnight)' }),
});

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  organization_id: z.string(),
  balance: z.number(),
  currency: z.literal('credits'),
  period: z.object({ start: z.iso.datetime(), end: z.iso.datetime() }),
  organization: spend,
  member: z.extend(spend, { role: z.enum(ROLES) }),
  api_key: z.optional(
    z.extend(spend, { id: z.string() }).register(z.globalRegistry, {
      description: "only for a caller with an API key: the key's id, its own limits and spend (the figures of `member`)",
    }),
  ),
  confirm_above: z.nullable(z.object({ credits: z.int(), scope: z.enum(['organization', 'api_key']) })).register(z.globalRegistry, {
    description:
      "the caller's MCP consent threshold: tool calls quoted above `credits` run only after consent; the lower of the organization's and the key's, `scope` naming whose; null: never ask",
  }),
});

/** GET /organizations/{organization_id}/credits — any member; the balance and this month's and today's spend. */
export const handler = endpoint({ schemas: { path: z.object({ organization_id: organizationId }) } }, async ({ path }, context) =>
  readCreditsOverview(context.caller, path.organization_id),
);
