/**
 * Charging and refunding social operations. A charge is one transaction that takes the cost off
 * the balance, counts it against the organization's and the member's monthly spend, records the
 * `social_operation.charged` event and (with an Idempotency-Key) claims the key; every rule is a
 * condition inside it, so the balance never goes negative and no limit is exceeded under any
 * concurrency. A refund is the mirror transaction with a `social_operation.refunded` event.
 *
 * DynamoDB conditions cannot do arithmetic, so a limit is checked as `spent <= limit - cost`
 * with `limit` read beforehand; the charge also requires the limit attribute to still hold the
 * value read, so a limit lowered in between makes the charge re-read instead of overspending.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError, forbidden } from '../errors.ts';
import { logError } from '../log.ts';
import { recordCreditsCharged, recordCreditsRefunded } from '../observability/metrics.ts';
import { billingEventPut, newBillingEvent } from './billing-events.ts';
import { type CancellationReason, cancellationReasons, db, type TransactItem, tableName } from './client.ts';
import { memberSpendKey, membershipKey, orgKey, orgSpendKey, spendMonth } from './keys.ts';
import type { TableKey } from './table.ts';

/** Spend counters are kept for reporting a little over a year after their month. */
const SPEND_RETENTION_SECONDS = 400 * 86_400;
/** Attempts of a transaction that loses to concurrent ones (TransactionConflict) or reads a stale limit. */
export const MAX_ATTEMPTS = 8;

export const insufficientCredits = (cost: number) =>
  new ApiError(
    402,
    'insufficient_credits',
    `the organization has fewer than the ${cost} credit${cost === 1 ? '' : 's'} this operation costs`,
  );

export const spendingLimitExceeded = (whose: 'organization' | 'member') =>
  new ApiError(
    402,
    'spending_limit_exceeded',
    whose === 'organization'
      ? "this run would exceed the organization's monthly spending limit"
      : 'this run would exceed your monthly spending limit in this organization',
  );

export const operationNotEnabled = (operation: string) =>
  new ApiError(403, 'operation_not_enabled', `operation ${operation} is not enabled for this organization`);

export const notAMember = () => forbidden('you are not a member of this organization');
export const mayNotRun = () => forbidden('only editors and owners can run social operations');

/** What the caller's first read saw; the charge re-checks each of these in its conditions. */
export interface ChargeBasis {
  /** The balance read; a balance below the cost is refused without a transaction. */
  credits: number;
  orgLimit: number | null;
  memberLimit: number | null;
}

export interface ChargeRequest {
  orgId: string;
  userId: string;
  operation: string;
  /** Undefined for cross-network operations, which every organization may run. */
  network: string | undefined;
  cost: number;
  basis: ChargeBasis;
  now?: Date;
  /** An extra item that must succeed with the charge (the Idempotency-Key claim), and its failure. */
  claim?: { item: TransactItem; onConflict: () => Error };
}

/** A charge that went through: what a refund needs to undo it exactly. */
export interface Charge {
  orgId: string;
  userId: string;
  operation: string;
  cost: number;
  month: string;
  eventId: string;
}

/** The charge's view of a stale read: the caller re-reads the limits and tries again. */
export class StaleLimitError extends Error {}

const nullCondition = (attribute: string) => `(attribute_not_exists(${attribute}) OR attribute_type(${attribute}, :null))`;

const counterUpdate = (key: TableKey, amount: number, month: string, max: number | null): TransactItem => {
  const expires = Math.floor(Date.parse(`${month}-01T00:00:00Z`) / 1000) + SPEND_RETENTION_SECONDS;
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD #spent :amount SET expires_at = if_not_exists(expires_at, :expires)',
      ExpressionAttributeNames: { '#spent': 'spent' },
      ExpressionAttributeValues: { ':amount': amount, ':expires': expires, ...(max === null ? {} : { ':max': max }) },
      ...(max === null ? {} : { ConditionExpression: 'attribute_not_exists(#spent) OR #spent <= :max' }),
    },
  };
};

/** Builds the charge transaction (pure: tested without DynamoDB). */
export function chargeTransaction(request: ChargeRequest, eventId: string, now: Date): TransactItem[] {
  const { orgId, userId, cost, basis } = request;
  const month = spendMonth(now);
  const orgConditions = ['attribute_exists(PK)', 'credits >= :cost'];
  const orgValues: Record<string, unknown> = { ':cost': cost };
  if (request.network !== undefined) {
    orgConditions.push('contains(networks, :network)');
    orgValues[':network'] = request.network;
  }
  if (basis.orgLimit === null) {
    orgConditions.push(nullCondition('spending_limit'));
    orgValues[':null'] = 'NULL';
  } else {
    orgConditions.push('spending_limit = :limit');
    orgValues[':limit'] = basis.orgLimit;
  }
  const memberValues: Record<string, unknown> = { ':editor': 'editor', ':owner': 'owner' };
  const memberConditions = ['attribute_exists(PK)', '#role IN (:editor, :owner)'];
  if (basis.memberLimit === null) {
    memberConditions.push(nullCondition('spending_limit'));
    memberValues[':null'] = 'NULL';
  } else {
    memberConditions.push('spending_limit = :limit');
    memberValues[':limit'] = basis.memberLimit;
  }
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
        ExpressionAttributeValues: memberValues,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    counterUpdate(orgSpendKey(orgId, month), cost, month, basis.orgLimit === null ? null : basis.orgLimit - cost),
    counterUpdate(memberSpendKey(orgId, userId, month), cost, month, basis.memberLimit === null ? null : basis.memberLimit - cost),
    billingEventPut(orgId, event),
  ];
  if (request.claim) items.push(request.claim.item);
  return items;
}

const failed = (reason: CancellationReason | undefined) => reason?.Code === 'ConditionalCheckFailed';
const numberOf = (value: AttributeValue | undefined) => (value?.N === undefined ? null : Number(value.N));
const stringsOf = (value: AttributeValue | undefined) => [...(value?.L ?? []).map((entry) => entry.S), ...(value?.SS ?? [])];

/**
 * Why a charge was refused, from the cancellation reasons, in the documented order of checks:
 * 403 (membership, role, network) → 409 (the idempotency claim) → 402 (balance, then limits).
 * A condition that failed only because a limit changed since it was read → StaleLimitError.
 */
function refusal(request: ChargeRequest, reasons: CancellationReason[]): Error | null {
  const [org, member, orgSpend, memberSpend, , claim] = reasons;
  const orgItem = org?.Item;
  const memberItem = member?.Item;
  if (failed(org) && !orgItem) return notAMember();
  if (failed(member) && !memberItem) return notAMember();
  if (failed(member) && !['editor', 'owner'].includes(memberItem?.role?.S ?? '')) return mayNotRun();
  if (failed(org) && request.network !== undefined && !stringsOf(orgItem?.networks).includes(request.network)) {
    return operationNotEnabled(request.operation);
  }
  if (failed(claim) && request.claim) return request.claim.onConflict();
  if (failed(org) && (numberOf(orgItem?.credits) ?? 0) < request.cost) return insufficientCredits(request.cost);
  if (failed(org) || failed(member)) return new StaleLimitError('a spending limit changed since it was read');
  if (failed(orgSpend)) return spendingLimitExceeded('organization');
  if (failed(memberSpend)) return spendingLimitExceeded('member');
  return null;
}

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));

/** Runs a transaction, retrying (with jitter) when it loses to a concurrent one. */
async function transact(items: TransactItem[], onCancelled: (reasons: CancellationReason[]) => Error | null): Promise<void> {
  // One token for all attempts: an SDK-level resend of a committed transaction is a no-op.
  const token = randomUUID();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: token }));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      const refused = reasons ? onCancelled(reasons) : null;
      if (refused) throw refused;
      const conflict = reasons?.some((reason) => reason.Code === 'TransactionConflict') ?? false;
      if (!conflict || attempt >= MAX_ATTEMPTS) throw error;
      await pause(attempt);
    }
  }
}

/**
 * Charges the cost of one run. Throws 403/409/402 ApiErrors as described in `refusal`, or
 * StaleLimitError when a limit changed since `basis` was read (the caller re-reads and retries).
 */
export async function chargeOperation(request: ChargeRequest): Promise<Charge> {
  if (request.basis.credits < request.cost) throw insufficientCredits(request.cost);
  // `spent <= limit - cost` cannot refuse a first charge of the month (no counter yet), so a
  // limit below the cost is refused here.
  if (request.basis.orgLimit !== null && request.basis.orgLimit < request.cost) throw spendingLimitExceeded('organization');
  if (request.basis.memberLimit !== null && request.basis.memberLimit < request.cost) throw spendingLimitExceeded('member');
  const now = request.now ?? new Date();
  const eventId = `evt_${randomUUID()}`;
  const items = chargeTransaction(request, eventId, now);
  await transact(items, (reasons) => refusal(request, reasons));
  recordCreditsCharged(request.cost);
  return {
    orgId: request.orgId,
    userId: request.userId,
    operation: request.operation,
    cost: request.cost,
    month: spendMonth(now),
    eventId,
  };
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
 * Gives a charge back. The month counters of the charge's month go down (not the current
 * month's), so a refund across a month boundary frees exactly what the charge took.
 * Never throws: a refund that cannot be written is logged for an operator to replay.
 */
export async function refundCharge(charge: Charge, reason: string, now = new Date()): Promise<boolean> {
  try {
    await transact(refundTransaction(charge, reason, now), () => null);
    recordCreditsRefunded(charge.cost);
    return true;
  } catch (error) {
    logError('REFUND FAILED: credits owed to the organization', error, { charge });
    return false;
  }
}
