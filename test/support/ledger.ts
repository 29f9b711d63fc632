/**
 * An organization's money as stored, read in one consistent Query of its partition (the balance,
 * the billing events, the month spend counters, the pending runs) and, for a hot organization,
 * one of its credit lanes (counted as clients read them: in the balance, and out of the spend
 * counters that reserved them), and the invariants that must hold whatever failed on the way
 * (docs/charges.md):
 *
 * - the balance is the sum of the events (grants − deductions − charges + refunds);
 * - each refund names one charge, each charge has at most one refund;
 * - each month's spend counters (the organization's and each member's) hold that month's charges
 *   less their refunds;
 * - a pending run names a charge that is not refunded, at its cost;
 * - a charge that is neither refunded nor pending ("standing") was delivered: standing charges
 *   are never more than the results the caller received.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, queryAll, tableName } from '../../lib/db/client.ts';
import { orgKey } from '../../lib/db/keys.ts';
import { readLanes } from '../../lib/db/lanes.ts';
import type { TableKey } from '../../lib/db/table.ts';

export interface LedgerCharge {
  id: string;
  cost: number;
  month: string;
  userId: string;
}

export interface Ledger {
  credits: number;
  /** Sum of every billing event's amount. */
  eventSum: number;
  charges: LedgerCharge[];
  /** Charge id → how many refund events name it. */
  refunds: Map<string, number>;
  /** Charge id → the pending run's cost. */
  pending: Map<string, number>;
  /** Spend counter sort key (`SPEND#2025-01`, `SPEND#2025-01#USER#u`) → spent. */
  counters: Map<string, number>;
  /** Refund events that name no charge of this organization. */
  strayRefunds: string[];
}

const CHARGE_USER = / run by (\S+)$/;
const REFUNDED_CHARGE = /charge (evt_\S+) refunded$/;

export async function readLedger(orgId: string): Promise<Ledger> {
  const items: Record<string, any>[] = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': orgKey(orgId).PK },
    ConsistentRead: true,
  });

  const ledger: Ledger = {
    credits: Number.NaN,
    eventSum: 0,
    charges: [],
    refunds: new Map(),
    pending: new Map(),
    counters: new Map(),
    strayRefunds: [],
  };
  const refundsNamed: string[] = [];
  for (const item of items) {
    const sk = String(item.SK);
    if (sk === 'ORG') ledger.credits = Number(item.credits);
    else if (sk.startsWith('SPEND#')) ledger.counters.set(sk, Number(item.spent ?? 0));
    else if (sk.startsWith('PENDING#')) ledger.pending.set(String(item.charge_id), Number(item.cost));
    else if (item.entity === 'billing_event') {
      ledger.eventSum += Number(item.amount);
      if (item.type === 'social_operation.charged') {
        ledger.charges.push({
          id: String(item.id),
          cost: -Number(item.amount),
          month: String(item.created_at).slice(0, 7),
          userId: CHARGE_USER.exec(String(item.description))?.[1] ?? '?',
        });
      } else if (item.type === 'social_operation.refunded') {
        refundsNamed.push(REFUNDED_CHARGE.exec(String(item.description))?.[1] ?? `(unnamed: ${item.description})`);
      }
    }
  }
  for (const lane of await readLanes(orgId)) {
    ledger.credits += lane.credits;
    for (const sk of [`SPEND#${lane.month}`, `SPEND#${lane.month}#USER#${lane.payer}`])
      if (lane.credits > 0) ledger.counters.set(sk, (ledger.counters.get(sk) ?? 0) - lane.credits);
  }
  const chargeIds = new Set(ledger.charges.map((charge) => charge.id));
  for (const id of refundsNamed) {
    if (chargeIds.has(id)) ledger.refunds.set(id, (ledger.refunds.get(id) ?? 0) + 1);
    else ledger.strayRefunds.push(id);
  }
  return ledger;
}

/** Charges neither refunded nor pending: paid for a result. */
export const standingCharges = (ledger: Ledger): LedgerCharge[] =>
  ledger.charges.filter((charge) => !ledger.refunds.has(charge.id) && !ledger.pending.has(charge.id));

/**
 * What breaks the invariants, in words (empty when they all hold). `delivered`: how many paid
 * results the caller received (the most charges that may stand).
 */
export function ledgerProblems(ledger: Ledger, delivered: number): string[] {
  const problems: string[] = [];
  if (ledger.credits !== ledger.eventSum) problems.push(`balance ${ledger.credits} but the events sum to ${ledger.eventSum}`);
  for (const [id, count] of ledger.refunds) if (count > 1) problems.push(`charge ${id} refunded ${count} times`);
  if (ledger.strayRefunds.length > 0) problems.push(`refunds of no charge: ${ledger.strayRefunds.join(', ')}`);
  const byId = new Map(ledger.charges.map((charge) => [charge.id, charge]));
  for (const [id, cost] of ledger.pending) {
    const charge = byId.get(id);
    if (!charge) problems.push(`pending run of no charge: ${id}`);
    else if (ledger.refunds.has(id)) problems.push(`pending run of a refunded charge: ${id}`);
    else if (charge.cost !== cost) problems.push(`pending run of ${id} costs ${cost}, its charge ${charge.cost}`);
  }
  const expected = new Map<string, number>();
  for (const charge of ledger.charges) {
    const net = ledger.refunds.has(charge.id) ? 0 : charge.cost;
    for (const sk of [`SPEND#${charge.month}`, `SPEND#${charge.month}#USER#${charge.userId}`])
      expected.set(sk, (expected.get(sk) ?? 0) + net);
  }
  for (const sk of new Set([...expected.keys(), ...ledger.counters.keys()])) {
    const counted = ledger.counters.get(sk) ?? 0;
    if (counted !== (expected.get(sk) ?? 0)) problems.push(`${sk} counts ${counted}, the events say ${expected.get(sk) ?? 0}`);
  }
  const standing = standingCharges(ledger);
  if (standing.length > delivered) {
    problems.push(`${standing.length} charge(s) standing without a refund or a pending run, for ${delivered} result(s) delivered`);
  }
  return problems;
}

/** An Idempotency-Key record as stored (state and the charge its claim names), or null. */
export async function idempotencyItem(key: TableKey): Promise<{ state: string; chargeId: string | undefined } | null> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return item ? { state: String(item.state), chargeId: item.charge?.id === undefined ? undefined : String(item.charge.id) } : null;
}
