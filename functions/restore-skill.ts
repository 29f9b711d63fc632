import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { resourceIdParam } from '../lib/http/params.ts';
import { presentResource } from '../lib/resources/model.ts';
import { restoreResource } from '../lib/resources/restore.ts';
import { resourceSchema } from '../lib/resources/schemas.ts';

/** POST /skills/{skill_id}/restore — brings back a soft-deleted skill (docs/restore.md). The skill comes wrapped: `{ "skill": … }`. */
export const handler = endpoint({ schemas: { path: z.object({ skill_id: resourceIdParam }) } }, async ({ path }, context) => {
  const { record, role } = await restoreResource('skill', path.skill_id, context.caller);
  return { skill: presentResource('skill', record, role) };
});

/** The 200 body, for the API description. */
export const responseSchema = z.object({ skill: resourceSchema('skill') });
