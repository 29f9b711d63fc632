import * as z from 'zod/mini';
import { issuingSigner } from '../lib/auth/issuing-signer.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { organizationId } from '../lib/http/params.ts';
import { createWorkspaceApiKey, DEFAULT_KEY_LIFETIME_DAYS, MAX_KEY_LIFETIME_DAYS } from '../lib/workspace/api-keys.ts';
import { allowedIpsField, confirmAboveField, limitField, rateLimitField } from '../lib/workspace/limit-fields.ts';
import { apiKeyName, apiKeyRole, apiKeySchema } from '../lib/workspace/schemas.ts';

const body = z.strictObject({
  name: apiKeyName,
  role: apiKeyRole,
  spending_limit: limitField(
    "the key's own monthly (UTC) spending limit in credits; null or omitted: none (the organization's still applies)",
  ),
  daily_limit: limitField("the key's own daily (UTC) spending limit in credits; null or omitted: none (the organization's still applies)"),
  confirm_above: confirmAboveField(
    "the key's MCP consent threshold: its tool calls quoted above this many credits run only after consent; null or omitted: none of its own (the organization's still applies)",
  ),
  allowed_ips: allowedIpsField,
  rate_limit: rateLimitField,
  expires_in_days: z.optional(
    z
      .int()
      .check(
        z.gte(1, `must be from 1 to ${MAX_KEY_LIFETIME_DAYS} days`),
        z.lte(MAX_KEY_LIFETIME_DAYS, `must be from 1 to ${MAX_KEY_LIFETIME_DAYS} days`),
      )
      .register(z.globalRegistry, { description: `days until the key expires (default ${DEFAULT_KEY_LIFETIME_DAYS})` }),
  ),
});

/** Its success is a creation. */
export const successStatus = 201;
export const responseHeaders = ['Cache-Control'];

/** The 201 body: the key, and its token, shown this once (for the OpenAPI document). */
export const responseSchema = z.object({
  ...apiKeySchema.shape,
  token: z.string().register(z.globalRegistry, {
    description: 'the bearer token of the key (a JWT): shown in this answer only, never again; keep it secret',
  }),
});

/** POST /organizations/{organization_id}/api-keys — owners: 201 with the key and its token (shown once). */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId }), body }, jsonBody },
  async ({ path, body }, context) => {
    const key = await createWorkspaceApiKey(context.caller, path.organization_id, body, issuingSigner());
    return new Reply(key, { 'Cache-Control': 'no-store' }, 201);
  },
);
