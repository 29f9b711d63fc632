import * as z from 'zod/mini';
import { readAlertSettings } from '../lib/alerts/settings.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';

export { alertSettingsSchema as responseSchema } from '../lib/alerts/schemas.ts';

/** GET /organizations/{organization_id}/alerts — members; anyone else 404. */
export const handler = endpoint({ schemas: { path: z.object({ organization_id: organizationId }) } }, async ({ path }, context) =>
  readAlertSettings(context.caller, path.organization_id),
);
