import * as z from 'zod/mini';
import { putAutoRecharge } from '../lib/billing/auto-recharge-settings.ts';
import { purchaseConfig } from '../lib/config.ts';
import { validationFailed } from '../lib/errors.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { organizationId } from '../lib/http/params.ts';

export { autoRechargeSchema as responseSchema } from '../lib/billing/auto-recharge-schemas.ts';

const { minCredits, maxCredits } = purchaseConfig();
const MAX_THRESHOLD = 1_000_000;
const MAX_CAP = 10_000_000;
const THRESHOLD_RULE = `must be a whole number from 0 to ${MAX_THRESHOLD}`;
const CREDITS_RULE = `must be a whole number of credits from ${minCredits} to ${maxCredits}`;
const CAP_RULE = `must be a whole number from credits to ${MAX_CAP}`;

const body = z.strictObject({
  enabled: z.boolean({ error: 'must be true or false' }),
  threshold: z.optional(
    z
      .int({ error: THRESHOLD_RULE })
      .check(z.gte(0, THRESHOLD_RULE), z.lte(MAX_THRESHOLD, THRESHOLD_RULE))
      .register(z.globalRegistry, { description: 'recharge when the balance falls below this; required when enabled', examples: [1_000] }),
  ),
  credits: z.optional(
    z
      .int({ error: CREDITS_RULE })
      .check(z.gte(minCredits, CREDITS_RULE), z.lte(maxCredits, CREDITS_RULE))
      .register(z.globalRegistry, { description: 'credits one recharge buys; required when enabled', examples: [5_000] }),
  ),
  monthly_cap: z.optional(
    z
      .int({ error: CAP_RULE })
      .check(z.gte(minCredits, CAP_RULE), z.lte(MAX_CAP, CAP_RULE))
      .register(z.globalRegistry, {
        description: 'the most credits recharged in a UTC month, at least `credits`; required when enabled',
        examples: [50_000],
      }),
  ),
});

/** PUT /organizations/{organization_id}/auto-recharge — owners with a user's token: 200 the settings; 409 `payment_method_required` without a card. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId }), body }, jsonBody },
  async ({ path, body }, context, event) => {
    if (body.enabled) {
      const absent = (['threshold', 'credits', 'monthly_cap'] as const).filter((field) => body[field] === undefined);
      if (absent.length > 0)
        throw validationFailed(
          absent.map((field) => ({ path: ['body', field], code: 'invalid_type', message: 'is required when enabled' })),
        );
    }
    return putAutoRecharge(context.caller, path.organization_id, body, baseUrl(event));
  },
);
