/**
 * Alert settings, notification endpoints and their deliveries as the routes take and answer them
 * (for the OpenAPI document and the PUT's validation): one module, so that routes sharing them
 * import no other route's handler.
 */
import * as z from 'zod/mini';

const THRESHOLDS_RULE = 'must be 1 to 5 distinct whole percentages from 1 to 100';

export const alertSettingsSchema = z.strictObject({
  low_balance: z
    .nullable(z.int().check(z.gte(0, 'must be a whole number of credits, 0 or more, or null for none')))
    .register(z.globalRegistry, {
      description:
        '`credits.balance_low` is sent when the balance falls below this many credits (once, until it is at or above it again); null: never',
    }),
  thresholds: z
    .array(z.int().check(z.gte(1, THRESHOLDS_RULE), z.lte(100, THRESHOLDS_RULE)))
    .check(
      z.minLength(1, THRESHOLDS_RULE),
      z.maxLength(5, THRESHOLDS_RULE),
      z.refine((values) => new Set(values).size === values.length, THRESHOLDS_RULE),
    )
    .register(z.globalRegistry, {
      description:
        '`spending_limit.threshold_reached` is sent when a spend reaches each of these percentages of its limit, once per scope, threshold and period (default [80, 100]; answered sorted)',
    }),
});

export const webhookSchema = z.object({
  id: z.string().register(z.globalRegistry, { description: 'the endpoint id, `whk_` and 32 hex digits' }),
  url: z.string().register(z.globalRegistry, { description: 'where its events are POSTed' }),
  events: z.array(z.string()).register(z.globalRegistry, { description: 'the event types it receives (sorted), or `["*"]` for all' }),
  created_at: z.string(),
});

const nullableInt = (description: string) => z.nullable(z.int()).register(z.globalRegistry, { description });

export const deliverySchema = z.object({
  id: z.string().register(z.globalRegistry, { description: 'the event id (`evt_…`), also the `webhook-id` header of every attempt' }),
  type: z.string().register(z.globalRegistry, { description: 'the event type' }),
  status: z.enum(['pending', 'delivered', 'failed']).register(z.globalRegistry, {
    description: '`pending` while attempts remain, `delivered` on a 2xx, `failed` after the last attempt',
  }),
  attempts: z.int().register(z.globalRegistry, { description: 'attempts made so far' }),
  last_status_code: nullableInt("the receiver's status at the last attempt, null when none came back (or none was made)"),
  next_attempt_at: z
    .nullable(z.string())
    .register(z.globalRegistry, { description: 'when the next attempt is due, while `pending` after a failure' }),
  created_at: z.string().register(z.globalRegistry, { description: "the event's time" }),
});

const page = { next_cursor: z.nullable(z.string()), has_more: z.boolean() };
export const webhooksPageSchema = z.object({ webhooks: z.array(webhookSchema), ...page });
export const deliveriesPageSchema = z.object({ deliveries: z.array(deliverySchema), ...page });
