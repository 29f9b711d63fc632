import * as z from 'zod/mini';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { organizationId, userIdParam } from '../lib/http/params.ts';
import { removeWorkspaceMember } from '../lib/workspace/members.ts';

/** Its success, for the API description: no body. */
export const otherResponses = { '204': 'The member was removed; their spend history stays.' };

/** DELETE /organizations/{organization_id}/members/{user_id} — owners: 204; an unknown member 404; the last owner 409. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId, user_id: userIdParam }) } },
  async ({ path }, context) => {
    await removeWorkspaceMember(context.caller, path.organization_id, path.user_id);
    return new Reply(undefined, {}, 204);
  },
);
