import { socialConfig } from '../config.ts';
import { notAMember } from '../db/credits.ts';
import { getMembership } from '../db/memberships.ts';
import { getOrganization } from '../db/organizations.ts';
import { alongsideRateLimit } from '../http/rate-limit.ts';
import type { ServiceContext } from '../http/types.ts';
import { descriptorsOfNetworks, type OperationDescriptor } from './catalog/descriptors.ts';
import { serves } from './providers/served.ts';

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
  // Not socialProvider(): the listing needs only the served names, not a provider's code.
  const provider = socialConfig().provider;
  return { operations: descriptorsOfNetworks(org.networks).filter((operation) => serves(provider, operation.name)) };
}
