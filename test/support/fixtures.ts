import { randomUUID } from 'node:crypto';
import { createOrganization } from '../../lib/db/organizations.ts';
import type { Network, Role } from '../../lib/model.ts';

export const uniqueId = (prefix: string) => `${prefix}${randomUUID().replaceAll('-', '').slice(0, 12)}`;

/** A fresh organization with one member per requested role (user ids unique to this call). */
export async function workspace(options: { credits?: number; networks?: Network[]; spendingLimit?: number | null; roles?: Role[] } = {}) {
  const orgId = uniqueId('org_');
  const users = { owner: uniqueId('owner_'), editor: uniqueId('editor_'), viewer: uniqueId('viewer_') };
  const members = (options.roles ?? (['owner', 'editor', 'viewer'] as const)).map((role) => ({ userId: users[role], role }));
  // With its members in the organization's own transaction: one round trip where four were.
  await createOrganization({
    id: orgId,
    credits: options.credits ?? 0,
    networks: options.networks,
    spendingLimit: options.spendingLimit ?? null,
    members,
  });
  return { orgId, users };
}
