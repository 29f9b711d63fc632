import * as z from 'zod/mini';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { apiKeyIdParam, organizationId } from '../lib/http/params.ts';
import { revokeWorkspaceApiKey } from '../lib/workspace/api-keys.ts';

/** Its success, for the API description: no body. */
export const otherResponses = { '204': 'The key is revoked: its next request is refused (401, reason `revoked`). It stays listed.' };

/** DELETE /organizations/{organization_id}/api-keys/{key_id} — owners: 204, also for a key revoked already; an unknown key 404. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId, key_id: apiKeyIdParam }) } },
  async ({ path }, context) => {
    await revokeWorkspaceApiKey(context.caller, path.organization_id, path.key_id);
    return new Reply(undefined, {}, 204);
  },
);
