import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import { NETWORKS } from '../lib/model.ts';
import { OPERATION_NAMES } from '../lib/social/catalog/names.ts';
import { listSocialOperations } from '../lib/social/list.ts';

/** GET /social/operations?organization_id= — any member; the operations this workspace can run. */
export const handler = endpoint({ schemas: { query: z.object({ organization_id: organizationId }) } }, async ({ query }, context) =>
  listSocialOperations(context.caller, query.organization_id),
);

const jsonSchema = z.record(z.string(), z.unknown());

/** The 200 body, for the API description. */
export const responseSchema = z.object({
  operations: z.array(
    z.object({
      name: z.enum(OPERATION_NAMES),
      network: z.optional(z.enum(NETWORKS)),
      description: z.string(),
      input_schema: jsonSchema,
      output_schema: jsonSchema,
    }),
  ),
});
