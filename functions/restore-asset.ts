import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { alongsideRateLimit } from '../lib/http/rate-limit.ts';
import { presentResource } from '../lib/resources/model.ts';
import { resourceIdParam, restoreResource } from '../lib/resources/restore.ts';

/** POST /assets/{asset_id}/restore — brings back a soft-deleted asset (docs/restore.md). */
export const handler = endpoint({ schemas: { path: z.object({ asset_id: resourceIdParam }) } }, async ({ path }, context) => {
  const { record, role } = await restoreResource('asset', path.asset_id, context.caller.userId, (reads) =>
    alongsideRateLimit(context, reads),
  );
  return presentResource('asset', record, role);
});
