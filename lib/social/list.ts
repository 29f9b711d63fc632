import { socialConfig } from '../config.ts';
import { getMembership } from '../db/memberships.ts';
import { getOrganization } from '../db/organizations.ts';
import { notAMember } from '../errors.ts';
import type { Caller } from '../model.ts';
import { descriptor, type OperationDescriptor, operationsOfNetworks } from './catalog/index.ts';
import { isEnabled } from './operations.ts';
import { serves } from './providers/served.ts';

/**
 * The operations this organization can run: those of its enabled networks (and the
 * cross-network ones) that the configured provider serves, in catalog order. Any member may
 * list; one round trip (organization and membership, read together).
 */
export async function listSocialOperations(caller: Caller, orgId: string): Promise<{ operations: OperationDescriptor[] }> {
  const [org, membership] = await Promise.all([getOrganization(orgId), getMembership(orgId, caller.userId)]);
  if (!org || !membership) throw notAMember();
  // Not socialProvider(): the listing needs only the served names, not a provider's code.
  const provider = socialConfig().provider;
  return {
    operations: operationsOfNetworks(org.networks)
      .filter((operation) => isEnabled(operation, org.networks, (name) => serves(provider, name)))
      .map(descriptor),
  };
}
