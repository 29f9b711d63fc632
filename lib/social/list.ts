import { membershipOfCaller } from '../auth/access.ts';
import { getOrganization } from '../db/organizations.ts';
import { notAMember } from '../errors.ts';
import type { Caller } from '../model.ts';
import { allDescriptors, type OperationDescriptor } from './catalog/descriptors.ts';
import { isEnabled } from './enabled.ts';
import { servedByProvider } from './providers/index.ts';

/**
 * The operations this organization can run: those of its enabled networks (and the
 * cross-network ones) that the configured provider serves, in catalog order. Any member may
 * list; one round trip (organization and membership, read together).
 */
export async function listSocialOperations(caller: Caller, orgId: string): Promise<{ operations: OperationDescriptor[] }> {
  const [org, membership] = await Promise.all([getOrganization(orgId), membershipOfCaller(caller, orgId)]);
  if (!org || !membership) throw notAMember();
  // The descriptors generated at build time, not the catalog's definitions: this function
  // bundles no zod schema (docs/social-operations.md, "Descriptors are generated at build time").
  return {
    operations: [...allDescriptors().values()].filter((operation) => isEnabled(operation, org.networks, servedByProvider)),
  };
}

/** What a listing depends on, as a cache key: the names of the operations it lists, in order. */
export const listingKey = (operations: readonly { name: string }[]): string => operations.map((operation) => operation.name).join(',');
