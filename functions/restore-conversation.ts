import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { resourceIdParam } from '../lib/http/params.ts';
import { presentResource } from '../lib/resources/model.ts';
import { restoreResource } from '../lib/resources/restore.ts';
import { resourceSchema } from '../lib/resources/schemas.ts';

/** POST /conversations/{conversation_id}/restore — brings back a soft-deleted conversation (docs/restore.md). */
export const handler = endpoint({ schemas: { path: z.object({ conversation_id: resourceIdParam }) } }, async ({ path }, context) => {
  const { record, role } = await restoreResource('conversation', path.conversation_id, context.caller);
  return presentResource('conversation', record, role);
});

/** The 200 body, for the API description. */
export const responseSchema = resourceSchema('conversation');
