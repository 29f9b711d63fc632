import * as z from 'zod/mini';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { invitationIdParam, organizationId } from '../lib/http/params.ts';
import { revokeWorkspaceInvitation } from '../lib/workspace/invitations.ts';

/** Its success, for the API description: no body. */
export const otherResponses = { '204': 'The invitation is revoked (or was already): its token is dead. It stays listed 90 days.' };

/** DELETE /organizations/{organization_id}/invitations/{invitation_id} — owners: 204; accepted 409; unknown 404. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId, invitation_id: invitationIdParam }) } },
  async ({ path }, context) => {
    await revokeWorkspaceInvitation(context.caller, path.organization_id, path.invitation_id);
    return new Reply(undefined, {}, 204);
  },
);
