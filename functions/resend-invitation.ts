import * as z from 'zod/mini';
import { baseUrl } from '../lib/http/base-url.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { invitationIdParam, organizationId } from '../lib/http/params.ts';
import { invitationSchema } from '../lib/workspace/invitation-schemas.ts';
import { resendWorkspaceInvitation } from '../lib/workspace/invite.ts';

export const responseSchema = invitationSchema;

/** POST /organizations/{organization_id}/invitations/{invitation_id}/resend — owners: a new token, expiry and email. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId, invitation_id: invitationIdParam }) } },
  async ({ path }, context, event) =>
    resendWorkspaceInvitation(context.caller, path.organization_id, path.invitation_id, `${baseUrl(event)}/console`),
);
