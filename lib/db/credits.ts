/**
 * The credit items of the table: the organization's balance, its monthly spend counters and the
 * member's. Item builders and single reads only: which items go into one charge or refund
 * transaction is decided by the money module (lib/billing/paid-run.ts).
 *
 * DynamoDB conditions cannot do arithmetic, so a limit is checked as `spent <= limit - cost`
 * with `limit` read beforehand; the charge also requires the limit attribute to still hold the
 * value read, so a limit lowered in between makes the charge re-read instead of overspending.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { RUNNER_ROLES } from '../model.ts';
import { db, queryAll, type TransactItem, tableName } from './client.ts';
import { memberSpendKey, memberSpendPrefix, membershipKey, orgKey, orgSpendKey } from './keys.ts';
import type { TableKey } from './table.ts';

/** Spend counters are kept for reporting a little over a year after their month. */
const SPEND_RETENTION_SECONDS = 400 * 86_400;

/** A new charge id: also the charge event's id and the key of the run's pending record. */
export const newChargeId = (): string => `evt_${randomUUID()}`;

/** The condition that a spending-limit attribute still holds the value read (or is still unset). */
export function limitUnchanged(limit: number | null): { condition: string; values: Record<string, unknown> } {
  return limit === null
    ? { condition: '(attribute_not_exists(spending_limit) OR attribute_type(spending_limit, :null))', values: { ':null': 'NULL' } }
    : { condition: 'spending_limit = :limit', values: { ':limit': limit } };
}

/**
 * Takes `cost` off the balance if the organization exists, has that much, still has the
 * spending limit read and (for a network's operation) still has the network enabled. Returns
 * the stored item when a condition fails, so the refusal can say what it found.
 */
export function debitItem(orgId: string, cost: number, limit: number | null, network: string | undefined): TransactItem {
  const orgLimit = limitUnchanged(limit);
  const conditions = ['attribute_exists(PK)', 'credits >= :cost', orgLimit.condition];
  const values: Record<string, unknown> = { ':cost': cost, ...orgLimit.values };
  if (network !== undefined) {
    conditions.push('contains(networks, :network)');
    values[':network'] = network;
  }
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(orgId),
      UpdateExpression: 'SET credits = credits - :cost',
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** Gives `amount` back to the balance (a refund), if the organization still exists. */
export function creditItem(orgId: string, amount: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(orgId),
      UpdateExpression: 'SET credits = credits + :amount',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':amount': amount },
    },
  };
}

/** The member exists, may run operations and still has the spending limit read (the stored item on failure). */
export function memberMayPayItem(orgId: string, userId: string, limit: number | null): TransactItem {
  const memberLimit = limitUnchanged(limit);
  const roleValues = Object.fromEntries(RUNNER_ROLES.map((role, i) => [`:role${i}`, role]));
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: membershipKey(orgId, userId),
      ConditionExpression: ['attribute_exists(PK)', `#role IN (${Object.keys(roleValues).join(', ')})`, memberLimit.condition].join(
        ' AND ',
      ),
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ...roleValues, ...memberLimit.values },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * Adds `amount` (negative for a refund) to a month's spend counter. With `max`, only while the
 * counter holds at most `max` before the addition (the limit minus the cost); on a refusal the
 * stored counter comes back, so a 402 can report how much was spent.
 */
function spendItem(key: TableKey, amount: number, month: string, max: number | null): TransactItem {
  const expires = Math.floor(Date.parse(`${month}-01T00:00:00Z`) / 1000) + SPEND_RETENTION_SECONDS;
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD #spent :amount SET expires_at = if_not_exists(expires_at, :expires)',
      ExpressionAttributeNames: { '#spent': 'spent' },
      ExpressionAttributeValues: { ':amount': amount, ':expires': expires, ...(max === null ? {} : { ':max': max }) },
      ...(max === null
        ? {}
        : { ConditionExpression: 'attribute_not_exists(#spent) OR #spent <= :max', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    },
  };
}

/** The organization's spend counter of `month`. */
export const orgSpendItem = (orgId: string, amount: number, month: string, max: number | null): TransactItem =>
  spendItem(orgSpendKey(orgId, month), amount, month, max);

/** One member's spend counter of `month`. */
export const memberSpendItem = (orgId: string, userId: string, amount: number, month: string, max: number | null): TransactItem =>
  spendItem(memberSpendKey(orgId, userId, month), amount, month, max);

/** Credits spent in `month` by the organization and by one member (0 for a month without charges). */
export async function readSpend(orgId: string, userId: string, month: string): Promise<{ org: number; member: number }> {
  const spentAt = async (key: TableKey) => {
    const result = await db().send(
      new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true, ProjectionExpression: 'spent' }),
    );
    return Number(result.Item?.spent ?? 0);
  };
  const [org, member] = await Promise.all([spentAt(orgSpendKey(orgId, month)), spentAt(memberSpendKey(orgId, userId, month))]);
  return { org, member };
}

/** What every member of an organization spent in `month`, by user id (one Query on its partition). */
export async function readMembersSpend(orgId: string, month: string): Promise<Map<string, number>> {
  const prefix = memberSpendPrefix(orgId, month);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.skPrefix },
    ProjectionExpression: 'SK, spent',
    ConsistentRead: true,
  });
  return new Map(items.map((item) => [String(item.SK).slice(prefix.skPrefix.length), Number(item.spent ?? 0)]));
}
