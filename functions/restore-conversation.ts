import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { alongsideRateLimit } from '../lib/http/rate-limit.ts';
import { presentResource } from '../lib/resources/model.ts';
import { resourceIdParam, restoreResource } from '../lib/resources/restore.ts';

/** POST /conversations/{conversation_id}/restore — brings back a soft-deleted conversation (docs/restore.md). */
export const handler = endpoint({ schemas: { path: z.object({ conversation_id: resourceIdParam }) } }, async ({ path }, context) => {
  const { record, role } = await restoreResource('conversation', path.conversation_id, context.caller.userId, (reads) =>
    alongsideRateLimit(context, reads),
  );
  return presentResource('conversation', record, role);
});
