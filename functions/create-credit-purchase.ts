import * as z from 'zod/mini';
import { createCheckoutPurchase } from '../lib/billing/checkout.ts';
import { purchaseSchema } from '../lib/billing/purchase-schemas.ts';
import { purchaseConfig } from '../lib/config.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { idempotencyKey, organizationId } from '../lib/http/params.ts';

const { minCredits, maxCredits } = purchaseConfig();
const CREDITS_RULE = `must be a whole number of credits from ${minCredits} to ${maxCredits}`;

const body = z.strictObject({
  credits: z
    .int({ error: CREDITS_RULE })
    .check(z.gte(minCredits, CREDITS_RULE), z.lte(maxCredits, CREDITS_RULE))
    .register(z.globalRegistry, { description: 'credits to buy', examples: [5_000] }),
});

export const successStatus = 201;
export const responseHeaders = ['Location', 'Cache-Control', 'Idempotent-Replayed'];
export const responseSchema = purchaseSchema;

/** POST /organizations/{organization_id}/credit-purchases — owners with a user's token: 201 with a checkout to pay. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      headers: z.object({ 'idempotency-key': z.optional(idempotencyKey) }),
      body,
    },
    jsonBody,
  },
  async ({ path, headers, body }, context, event) => {
    const { purchase, replayed } = await createCheckoutPurchase({
      caller: context.caller,
      orgId: path.organization_id,
      credits: body.credits,
      idempotencyKey: headers['idempotency-key'],
      baseUrl: baseUrl(event),
    });
    return new Reply(
      purchase,
      {
        Location: `/organizations/${encodeURIComponent(purchase.organization_id)}/credit-purchases/${purchase.id}`,
        // The checkout URL is the buyer's to pay.
        'Cache-Control': 'no-store',
        ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}),
      },
      201,
    );
  },
);
