import { membershipOfCaller } from '../auth/access.ts';
import { getOrganization } from '../db/organizations.ts';
import { notAMember } from '../errors.ts';
import type { Caller } from '../model.ts';
import { allDescriptors, type OperationDescriptor } from './catalog/descriptors.ts';
import { isEnabled } from './enabled.ts';
import { providerIdentity, servedByProvider } from './providers/index.ts';

/** A descriptor as listed: whether this deployment's provider serves it. */
export interface ListedOperation extends OperationDescriptor {
  /** false: the provider has no such operation here, and a run answers 403 `operation_not_enabled`. */
  available: boolean;
}

export interface OperationListing {
  /** This deployment's social data provider, and whether its answers are generated sample data. */
  provider: { name: string; sample_data: boolean };
  operations: ListedOperation[];
}

/** Each descriptor as listed, built once per instance and availability (the listing's objects are shared). */
const listed = new Map<string, ListedOperation>();

function listedOperation(descriptor: OperationDescriptor, available: boolean): ListedOperation {
  const key = `${descriptor.name}:${available}`;
  let operation = listed.get(key);
  if (!operation) {
    const { input_schema, output_schema, ...head } = descriptor;
    // `available` beside the cost, before the long schemas: where a reader of the JSON looks.
    operation = { ...head, available, input_schema, output_schema };
    listed.set(key, operation);
  }
  return operation;
}

/**
 * The operations this organization can run: those of its enabled networks (and the
 * cross-network ones) that the configured provider serves, in catalog order, each `available`.
 * With `includeUnavailable`, also those of its networks the provider does not serve, marked
 * `available: false`, so that a client learns what this deployment lacks without a 403. Any
 * member may list; one round trip (organization and membership, read together).
 */
export async function listSocialOperations(
  caller: Caller,
  orgId: string,
  options: { includeUnavailable?: boolean } = {},
): Promise<OperationListing> {
  const [org, membership] = await Promise.all([getOrganization(orgId), membershipOfCaller(caller, orgId)]);
  if (!org || !membership) throw notAMember();
  const operations: ListedOperation[] = [];
  // The descriptors generated at build time, not the catalog's definitions: this function
  // bundles no zod schema (docs/social-operations.md, "Descriptors are generated at build time").
  for (const descriptor of allDescriptors().values()) {
    if (!isEnabled(descriptor, org.networks, () => true)) continue;
    const available = servedByProvider(descriptor.name);
    if (available || options.includeUnavailable) operations.push(listedOperation(descriptor, available));
  }
  const { displayName, sampleData } = providerIdentity();
  return { provider: { name: displayName, sample_data: sampleData }, operations };
}

/** What a listing depends on, as a cache key: the operations it lists, in order, and which are available. */
export const listingKey = (operations: readonly { name: string; available: boolean }[]): string =>
  operations.map((operation) => (operation.available ? operation.name : `${operation.name}?`)).join(',');
