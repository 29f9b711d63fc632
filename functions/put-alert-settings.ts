import * as z from 'zod/mini';
import { alertSettingsSchema } from '../lib/alerts/schemas.ts';
import { replaceAlertSettings } from '../lib/alerts/settings.ts';
import { endpoint } from '../lib/http/endpoint.ts';
import { jsonBody } from '../lib/http/json-body.ts';
import { organizationId } from '../lib/http/params.ts';

export { alertSettingsSchema as responseSchema } from '../lib/alerts/schemas.ts';

/** PUT /organizations/{organization_id}/alerts — owners: 200 the settings; other members and API keys 403, anyone else 404. */
export const handler = endpoint(
  { schemas: { path: z.object({ organization_id: organizationId }), body: alertSettingsSchema }, jsonBody },
  async ({ path, body }, context) => replaceAlertSettings(context.caller, path.organization_id, body),
);
