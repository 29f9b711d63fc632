import { queryAll } from './client.ts';
import { monthSpendPrefix, spendMemberOf } from './keys.ts';

/** What an organization and each of its members spent in one UTC month (the limits' counters). */
export interface MonthSpend {
  /** "2026-11" */
  month: string;
  organization: number;
  /** By user id; a member who spent nothing this month is absent. */
  members: Map<string, number>;
}

/**
 * The month's spend counters, written by charges and refunds (lib/db/credits.ts): one Query on
 * the organization's partition, consistent. A counter never written reads as 0.
 */
export async function readMonthSpend(orgId: string, month: string): Promise<MonthSpend> {
  const { PK, skPrefix } = monthSpendPrefix(orgId, month);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': PK, ':prefix': skPrefix },
    ProjectionExpression: 'SK, spent',
    ConsistentRead: true,
  });
  const spend: MonthSpend = { month, organization: 0, members: new Map() };
  for (const item of items) {
    const member = spendMemberOf(String(item.SK), month);
    const spent = Number(item.spent ?? 0);
    if (member === null) spend.organization = spent;
    else spend.members.set(member, spent);
  }
  return spend;
}
