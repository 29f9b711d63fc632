import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';
import { listWorkspaceMembers } from '../lib/workspace/members.ts';
import { memberSchema } from '../lib/workspace/schemas.ts';

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({ members: z.array(memberSchema), next_cursor: z.nullable(z.string()), has_more: z.boolean() });

/** GET /organizations/{organization_id}/members — owners; other members 403, anyone else 404. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({ limit: integerParam(1, 100, 25), cursor: z.optional(pageCursor) }),
    },
  },
  async ({ path, query }, context) => listWorkspaceMembers(context.caller, path.organization_id, query),
);
