import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import { NETWORKS } from '../lib/model.ts';
import { readWorkspace } from '../lib/workspace/organization.ts';

/** An organization's settings, as GET and PATCH answer them (for the OpenAPI document). */
export const responseSchema = z.object({
  organization_id: z.string(),
  networks: z.array(z.enum(NETWORKS)),
  spending_limit: z.nullable(z.int()),
  created_at: z.iso.datetime(),
});

/** GET /organizations/{organization_id} — any member; anyone else 404. */
export const handler = endpoint({ schemas: { path: z.object({ organization_id: organizationId }) } }, async ({ path }, context) =>
  readWorkspace(context.caller, path.organization_id),
);
