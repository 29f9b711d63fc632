import * as z from 'zod/mini';
import { boundedMemo } from '../lib/bounded-memo.ts';
import { endpoint, JsonText } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import { NETWORKS } from '../lib/model.ts';
import type { OperationDescriptor } from '../lib/social/catalog/descriptors.ts';
import { OPERATION_NAMES } from '../lib/social/catalog/names.ts';
import { listingKey, listSocialOperations } from '../lib/social/list.ts';

/**
 * Listings already serialized, by the operations they list. The descriptors are fixed for the
 * life of an instance, so a listing is a function of its operation names: an instance serializes
 * each listing (up to ~170 KB of JSON Schemas, ~2 ms) once per set of enabled networks instead
 * of once per request (docs/performance.md). Bounded: there are 2^7 sets of networks at most.
 */
const listings = boundedMemo<JsonText>(32);

const serializedListing = (listing: { operations: readonly OperationDescriptor[] }): JsonText =>
  listings(listingKey(listing.operations), () => new JsonText(JSON.stringify(listing)));

/** GET /social/operations?organization_id= — any member; the operations this workspace can run. */
export const handler = endpoint({ schemas: { query: z.object({ organization_id: organizationId }) } }, async ({ query }, context) =>
  serializedListing(await listSocialOperations(context.caller, query.organization_id)),
);

const jsonSchema = z.record(z.string(), z.unknown());

/** The 200 body, for the API description. */
export const responseSchema = z.object({
  operations: z.array(
    z.object({
      name: z.enum(OPERATION_NAMES),
      network: z.optional(z.enum(NETWORKS)),
      description: z.string(),
      cost: z.int().register(z.globalRegistry, { description: 'credits a run costs (refunded if the provider fails)' }),
      cached_cost: z.int().register(z.globalRegistry, {
        description: "credits a run answered from this organization's cached result costs (`Cache-Control: max-age`)",
      }),
      input_schema: jsonSchema,
      output_schema: jsonSchema,
    }),
  ),
});
