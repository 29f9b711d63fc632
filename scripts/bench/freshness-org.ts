/** The organization `npm run bench:usage-freshness` runs in, and the times of its charges as stored. */
import { randomBytes } from 'node:crypto';
import { queryAll } from '../../lib/db/client.ts';
import { billingEventsPrefix } from '../../lib/db/keys.ts';
import { addMembership } from '../../lib/db/memberships.ts';
import { createOrganization } from '../../lib/db/organizations.ts';

export async function freshnessOrganization(editors: number) {
  const orgId = `org_fresh_${randomBytes(6).toString('hex')}`;
  await createOrganization({ id: orgId, credits: 1_000_000 });
  const owner = `user_fresh_owner_${randomBytes(4).toString('hex')}`;
  await addMembership({ orgId, userId: owner, role: 'owner' });
  const ids = Array.from({ length: editors }, (_, i) => `user_fresh_${i}_${randomBytes(4).toString('hex')}`);
  await Promise.all(ids.map((userId) => addMembership({ orgId, userId, role: 'editor' })));
  return { orgId, owner, editors: ids };
}

/** Each charge of `orgId`: its id (a run's Charge-Id) and when it was made, its billing event's `created_at` in epoch ms. */
export async function charges(orgId: string): Promise<{ id: string; atMs: number }[]> {
  const events = billingEventsPrefix(orgId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :event)',
    ExpressionAttributeValues: { ':pk': events.PK, ':event': events.skPrefix },
  });
  return items
    .filter((item) => item.type === 'social_operation.charged')
    .map((item) => ({ id: String(item.id), atMs: Date.parse(String(item.created_at)) }));
}
