import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { resourceIdParam } from '../lib/http/params.ts';
import { presentResource } from '../lib/resources/model.ts';
import { restoreResource } from '../lib/resources/restore.ts';
import { resourceSchema } from '../lib/resources/schemas.ts';

/** POST /assets/{asset_id}/restore — brings back a soft-deleted asset (docs/restore.md). */
export const handler = endpoint({ schemas: { path: z.object({ asset_id: resourceIdParam }) } }, async ({ path }, context) => {
  const { record, role } = await restoreResource('asset', path.asset_id, context.caller);
  return presentResource('asset', record, role);
});

/** The 200 body, for the API description. */
export const responseSchema = resourceSchema('asset');
