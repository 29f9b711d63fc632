import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';
import { API_KEY_ROLES } from '../lib/model.ts';
import { listWorkspaceApiKeys } from '../lib/workspace/api-keys.ts';

/** One key as the key routes answer it, never with its token (for the OpenAPI document). */
export const apiKeySchema = z.object({
  id: z.string().register(z.globalRegistry, { description: 'the key id, `key_` and 32 hex digits: the `sub` of its token' }),
  name: z.string(),
  role: z.enum(API_KEY_ROLES),
  spending_limit: z.nullable(z.int()).register(z.globalRegistry, { description: "the key's monthly (UTC) limit in credits; null: none" }),
  spent: z.int().register(z.globalRegistry, { description: "credits the key's runs spent this UTC month" }),
  created_at: z.string(),
  created_by_id: z.string().register(z.globalRegistry, { description: 'the owner who created it' }),
  expires_at: z.string(),
  last_used_at: z.nullable(z.string()).register(z.globalRegistry, {
    description: 'when the key was last used, to within 15 minutes; null: never',
  }),
  revoked_at: z.nullable(z.string()),
});

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({ api_keys: z.array(apiKeySchema), next_cursor: z.nullable(z.string()), has_more: z.boolean() });

/** GET /organizations/{organization_id}/api-keys — owners; other members and API keys 403, anyone else 404. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({ limit: integerParam(1, 100, 25), cursor: z.optional(pageCursor) }),
    },
  },
  async ({ path, query }, context) => listWorkspaceApiKeys(context.caller, path.organization_id, query),
);
