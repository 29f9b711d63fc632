/** Alert settings as the routes take and answer them (for the OpenAPI document and the PUT's validation). */
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
