/**
 * Usage as the route answers it, and as the billing events say it must be: the two sides of
 * every exactness check (the sum of `net` is minus the sum of the `social_operation.*` events'
 * amounts, per payer, per bucket).
 */
import { expect } from 'vitest';
import { handler } from '../../functions/get-usage.ts';
import { queryAll } from '../../lib/db/client.ts';
import { call } from './http.ts';
import { tokenFor } from './tokens.ts';

export interface Totals {
  runs: number;
  charged: number;
  refunded: number;
}

/** Per `<bucket start> <payer>`: what the billing events of [fromMs, toMs) add up to. */
export async function totalsFromEvents(
  orgId: string,
  fromMs: number,
  toMs: number,
  granularity: 'hour' | 'day',
): Promise<Map<string, Totals>> {
  const step = granularity === 'hour' ? 3_600_000 : 86_400_000;
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :event)',
    ExpressionAttributeValues: { ':pk': `ORG#${orgId}`, ':event': 'EVENT#' },
    ConsistentRead: true,
  });
  const totals = new Map<string, Totals>();
  for (const item of items) {
    const at = Date.parse(String(item.created_at));
    const type = String(item.type);
    if (!type.startsWith('social_operation.') || at < fromMs || at >= toMs) continue;
    const metadata = item.metadata as Record<string, string>;
    const key = `${new Date(at - (at % step)).toISOString()} ${metadata.api_key_id ?? metadata.user_id}`;
    const sum = totals.get(key) ?? { runs: 0, charged: 0, refunded: 0 };
    const amount = Number(item.amount);
    if (type === 'social_operation.charged') {
      sum.runs += 1;
      sum.charged -= amount;
    } else sum.refunded += amount;
    totals.set(key, sum);
  }
  return totals;
}

/** Per `<bucket start> <payer>`: what the usage route answers an owner for [fromMs, toMs), checking `net` on the way. */
export async function totalsFromUsage(
  orgId: string,
  owner: string,
  fromMs: number,
  toMs: number,
  granularity: 'hour' | 'day',
): Promise<Map<string, Totals>> {
  const query = `from=${new Date(fromMs).toISOString()}&to=${new Date(toMs).toISOString()}&granularity=${granularity}&group_by=member,api_key`;
  const answer = await call(handler, { url: `/organizations/${orgId}/usage?${query}`, token: tokenFor(owner) });
  expect(answer.status).toBe(200);
  const totals = new Map<string, Totals>();
  for (const bucket of answer.body.buckets) {
    for (const result of bucket.results) {
      expect(result.net).toBe(result.charged - result.refunded);
      totals.set(`${bucket.start} ${result.api_key ?? result.member}`, {
        runs: result.runs,
        charged: result.charged,
        refunded: result.refunded,
      });
    }
  }
  return totals;
}

/** The whole of a map of totals, for a "how far has it got" check. */
export const sumOf = (totals: Map<string, Totals>): Totals =>
  [...totals.values()].reduce(
    (sum, each) => ({ runs: sum.runs + each.runs, charged: sum.charged + each.charged, refunded: sum.refunded + each.refunded }),
    {
      runs: 0,
      charged: 0,
      refunded: 0,
    },
  );

/** Map → sorted entries, for whole-value comparisons. */
export const entriesOf = (totals: Map<string, Totals>) => [...totals].sort(([a], [b]) => (a < b ? -1 : 1));
