import { randomUUID } from 'node:crypto';
import { addMembership } from '../../lib/db/memberships.ts';
import { createOrganization } from '../../lib/db/organizations.ts';
import type { Network, Role } from '../../lib/model.ts';

export const uniqueId = (prefix: string) => `${prefix}${randomUUID().replaceAll('-', '').slice(0, 12)}`;

/** A fresh organization with one member per requested role (user ids unique to this call). */
export async function workspace(options: { credits?: number; networks?: Network[]; spendingLimit?: number | null; roles?: Role[] } = {}) {
  const orgId = uniqueId('org_');
  await createOrganization({
    id: orgId,
    credits: options.credits ?? 0,
    networks: options.networks,
    spendingLimit: options.spendingLimit ?? null,
  });
  const users = { owner: uniqueId('owner_'), editor: uniqueId('editor_'), viewer: uniqueId('viewer_') };
  for (const role of options.roles ?? (['owner', 'editor', 'viewer'] as const)) {
    await addMembership({ orgId, userId: users[role], role });
  }
  return { orgId, users };
}
