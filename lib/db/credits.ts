/**
 * Charging and refunding social operations. A charge is one transaction that takes the cost off
 * the balance, counts it against the organization's and the member's monthly spend, records the
 * `social_operation.charged` event and (with an Idempotency-Key) claims the key; every rule is a
 * condition inside it, so the balance never goes negative and no limit is exceeded under any
 * concurrency. The same transaction puts the run's pending record (lib/db/pending-runs.ts), so no
 * charge exists without one until the run settles. A refund is the mirror transaction with a
 * `social_operation.refunded` event, and deletes the pending record: whoever refunds (the run
 * itself or the sweeper), it happens once.
 *
 * DynamoDB conditions cannot do arithmetic, so a limit is checked as `spent <= limit - cost`
 * with `limit` read beforehand; the charge also requires the limit attribute to still hold the
 * value read, so a limit lowered in between makes the charge re-read instead of overspending.
 *
 * This module reports what a cancelled charge found (ChargeCancelled); deciding what that means
 * for the caller is the domain's (lib/billing/charge.ts).
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { logError } from '../log.ts';
import { RUNNER_ROLES } from '../model.ts';
import { recordCreditsCharged, recordCreditsRefunded, recordRefundFailure } from '../observability/metrics.ts';
import { billingEventPut, newBillingEvent } from './billing-events.ts';
import { type CancellationReason, conditionFailed, db, type TransactItem, tableName, transact } from './client.ts';
import { releaseItem } from './idempotency.ts';
import { memberSpendKey, membershipKey, orgKey, orgSpendKey, spendMonth } from './keys.ts';
import { type HeldCharge, type PendingRun, pendingRunDelete, pendingRunPut } from './pending-runs.ts';
import type { TableKey } from './table.ts';

/** Spend counters are kept for reporting a little over a year after their month. */
const SPEND_RETENTION_SECONDS = 400 * 86_400;

export interface ChargeRequest {
  orgId: string;
  userId: string;
  operation: string;
  /** Undefined for cross-network operations, which every organization may run. */
  network: string | undefined;
  cost: number;
  /** The spending limits as read; the charge requires them unchanged. */
  limits: { org: number | null; member: number | null };
  now: Date;
  /** An extra item that must succeed with the charge (the Idempotency-Key claim). */
  claim?: TransactItem;
  /** The run this charge pays for: its pending record is put with the charge. */
  run: { chargeId: string; owner: string; sweepAfterMs: number; idempotencyKey?: TableKey };
  /** No attempt of the charge starts after this instant (epoch ms; lib/db/conflict-retry.ts). */
  retryUntilMs?: number;
}

/** A new charge id: also the charge event's id and the key of the run's pending record. */
export const newChargeId = (): string => `evt_${randomUUID()}`;

/** A charge that went through: what a refund needs to undo it exactly. */
export interface Charge {
  orgId: string;
  userId: string;
  operation: string;
  cost: number;
  month: string;
  eventId: string;
}

/**
 * A charge transaction that DynamoDB cancelled, with what it found: for the organization and
 * the membership, the stored item when its condition failed (null if the item is missing;
 * `undefined` when its condition held); for a month's spend counter whose limit refused the
 * charge, the amount it held (what a 402 reports as `spent`; `undefined` when it held); and
 * whether the claim failed.
 */
export class ChargeCancelled extends Error {
  constructor(
    readonly found: {
      org: Record<string, unknown> | null | undefined;
      member: Record<string, unknown> | null | undefined;
      orgSpent: number | undefined;
      memberSpent: number | undefined;
      claimTaken: boolean;
    },
  ) {
    super('charge transaction cancelled');
    this.name = 'ChargeCancelled';
  }
}

/** The condition that a spending-limit attribute still holds the value read (or is still unset). */
function limitUnchanged(limit: number | null): { condition: string; values: Record<string, unknown> } {
  return limit === null
    ? { condition: '(attribute_not_exists(spending_limit) OR attribute_type(spending_limit, :null))', values: { ':null': 'NULL' } }
    : { condition: 'spending_limit = :limit', values: { ':limit': limit } };
}

const counterUpdate = (key: TableKey, amount: number, month: string, max: number | null): TransactItem => {
  const expires = Math.floor(Date.parse(`${month}-01T00:00:00Z`) / 1000) + SPEND_RETENTION_SECONDS;
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD #spent :amount SET expires_at = if_not_exists(expires_at, :expires)',
      ExpressionAttributeNames: { '#spent': 'spent' },
      ExpressionAttributeValues: { ':amount': amount, ':expires': expires, ...(max === null ? {} : { ':max': max }) },
      // ALL_OLD on a refusal: the 402 reports how much was spent.
      ...(max === null
        ? {}
        : { ConditionExpression: 'attribute_not_exists(#spent) OR #spent <= :max', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    },
  };
};

/** Builds the charge transaction (pure; test/credits-transactions.test.ts checks it without DynamoDB). */
export function chargeTransaction(request: ChargeRequest, eventId: string): TransactItem[] {
  const { orgId, userId, cost, limits, now } = request;
  const month = spendMonth(now);
  const orgLimit = limitUnchanged(limits.org);
  const orgConditions = ['attribute_exists(PK)', 'credits >= :cost', orgLimit.condition];
  const orgValues: Record<string, unknown> = { ':cost': cost, ...orgLimit.values };
  if (request.network !== undefined) {
    orgConditions.push('contains(networks, :network)');
    orgValues[':network'] = request.network;
  }
  const memberLimit = limitUnchanged(limits.member);
  const roleValues = Object.fromEntries(RUNNER_ROLES.map((role, i) => [`:role${i}`, role]));
  const memberConditions = ['attribute_exists(PK)', `#role IN (${Object.keys(roleValues).join(', ')})`, memberLimit.condition];
  const event = newBillingEvent({
    id: eventId,
    type: 'social_operation.charged',
    title: request.operation,
    description: `${request.operation} run by ${userId}`,
    amount: -cost,
    now,
  });
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName(),
        Key: orgKey(orgId),
        UpdateExpression: 'SET credits = credits - :cost',
        ConditionExpression: orgConditions.join(' AND '),
        ExpressionAttributeValues: orgValues,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    {
      ConditionCheck: {
        TableName: tableName(),
        Key: membershipKey(orgId, userId),
        ConditionExpression: memberConditions.join(' AND '),
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ...roleValues, ...memberLimit.values },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    counterUpdate(orgSpendKey(orgId, month), cost, month, limits.org === null ? null : limits.org - cost),
    counterUpdate(memberSpendKey(orgId, userId, month), cost, month, limits.member === null ? null : limits.member - cost),
    billingEventPut(orgId, event),
    pendingRunPut(pendingRunOf(request, eventId)),
  ];
  if (request.claim) items.push(request.claim);
  return items;
}

const pendingRunOf = (request: ChargeRequest, eventId: string): PendingRun => ({
  orgId: request.orgId,
  userId: request.userId,
  operation: request.operation,
  cost: request.cost,
  month: spendMonth(request.now),
  eventId,
  owner: request.run.owner,
  chargedAt: request.now.toISOString(),
  sweepAfterMs: request.run.sweepAfterMs,
  ...(request.run.idempotencyKey ? { idempotencyKey: request.run.idempotencyKey } : {}),
});

const failed = (reason: CancellationReason | undefined) => reason?.Code === 'ConditionalCheckFailed';
const foundItem = (reason: CancellationReason | undefined): Record<string, unknown> | null | undefined => {
  if (!failed(reason)) return undefined;
  return reason?.Item ? unmarshall(reason.Item as Record<string, AttributeValue>) : null;
};

const foundSpent = (reason: CancellationReason | undefined): number | undefined => {
  const item = foundItem(reason);
  return item === undefined ? undefined : Number(item?.spent ?? 0);
};

/** What a cancelled charge found, from its cancellation reasons (pure). */
export function chargeCancellation(reasons: CancellationReason[]): ChargeCancelled | null {
  const [org, member, orgSpend, memberSpend, , , claim] = reasons;
  if (![org, member, orgSpend, memberSpend, claim].some(failed)) return null;
  return new ChargeCancelled({
    org: foundItem(org),
    member: foundItem(member),
    orgSpent: foundSpent(orgSpend),
    memberSpent: foundSpent(memberSpend),
    claimTaken: failed(claim),
  });
}

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

/** Charges the cost of one run and records it pending, or throws ChargeCancelled with what the transaction found. */
export async function chargeOperation(request: ChargeRequest): Promise<PendingRun> {
  const eventId = request.run.chargeId;
  await transact(chargeTransaction(request, eventId), chargeCancellation, request.retryUntilMs);
  recordCreditsCharged(request.cost);
  return pendingRunOf(request, eventId);
}

/** Builds the refund transaction (pure): credits back, month counters down, a refund event. */
export function refundTransaction(charge: Charge, reason: string, now: Date): TransactItem[] {
  const event = newBillingEvent({
    type: 'social_operation.refunded',
    title: `${charge.operation} refunded`,
    description: `${charge.operation} run by ${charge.userId}: ${reason}; charge ${charge.eventId} refunded`,
    amount: charge.cost,
    now,
  });
  return [
    {
      Update: {
        TableName: tableName(),
        Key: orgKey(charge.orgId),
        UpdateExpression: 'SET credits = credits + :cost',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':cost': charge.cost },
      },
    },
    counterUpdate(orgSpendKey(charge.orgId, charge.month), -charge.cost, charge.month, null),
    counterUpdate(memberSpendKey(charge.orgId, charge.userId, charge.month), -charge.cost, charge.month, null),
    billingEventPut(charge.orgId, event),
  ];
}

/**
 * What a refund did: `refunded`; `gone` when the run was no longer held by `run.owner` (or no
 * longer due, for the sweeper): refunded already, settled, or handed to a retry, so nothing was
 * written; `failed` when it could not be written (the pending record stays, and the sweeper
 * refunds the run once it is due).
 */
export type RefundOutcome = 'refunded' | 'gone' | 'failed';

class RunGone extends Error {}
class KeyGone extends Error {}

/**
 * Gives a run's charge back, in one transaction with deleting its pending record (held by
 * `run.owner`; due by `dueBy` when the sweeper asks) and releasing its Idempotency-Key claim.
 * The month counters of the charge's month go down (not the current month's), so a refund across
 * a month boundary frees exactly what the charge took. Never throws.
 */
export async function refundRun(run: HeldCharge, reason: string, options: { now?: Date; dueBy?: number } = {}): Promise<RefundOutcome> {
  const now = options.now ?? new Date();
  const items = [...refundTransaction(run, reason, now), pendingRunDelete(run, options.dueBy)];
  const pendingIndex = items.length - 1;
  if (run.idempotencyKey) items.push(releaseItem(run.idempotencyKey, run.owner));
  try {
    await transact(items, (reasons) => {
      if (conditionFailed(reasons, pendingIndex)) return new RunGone();
      if (run.idempotencyKey && conditionFailed(reasons, pendingIndex + 1)) return new KeyGone();
      return null;
    });
  } catch (error) {
    if (error instanceof RunGone) return 'gone';
    // The claim is no longer this run's (it expired after 24 h and the key was used again):
    // refund without touching it.
    if (error instanceof KeyGone) return refundRun({ ...run, idempotencyKey: undefined }, reason, options);
    logError('REFUND FAILED: the sweeper will refund this charge once its run is due', error, { charge: run });
    recordRefundFailure();
    return 'failed';
  }
  recordCreditsRefunded(run.cost);
  return 'refunded';
}
