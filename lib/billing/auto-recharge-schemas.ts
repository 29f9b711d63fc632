/**
 * Auto-recharge as every one of its routes answers it (for the OpenAPI document): its own module,
 * so that the routes share it without importing each other's handlers.
 */
import * as z from 'zod/mini';

const note = <T extends z.core.$ZodType>(schema: T, description: string): T => {
  z.globalRegistry.add(schema, { description });
  return schema;
};

export const cardSchema = z.nullable(
  z.object({ brand: note(z.string(), "the card's network, as Stripe names it (`visa`, …)"), last4: z.string() }),
);

export const autoRechargeSchema = z.object({
  enabled: z.boolean(),
  threshold: note(z.nullable(z.int()), 'a recharge starts when the balance falls below this'),
  credits: note(z.nullable(z.int()), 'credits one recharge buys'),
  monthly_cap: note(z.nullable(z.int()), 'the most credits recharged in a UTC month'),
  recharged_this_month: note(z.int(), 'credits recharged this UTC month, the one in flight included'),
  consecutive_failures: note(z.int(), 'failed recharges since the last success; the third disables it'),
  disabled_reason: note(
    z.nullable(z.enum(['consecutive_failures', 'dispute', 'payment_method_removed'])),
    'why it was turned off by itself; cleared when an owner turns it on again',
  ),
  last_recharge_at: note(z.nullable(z.string()), 'the last recharge that succeeded'),
  next_attempt_at: note(z.nullable(z.string()), 'when a retry, a deferral or the next month falls due'),
  payment_method: note(cardSchema, 'the saved card it charges, or null'),
});

export const paymentMethodSchema = z.object({ payment_method: note(cardSchema, 'the saved card, or null') });

export const cardSetupSchema = z.object({
  checkout_url: note(z.string(), 'the page where the owner saves a card'),
  expires_at: note(z.string(), 'when the page expires'),
});
