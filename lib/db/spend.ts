import { queryAll } from './client.ts';
import { NO_SPEND, type PeriodSpend, periodSpendOf, spentNet } from './credits.ts';
import { daySpentAttribute, monthSpendPrefix, spendDay, spendMemberOf, spendMonth } from './keys.ts';
import { hasLanes, type Lane, readLanes } from './lanes.ts';

/** What an organization and each of its members spent in one UTC month and on one of its days (the limits' counters). */
export interface MonthSpend {
  /** "2026-11" */
  month: string;
  /** "2026-11-17" */
  day: string;
  organization: PeriodSpend;
  /** By user id (or API key id); one who spent nothing this month is absent. */
  members: Map<string, PeriodSpend>;
}

/**
 * The spend counters of `now`'s UTC month and day, written by charges and refunds
 * (lib/db/credits.ts): one Query on the organization's partition, consistent. A counter never
 * written reads as 0. A hot organization's counters count what its credit lanes hold as spent
 * (lib/db/lanes.ts): one more Query of its lanes, subtracted from each scope's counter.
 */
export async function readMonthSpend(orgId: string, now: Date): Promise<MonthSpend> {
  const month = spendMonth(now);
  const day = spendDay(now);
  const { PK, skPrefix } = monthSpendPrefix(orgId, month);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': PK, ':prefix': skPrefix },
    ProjectionExpression: 'SK, #spent, #day, lanes',
    ExpressionAttributeNames: { '#spent': 'spent', '#day': daySpentAttribute(day) },
    ConsistentRead: true,
  });
  const lanes: Lane[] = items.some(hasLanes) ? await readLanes(orgId) : [];
  const spend: MonthSpend = { month, day, organization: NO_SPEND, members: new Map() };
  for (const item of items) {
    const member = spendMemberOf(String(item.SK), month);
    const own = member === null ? lanes : lanes.filter((lane) => lane.payer === member);
    const spent = hasLanes(item) ? spentNet(item, own, day) : periodSpendOf(item, day);
    if (member === null) spend.organization = spent;
    else spend.members.set(member, spent);
  }
  return spend;
}
