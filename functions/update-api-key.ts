import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { apiKeyIdParam, organizationId } from '../lib/http/params.ts';
import { updateWorkspaceApiKey } from '../lib/workspace/api-keys.ts';
import { allowedIpsField, confirmAboveField, limitField, rateLimitField } from '../lib/workspace/limit-fields.ts';
import { apiKeyName, apiKeyRole } from '../lib/workspace/schemas.ts';

export { apiKeySchema as responseSchema } from '../lib/workspace/schemas.ts';

const FIELDS = ['name', 'role', 'spending_limit', 'daily_limit', 'confirm_above', 'allowed_ips', 'rate_limit'] as const;

const body = z
  .strictObject({
    name: z.optional(apiKeyName),
    role: z.optional(apiKeyRole),
    spending_limit: limitField("the key's own monthly (UTC) spending limit in credits; null: none; omitted: kept"),
    daily_limit: limitField("the key's own daily (UTC) spending limit in credits; null: none; omitted: kept"),
    confirm_above: confirmAboveField(
      "the key's MCP consent threshold: its tool calls quoted above this many credits run only after consent; null: none of its own; omitted: kept",
    ),
    allowed_ips: allowedIpsField,
    rate_limit: rateLimitField,
  })
  .check(z.refine((value) => FIELDS.some((field) => value[field] !== undefined), `must change one or more of ${FIELDS.join(', ')}`));

/**
 * PATCH /organizations/{organization_id}/api-keys/{key_id} — owners, with a user's token: 200 the
 * key as changed (never its token); in force from the key's next request. A revoked or unknown
 * key 404.
 */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId, key_id: apiKeyIdParam }), body }, jsonBody },
  async ({ path, body }, context) => updateWorkspaceApiKey(context.caller, path.organization_id, path.key_id, body),
);
