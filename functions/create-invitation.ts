import * as z from 'zod/mini';
import { baseUrl } from '../lib/http/base-url.ts';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { organizationId } from '../lib/http/params.ts';
import { ROLES } from '../lib/model.ts';
import { invitationEmailField, invitationSchema } from '../lib/workspace/invitation-schemas.ts';
import { DEFAULT_EXPIRES_IN_DAYS, inviteToWorkspace } from '../lib/workspace/invite.ts';
import { limitField } from '../lib/workspace/limit-fields.ts';

const EXPIRY_RULE = 'must be a whole number of days from 1 to 30';

const body = z.strictObject({
  email: invitationEmailField,
  role: z
    .enum(ROLES, { error: 'must be "viewer", "editor" or "owner"' })
    .register(z.globalRegistry, { description: 'the role the invitee becomes a member with' }),
  spending_limit: limitField("the member's monthly (UTC) spending limit in credits once accepted; null or omitted: none"),
  daily_limit: limitField("the member's daily (UTC) spending limit in credits once accepted; null or omitted: none"),
  expires_in_days: z.optional(
    z
      .int({ error: EXPIRY_RULE })
      .check(z.gte(1, EXPIRY_RULE), z.lte(30, EXPIRY_RULE))
      .register(z.globalRegistry, { description: `days until the link stops working (1 to 30; default ${DEFAULT_EXPIRES_IN_DAYS})` }),
  ),
});

export const successStatus = 201;
export const responseSchema = invitationSchema;

/**
 * POST /organizations/{organization_id}/invitations — owners with a user's token: 201 the
 * invitation, its email sent with a link to the console.
 */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId }), body }, jsonBody },
  async ({ path, body }, context, event) => {
    const invitation = await inviteToWorkspace(context.caller, path.organization_id, body, `${baseUrl(event)}/console`);
    return new Reply(invitation, {}, 201);
  },
);
