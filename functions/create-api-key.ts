import * as z from 'zod/mini';
import { issuingSigner } from '../lib/auth/issuing-signer.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { organizationId } from '../lib/http/params.ts';
import { API_KEY_ROLES } from '../lib/model.ts';
import { createWorkspaceApiKey, DEFAULT_KEY_LIFETIME_DAYS, MAX_KEY_LIFETIME_DAYS } from '../lib/workspace/api-keys.ts';
import { apiKeySchema } from '../lib/workspace/schemas.ts';

const body = z.strictObject({
  name: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(100, 'must be at most 100 characters'))
    .register(z.globalRegistry, { description: 'what the key is for, as its owners will recognise it (1 to 100 characters)' }),
  role: z
    .enum(API_KEY_ROLES, { error: 'must be "viewer" or "editor" (a key is never an owner)' })
    .register(z.globalRegistry, { description: 'what the key may do in the organization: `viewer` reads, `editor` also runs operations' }),
  spending_limit: z.optional(
    z.nullable(z.int().check(z.gte(0, 'must be a whole number of credits, 0 or more, or null for none'))).register(z.globalRegistry, {
      description: "the key's own monthly (UTC) spending limit in credits; null or omitted: none (the organization's still applies)",
    }),
  ),
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
