/**
 * A capped job's budget (docs/jobs.md, "A cap on the whole job"): `budget_spent` on the job
 * item, what its items' charges hold against its `max_credits`. Written only inside the charge
 * and refund transactions of its items (lib/billing/paid-run.ts); a module of its own, apart from
 * lib/db/jobs.ts, so that the run path bundles these few builders and not the job machinery.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, type TransactItem, tableName } from './client.ts';
import { jobKey } from './keys.ts';

/**
 * A job's item charged `cost` against the job's `max_credits`: added to `budget_spent` only while
 * it holds at most `maxCredits - cost` (a condition cannot add), so that concurrent items never
 * take the job past its cap. Refused, it returns the job as it was (what is left, for the 402).
 * An item of the charge transaction (lib/billing/paid-run.ts).
 */
export const jobBudgetCharge = (jobId: string, cost: number, maxCredits: number): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: jobKey(jobId),
    UpdateExpression: 'ADD budget_spent :cost',
    ConditionExpression: 'budget_spent <= :ceiling',
    ExpressionAttributeValues: { ':cost': cost, ':ceiling': maxCredits - cost },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  },
});

/**
 * A refunded item's cost given back to its job's budget, in the refund's transaction. Not
 * conditional: a refund must never fail for its job's sake (a job is never deleted).
 */
export const jobBudgetRefund = (jobId: string, cost: number): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: jobKey(jobId),
    UpdateExpression: 'ADD budget_spent :refund',
    ExpressionAttributeValues: { ':refund': -cost },
  },
});

/** What a capped job's charges hold against its cap, as stored or as a refused charge returns it. */
export const budgetSpentOf = (item: Record<string, unknown>): number => Number(item.budget_spent ?? 0);

/** A capped job's budget as stored (a refusal path: the charge's transaction holds the cap by itself). */
export async function getJobBudgetSpent(jobId: string): Promise<number> {
  const { Item: item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: jobKey(jobId), ConsistentRead: true, ProjectionExpression: 'budget_spent' }),
  );
  return budgetSpentOf(item ?? {});
}
