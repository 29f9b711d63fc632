import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import { readWorkspace } from '../lib/workspace/organization.ts';

export { settingsSchema as responseSchema } from '../lib/workspace/schemas.ts';

/** GET /organizations/{organization_id} — any member; anyone else 404. */
export const handler = endpoint({ schemas: { path: z.object({ organization_id: organizationId }) } }, async ({ path }, context) =>
  readWorkspace(context.caller, path.organization_id),
);
