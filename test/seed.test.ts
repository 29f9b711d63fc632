/**
 * The demo workspace of `npm start` is written through the service's own charge, refund and
 * grant: its month spend counters agree with its billing events, and its balance with their sum.
 */
import { describe, expect, it } from 'vitest';
import { listBillingEventsPage } from '../lib/db/billing-events.ts';
import { getOrganization } from '../lib/db/organizations.ts';
import { readMonthSpend } from '../lib/db/spend.ts';
import { DEMO, seedDemoWorkspace } from '../lib/local/seed.ts';

describe('the demo seed', () => {
  it('writes the spend counters of its charges and refunds, per month and per member', async () => {
    expect(await seedDemoWorkspace()).not.toBeNull();
    const { events } = await listBillingEventsPage(DEMO.orgId, { since: new Date(Date.now() - 60 * 86_400_000), until: new Date() }, 100);
    const org = await getOrganization(DEMO.orgId);

    // What the events say each month's counters must hold: charges less refunds, by member.
    const expected = new Map<string, { organization: number; members: Map<string, number> }>();
    for (const event of events.filter((candidate) => candidate.type.startsWith('social_operation.'))) {
      const month = event.created_at.slice(0, 7);
      const member = Object.values(DEMO.users).find((user) => event.description.includes(user))!;
      const entry = expected.get(month) ?? { organization: 0, members: new Map() };
      entry.organization -= event.amount;
      entry.members.set(member, (entry.members.get(member) ?? 0) - event.amount);
      expected.set(month, entry);
    }

    expect(events.map((event) => event.type).sort()).toEqual([
      'credits.granted',
      'credits.granted',
      'social_operation.charged',
      'social_operation.charged',
      'social_operation.charged',
      'social_operation.refunded',
    ]);
    for (const [month, counters] of expected) {
      const stored = await readMonthSpend(DEMO.orgId, new Date(`${month}-15T00:00:00Z`));
      const monthOf = (spend: { month: number }) => spend.month;
      expect(
        { organization: stored.organization.month, members: Object.fromEntries([...stored.members].map(([id, s]) => [id, monthOf(s)])) },
        month,
      ).toEqual({
        organization: counters.organization,
        members: Object.fromEntries(counters.members),
      });
    }
    expect(org!.credits).toBe(events.reduce((sum, event) => sum + event.amount, 0));
  });
});
