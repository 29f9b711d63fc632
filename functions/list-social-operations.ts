import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import { listSocialOperations } from '../lib/social/list.ts';

/** GET /social/operations?organization_id= — any member; the operations this workspace can run. */
export const handler = endpoint({ schemas: { query: z.object({ organization_id: organizationId }) } }, async ({ query }, context) =>
  listSocialOperations(context.caller, query.organization_id),
);
