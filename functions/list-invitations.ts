import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';
import { INVITATION_STATUSES, invitationSchema } from '../lib/workspace/invitation-schemas.ts';
import { listInvitations } from '../lib/workspace/invitations.ts';

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  invitations: z.array(invitationSchema),
  next_cursor: z.nullable(z.string()),
  has_more: z.boolean(),
});

/** GET /organizations/{organization_id}/invitations — owners; newest first, of one `status` or all. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({
        status: z.optional(
          z
            .enum(INVITATION_STATUSES, { error: 'must be "pending", "accepted", "revoked" or "expired"' })
            .register(z.globalRegistry, { description: 'only the invitations of this status; all when absent' }),
        ),
        limit: integerParam(1, 100, 25),
        cursor: z.optional(pageCursor),
      }),
    },
  },
  async ({ path, query }, context) => listInvitations(context.caller, path.organization_id, query),
);
