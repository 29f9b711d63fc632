/**
 * A credit purchase as every purchase route answers it (for the OpenAPI document): its own module,
 * so that the routes share it without importing each other's handlers.
 */
import * as z from 'zod/mini';

const note = <T extends z.core.$ZodType>(schema: T, description: string): T => {
  z.globalRegistry.add(schema, { description });
  return schema;
};

export const PURCHASE_STATUSES = ['open', 'paid', 'expired', 'processing', 'failed'] as const;

export const purchaseSchema = z.object({
  id: note(z.string(), 'the purchase id, `pur_…`'),
  organization_id: z.string(),
  source: note(z.enum(['checkout', 'auto_recharge']), '`checkout`: an owner bought it on the checkout page'),
  status: note(
    z.enum(PURCHASE_STATUSES),
    'a checkout is `open` until `paid` (final), or `expired` at `expires_at`; a declined card leaves it `open`',
  ),
  credits: note(z.int(), 'credits the purchase adds once paid'),
  amount: note(z.int(), 'what it costs, in minor units of `currency` (credits × the unit amount)'),
  currency: note(z.string(), 'ISO 4217, lowercase'),
  checkout_url: note(z.nullable(z.string()), 'the page where the buyer pays; set only while `open`'),
  payment_intent_id: note(z.nullable(z.string()), "Stripe's PaymentIntent, once paid"),
  failure: note(
    z.nullable(z.object({ code: z.string(), decline_code: z.nullable(z.string()), message: z.string() })),
    'the last failed attempt to pay, or null',
  ),
  reversed_credits: note(z.int(), 'credits taken back by refunds and disputes'),
  created_at: z.string(),
  created_by_id: note(z.nullable(z.string()), 'the owner who bought it'),
  expires_at: note(z.string(), 'when an unpaid checkout expires'),
  paid_at: note(z.nullable(z.string()), 'when it was paid, or null'),
});

export const pricingSchema = z.object({
  unit_amount: note(z.int(), 'minor units of `currency` per credit'),
  currency: z.string(),
  min_credits: note(z.int(), 'the fewest credits one purchase buys'),
  max_credits: note(z.int(), 'the most credits one purchase buys'),
});

export const purchasesPageSchema = z.object({
  purchases: z.array(purchaseSchema),
  pricing: pricingSchema,
  next_cursor: note(z.nullable(z.string()), 'the next page, while `has_more`'),
  has_more: z.boolean(),
});
