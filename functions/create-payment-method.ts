import * as z from 'zod/mini';
import { startCardSetup } from '../lib/billing/auto-recharge.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';

export { cardSetupSchema as responseSchema } from '../lib/billing/auto-recharge-schemas.ts';
export const successStatus = 201;
export const responseHeaders = ['Cache-Control'];

/** POST /organizations/{organization_id}/auto-recharge/payment-method — owners with a user's token: 201 with the page that saves a card. */
export const handler = endpoint({ schemas: { path: z.object({ organization_id: organizationId }) } }, async ({ path }, context, event) => {
  const setup = await startCardSetup(context.caller, path.organization_id, baseUrl(event));
  // The page is the owner's to fill in.
  return new Reply(setup, { 'Cache-Control': 'no-store' }, 201);
});
