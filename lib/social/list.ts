import { membershipOfCaller } from '../auth/access.ts';
import { getOrganization, type Organization } from '../db/organizations.ts';
import { notAMember } from '../errors.ts';
import type { Caller } from '../model.ts';
import { allDescriptors, type OperationDescriptor } from './catalog/descriptors.ts';
import { isEnabled } from './enabled.ts';
import type { Status } from './health/state.ts';
import { statusPage } from './health/status.ts';
import { providerIdentity, providersFor } from './providers/index.ts';

/** A descriptor as listed: whether a provider of this deployment serves it, and which. */
export interface ListedOperation extends OperationDescriptor {
  /** false: no provider has such an operation here, and a run answers 403 `operation_not_enabled`. */
  available: boolean;
  /** The provider that serves it first (its primary; failover order on `GET /social/status`), or null when none does. */
  provider: string | null;
  /** With `include=health`: its status, the word `GET /social/status` gives it. */
  status?: Status;
}

export interface OperationListing {
  /** This deployment's social data provider, and whether its answers are generated sample data. */
  provider: { name: string; sample_data: boolean };
  operations: ListedOperation[];
}

/** Each descriptor as listed, built once per instance and availability (the listing's objects are shared). */
const listed = new Map<string, ListedOperation>();

function listedOperation(descriptor: OperationDescriptor): ListedOperation {
  let operation = listed.get(descriptor.name);
  if (!operation) {
    const { input_schema, output_schema, ...head } = descriptor;
    const primary = providersFor(descriptor.name)[0];
    // `available` and `provider` beside the cost, before the long schemas: where a reader of the JSON looks.
    operation = { ...head, available: primary !== undefined, provider: primary?.displayName ?? null, input_schema, output_schema };
    listed.set(descriptor.name, operation);
  }
  return operation;
}

/** The listed operation with its status, placed after `provider` (a new object: the listed ones are shared). */
function withStatus(operation: ListedOperation, status: Status): ListedOperation {
  const { input_schema, output_schema, ...head } = operation;
  return { ...head, status, input_schema, output_schema };
}

/**
 * The operations this organization can run: those of its enabled networks (and the
 * cross-network ones) that the configured provider serves, in catalog order, each `available`.
 * With `includeUnavailable`, also those of its networks the provider does not serve, marked
 * `available: false`, so that a client learns what this deployment lacks without a 403. With
 * `includeHealth`, each with its `status` from the status page (one Query for them all, at most
 * every 15 s per instance, read beside the organization). Any member may list; one round trip
 * (organization and membership, read together, and the health with them).
 */
export async function listSocialOperations(
  caller: Caller,
  orgId: string,
  options: { includeUnavailable?: boolean; includeHealth?: boolean } = {},
): Promise<OperationListing> {
  return (await listingAndOrganization(caller, orgId, options)).listing;
}

/** The listing, and the organization it was read with (the MCP listing names its consent threshold). */
export async function listingAndOrganization(
  caller: Caller,
  orgId: string,
  options: { includeUnavailable?: boolean; includeHealth?: boolean } = {},
): Promise<{ listing: OperationListing; org: Organization }> {
  const [org, membership, page] = await Promise.all([
    getOrganization(orgId),
    membershipOfCaller(caller, orgId),
    options.includeHealth ? statusPage() : undefined,
  ]);
  if (!org || !membership) throw notAMember();
  const statuses = new Map(page?.operations.map((entry) => [entry.operation, entry.status]));
  const operations: ListedOperation[] = [];
  // The descriptors generated at build time, not the catalog's definitions: this function
  // bundles no zod schema (docs/social-operations.md, "Descriptors are generated at build time").
  for (const descriptor of allDescriptors().values()) {
    if (!isEnabled(descriptor, org.networks, () => true)) continue;
    const operation = listedOperation(descriptor);
    if (!operation.available && !options.includeUnavailable) continue;
    const status = statuses.get(descriptor.name);
    operations.push(status ? withStatus(operation, status) : operation);
  }
  const { displayName, sampleData } = providerIdentity();
  return { listing: { provider: { name: displayName, sample_data: sampleData }, operations }, org };
}

/** What a listing depends on, as a cache key: the operations it lists, in order, and which are available. */
export const listingKey = (operations: readonly { name: string; available: boolean }[]): string =>
  operations.map((operation) => (operation.available ? operation.name : `${operation.name}?`)).join(',');
