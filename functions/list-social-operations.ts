import * as z from 'zod/mini';
import { boundedMemo } from '../lib/bounded-memo.ts';
import { endpoint, JsonText } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import { NETWORKS } from '../lib/model.ts';
import { OPERATION_NAMES } from '../lib/social/catalog/names.ts';
import { STATUSES } from '../lib/social/health/state.ts';
import { listingKey, listSocialOperations, type OperationListing } from '../lib/social/list.ts';

/**
 * Listings already serialized, by the operations they list. The descriptors are fixed for the
 * life of an instance, so a listing is a function of its operation names: an instance serializes
 * each listing (up to ~170 KB of JSON Schemas, ~2 ms) once per set of enabled networks (and
 * `include`) instead of once per request (docs/performance.md). Bounded: there are 2^7 sets of
 * networks at most. The provider is the instance's: the same in every listing it serves.
 */
const listings = boundedMemo<JsonText>(32);

const serializedListing = (listing: OperationListing): JsonText =>
  listings(listingKey(listing.operations), () => new JsonText(JSON.stringify(listing)));

const query = z.object({
  organization_id: organizationId,
  include: z.optional(
    z
      .string()
      .check(
        z.maxLength(32, 'must be "unavailable", "health" or "unavailable,health"'),
        z.regex(/^(unavailable|health)(,(unavailable|health))?$/, 'must be "unavailable", "health" or "unavailable,health"'),
      )
      .register(z.globalRegistry, {
        description:
          "comma-separated. `unavailable`: also list the operations of the organization's networks that no provider of this deployment serves, with `available: false`. `health`: add each operation's `status`, as `GET /social/status` gives it",
      }),
  ),
});

/**
 * GET /social/operations?organization_id=[&include=unavailable,health] — any member; the
 * operations this workspace can run, or with `include=unavailable` also those its deployment's
 * providers lack; with `include=health`, each one's status (serialized per request: it changes).
 */
export const handler = endpoint({ schemas: { query } }, async ({ query }, context) => {
  const include = new Set(query.include?.split(','));
  const listing = await listSocialOperations(context.caller, query.organization_id, {
    includeUnavailable: include.has('unavailable'),
    includeHealth: include.has('health'),
  });
  return include.has('health') ? new JsonText(JSON.stringify(listing)) : serializedListing(listing);
});

const jsonSchema = z.record(z.string(), z.unknown());

/** The 200 body, for the API description. */
export const responseSchema = z.object({
  provider: z.object({
    name: z.string().register(z.globalRegistry, {
      description:
        "this deployment's social data providers, in failover order: `ScrapeCreators`, `ScrapeCreators + TikHub`, `ScrapeCreators + TikHub + Facebook Scraper3` (all 52 operations), or `sample` (generated data, for local and trial stacks)",
    }),
    sample_data: z.boolean().register(z.globalRegistry, {
      description: 'true when runs answer generated sample data (`Sample-Data: true` on each run), never real accounts',
    }),
  }),
  operations: z.array(
    z.object({
      name: z.enum(OPERATION_NAMES),
      network: z.optional(z.enum(NETWORKS)),
      description: z.string(),
      cost: z.int().register(z.globalRegistry, { description: 'credits a run costs (refunded if the provider fails)' }),
      cached_cost: z.int().register(z.globalRegistry, {
        description: "credits a run answered from this organization's cached result costs (`Cache-Control: max-age`)",
      }),
      available: z.boolean().register(z.globalRegistry, {
        description:
          'whether a provider of this deployment serves the operation; false (listed with `include=unavailable` only): a run answers 403 `operation_not_enabled`',
      }),
      provider: z.nullable(z.string()).register(z.globalRegistry, {
        description:
          'the provider that serves it first (`ScrapeCreators`, `TikHub`, `Facebook Scraper3`, `sample`); the others, in failover order, on `GET /social/status`. null when none serves it here',
      }),
      status: z.optional(z.enum(STATUSES)).register(z.globalRegistry, {
        description: 'with `include=health` only: its status, the word `GET /social/status` gives it',
      }),
      input_schema: jsonSchema,
      output_schema: jsonSchema,
    }),
  ),
});
