import { randomUUID } from 'node:crypto';
import { operatorSource } from '../../lib/db/audit-events.ts';
import { batchWriteAll } from '../../lib/db/client.ts';
import { newOrganizationItems } from '../../lib/db/organizations.ts';
import { defined } from '../../lib/defined.ts';
import type { Network, Role } from '../../lib/model.ts';

/** Who a test's direct changes are made by, in their audit events (an operator, as the admin CLI's are). */
export const TEST_OPERATOR = operatorSource('test-operator');

export const uniqueId = (prefix: string) => `${prefix}${randomUUID().replaceAll('-', '').slice(0, 12)}`;

/** A fresh organization with one member per requested role (user ids unique to this call). */
export async function workspace(options: { credits?: number; networks?: Network[]; spendingLimit?: number | null; roles?: Role[] } = {}) {
  const orgId = uniqueId('org_');
  const users = { owner: uniqueId('owner_'), editor: uniqueId('editor_'), viewer: uniqueId('viewer_') };
  const members = (options.roles ?? (['owner', 'editor', 'viewer'] as const)).map((role) => ({ userId: users[role], role }));
  const { items } = newOrganizationItems({
    id: orgId,
    credits: options.credits ?? 0,
    networks: options.networks,
    spendingLimit: options.spendingLimit ?? null,
    members,
  });
  // The items createOrganization writes, in one batch rather than its transaction: the ids are new,
  // so its conditions hold, and nothing reads the organization before this returns. A transaction
  // of six puts costs DynamoDB Local about 2.5 times a batch of them, and the suite makes a
  // thousand workspaces (test/workspace/members.test.ts and the admin CLI's tests cover the transaction).
  await batchWriteAll(
    items.map(({ Put }) => defined(Put?.Item, 'a new organization item')),
    'workspace() items',
  );
  return { orgId, users };
}
