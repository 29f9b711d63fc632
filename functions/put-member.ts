import * as z from 'zod/mini';
import { endpoint, Reply } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { organizationId, userIdParam } from '../lib/http/params.ts';
import { ROLES } from '../lib/model.ts';
import { limitField } from '../lib/workspace/limit-fields.ts';
import { putWorkspaceMember } from '../lib/workspace/members.ts';

export { memberSchema as responseSchema } from '../lib/workspace/schemas.ts';

const body = z.strictObject({
  role: z.enum(ROLES).register(z.globalRegistry, { description: "the member's role" }),
  spending_limit: limitField("the member's monthly (UTC) spending limit in credits; null for none; omitted: kept as it is"),
  daily_limit: limitField("the member's daily (UTC) spending limit in credits; null for none; omitted: kept as it is"),
});

/**
 * PUT /organizations/{organization_id}/members/{user_id} — owners: adds the member or changes
 * its role (and its limit, when given). 200 either way; 409 `last_owner` for the last owner's demotion.
 */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId, user_id: userIdParam }), body }, jsonBody },
  async ({ path, body }, context) => {
    const { member } = await putWorkspaceMember(context.caller, path.organization_id, path.user_id, body);
    return new Reply(member);
  },
);
