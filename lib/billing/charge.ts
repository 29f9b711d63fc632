/**
 * Charging a run: the domain side of lib/db/credits.ts. Refuses from what was read when it can
 * (no transaction spent on a certain 402), sends the charge, and turns a cancelled charge into
 * the caller's answer with the same rules (lib/billing/charge-rules.ts).
 */

import type { TransactItem } from '../db/client.ts';
import { ChargeCancelled, type ChargeRequest, chargeOperation, readSpend } from '../db/credits.ts';
import { spendMonth } from '../db/keys.ts';
import type { PendingRun } from '../db/pending-runs.ts';
import { insufficientCredits, type LimitScope, type ServiceError, spendingLimitExceeded } from '../errors.ts';
import { accessRefusal, type ChargeAsk, creditRefusal, type Payer, type Shortfall } from './charge-rules.ts';
import { monthPeriod } from './period.ts';

/** The charge found state other than what was read (a limit changed): read again and decide afresh. */
export class StaleRead extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'StaleRead';
  }
}

/** The Idempotency-Key was claimed by a concurrent request: read again (a replay or a 409 follows). */
export class KeyClaimed extends StaleRead {}

export interface RunCharge extends ChargeAsk {
  orgId: string;
  userId: string;
  now: Date;
  /** The Idempotency-Key claim, taken in the same transaction as the charge. */
  claim?: TransactItem;
  /** The run paid for (recorded pending with the charge). */
  run: ChargeRequest['run'];
  /** No attempt of the charge starts after this instant (epoch ms): a charge that lost to concurrent ones retries until then. */
  retryUntilMs?: number;
}

const orgOf = (item: Record<string, unknown>): Payer['org'] => ({
  credits: Number(item.credits ?? 0),
  // A string set unmarshalls to a Set, a list to an array.
  networks: Array.from((item.networks as Iterable<string> | undefined) ?? []),
  spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
});

const memberOf = (item: Record<string, unknown>): Payer['member'] => ({
  role: String(item.role ?? ''),
  spending_limit: item.spending_limit == null ? null : Number(item.spending_limit),
});

/** The 402 for a limit, with what a client needs to act: the limit, the month's spend, the cost and when it resets. */
const limitExceeded = (scope: LimitScope, limit: number | null, spent: number, request: RunCharge): ServiceError =>
  spendingLimitExceeded({ scope, spending_limit: limit ?? 0, spent, cost: request.cost, resets_at: monthPeriod(request.now).end });

/**
 * Why a charge was cancelled, in the documented order of checks: 403 (membership, role,
 * network) → 409 (the idempotency claim) → 402 (balance, then limits). A condition that failed
 * only because a limit changed since it was read → StaleRead. Pure.
 */
export function refusalOf(found: ChargeCancelled['found'], payer: Payer, request: RunCharge): Error {
  const org = found.org === undefined ? payer.org : found.org && orgOf(found.org);
  const member = found.member === undefined ? payer.member : found.member && memberOf(found.member);
  const access = accessRefusal(org, member, request);
  if (access) return access;
  if (found.claimTaken) return new KeyClaimed('the Idempotency-Key was claimed concurrently');
  if (found.org !== undefined && org!.credits < request.cost) return insufficientCredits(org!.credits, request.cost);
  if (found.org !== undefined || found.member !== undefined) return new StaleRead('a spending limit changed since it was read');
  if (found.orgSpent !== undefined) return limitExceeded('organization', payer.org.spending_limit, found.orgSpent, request);
  if (found.memberSpent !== undefined) return limitExceeded('member', payer.member.spending_limit, found.memberSpent, request);
  return new StaleRead('the charge was cancelled for no reason it names');
}

/** A refusal from the payer as read; a limit's 402 reads the month's spend to report it (a refusal path only). */
async function shortfallError(shortfall: Shortfall, payer: Payer, request: RunCharge): Promise<ServiceError> {
  if (shortfall.kind === 'balance') return insufficientCredits(payer.org.credits, request.cost);
  const spent = await readSpend(request.orgId, request.userId, spendMonth(request.now));
  return limitExceeded(shortfall.scope, shortfall.limit, shortfall.scope === 'organization' ? spent.org : spent.member, request);
}

/** Charges one run for `payer` (as read), or throws a 403/402 ServiceError, StaleRead or KeyClaimed. */
export async function chargeRun(payer: Payer, request: RunCharge): Promise<PendingRun> {
  const shortfall = creditRefusal(payer, request.cost);
  if (shortfall) throw await shortfallError(shortfall, payer, request);
  try {
    return await chargeOperation({
      orgId: request.orgId,
      userId: request.userId,
      operation: request.operation,
      network: request.network,
      cost: request.cost,
      limits: { org: payer.org.spending_limit, member: payer.member.spending_limit },
      now: request.now,
      run: request.run,
      ...(request.claim ? { claim: request.claim } : {}),
      ...(request.retryUntilMs === undefined ? {} : { retryUntilMs: request.retryUntilMs }),
    });
  } catch (error) {
    if (error instanceof ChargeCancelled) throw refusalOf(error.found, payer, request);
    throw error;
  }
}
