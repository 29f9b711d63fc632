import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';
import { listWorkspaceApiKeys } from '../lib/workspace/api-keys.ts';
import { apiKeySchema } from '../lib/workspace/schemas.ts';

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
