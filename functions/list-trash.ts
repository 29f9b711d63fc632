import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { integerParam, organizationId, pageCursor } from '../lib/http/params.ts';
import { RESOURCE_KINDS } from '../lib/model.ts';
import { listTrash } from '../lib/workspace/trash.ts';

/** The 200 body (for the OpenAPI document). */
export const responseSchema = z.object({
  items: z.array(
    z.object({
      kind: z.enum(RESOURCE_KINDS),
      id: z.string(),
      title: z.nullable(z.string()),
      deleted_at: z.iso.datetime(),
      deleted_by_id: z.nullable(z.string()),
      restore_until: z.iso.datetime(),
    }),
  ),
  next_cursor: z.nullable(z.string()),
  has_more: z.boolean(),
});

/** GET /organizations/{organization_id}/trash — editors and owners; viewers 403; anyone else 404. */
export const handler = endpoint(
  {
    schemas: {
      path: z.object({ organization_id: organizationId }),
      query: z.object({
        kind: z.optional(z.enum(RESOURCE_KINDS, { error: 'must be one of asset, skill, conversation, project' })),
        limit: integerParam(1, 100, 25),
        cursor: z.optional(pageCursor),
      }),
    },
  },
  async ({ path, query }, context) => listTrash(context.caller, path.organization_id, query),
);
