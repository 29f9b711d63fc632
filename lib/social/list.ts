import { notAMember } from '../db/credits.ts';
import { getMembership } from '../db/memberships.ts';
import { getOrganization } from '../db/organizations.ts';
import { alongsideRateLimit } from '../http/rate-limit.ts';
import type { ServiceContext } from '../http/types.ts';
import { descriptor, type OperationDescriptor, operationsOfNetworks } from './catalog/index.ts';
import { socialProvider } from './providers/index.ts';

/**
 * The operations this organization can run: those of its enabled networks (and the
 * cross-network ones) that the configured provider serves, in catalog order. Any member may
 * list; one round trip (organization and membership read alongside the rate-limit counter).
 */
export async function listSocialOperations(context: ServiceContext, orgId: string): Promise<{ operations: OperationDescriptor[] }> {
  const [org, membership] = await alongsideRateLimit(
    context,
    Promise.all([getOrganization(orgId), getMembership(orgId, context.caller.userId)]),
  );
  if (!org || !membership) throw notAMember();
  const provider = socialProvider();
  return {
    operations: operationsOfNetworks(org.networks)
      .filter((operation) => provider.serves(operation.name))
      .map(descriptor),
  };
}
