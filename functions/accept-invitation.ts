import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { invitationIdParam } from '../lib/http/params.ts';
import { ROLES } from '../lib/model.ts';
import { acceptWorkspaceInvitation } from '../lib/workspace/invitations.ts';

const ONE_OF = 'must hold exactly one of "token" and "invitation_id"';

const body = z
  .strictObject({
    token: z.optional(
      z
        .string()
        .check(z.minLength(1, 'must not be empty'), z.maxLength(512, 'must be at most 512 characters'))
        .register(z.globalRegistry, { description: "the token of the invitation's link (after `#invitation=`)" }),
    ),
    invitation_id: z.optional(invitationIdParam),
  })
  .check(z.refine((value) => (value.token === undefined) !== (value.invitation_id === undefined), { error: ONE_OF, abort: true }));

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  organization_id: z.string(),
  invitation_id: z.string(),
  user_id: z.string(),
  role: z.enum(ROLES),
  spending_limit: z.nullable(z.int()),
  daily_limit: z.nullable(z.int()),
});

/** POST /invitations/accept — a user's token with the invited verified address: the membership, in one transaction. */
export const handler = endpoint({ schemas: { body }, jsonBody }, async ({ body }, context) =>
  acceptWorkspaceInvitation(context.caller, body.token !== undefined ? { token: body.token } : { invitation_id: body.invitation_id ?? '' }),
);
