/**
 * Who may be charged for a run, decided in one place. The run path asks before it charges
 * (from its first reads); the storage layer asks again when the charge transaction is
 * cancelled (from the items DynamoDB returns), so both answer a refusal with the same error.
 * Pure: no I/O, no clock.
 */
import type { Limits, PeriodSpend, SpendCeilings, SpendLimits } from '../db/credits.ts';
import {
  insufficientCredits,
  type LimitPeriod,
  type LimitScope,
  maxCreditsExceeded,
  mayNotRun,
  notAMember,
  operationNotEnabled,
  type ServiceError,
  spendingLimitExceeded,
} from '../errors.ts';
import { mayRunOperations, payerScope } from '../model.ts';
import { dayPeriod, monthPeriod } from './period.ts';

/** What the payer looked like when read: the organization and the caller's membership. */
export interface Payer {
  org: {
    credits: number;
    networks: readonly string[];
    spending_limit: number | null;
    daily_limit: number | null;
    /** A hot organization read alone (lib/db/lanes.ts): `credits` is then only what no lane holds, not a balance to refuse by. */
    lanes?: true;
  };
  /** A member, or an API key (its `user_id` is the key's id). */
  member: { role: string; spending_limit: number | null; daily_limit: number | null; user_id?: string };
}

/** What is being charged. `network` is undefined for cross-network operations, which every organization may run. */
export interface ChargeAsk {
  operation: string;
  network: string | undefined;
  cost: number;
}

/** 403: not a member (or no such organization), a viewer, or a network the organization disabled. */
export function accessRefusal(org: Payer['org'] | null, member: Payer['member'] | null, ask: ChargeAsk): ServiceError | null {
  if (!org || !member) return notAMember();
  if (!mayRunOperations(member.role)) return mayNotRun();
  if (ask.network !== undefined && !org.networks.includes(ask.network)) return operationNotEnabled(ask.operation, ask.network);
  return null;
}

/**
 * 402 `max_credits_exceeded` when what this call would be charged exceeds the cap it was sent
 * with (`Max-Credits`, MCP `_meta.max_credits`). First of the 402s: nothing else is asked of a
 * call that would not be made at this price.
 */
export const maxCreditsRefusal = (cost: number, maxCredits: number | undefined): ServiceError | null =>
  maxCredits !== undefined && cost > maxCredits ? maxCreditsExceeded(cost, maxCredits) : null;

/** Whose spend a limit counts: the organization's counters, or the payer's own (a member's or an API key's). */
export type Holder = 'org' | 'member';

/** One limit a charge must keep. */
export interface LimitRule {
  holder: Holder;
  scope: LimitScope;
  period: LimitPeriod;
  limit: number;
}

/**
 * The payer's limits, in the order their refusals rank (docs/charges.md): the organization's,
 * then the payer's own; within one scope, the day's before the month's.
 */
export function limitRules(payer: Payer): LimitRule[] {
  const payerOwn = payerScope(payer.member.user_id);
  const rules: [Holder, LimitScope, LimitPeriod, number | null][] = [
    ['org', 'organization', 'day', payer.org.daily_limit],
    ['org', 'organization', 'month', payer.org.spending_limit],
    ['member', payerOwn, 'day', payer.member.daily_limit],
    ['member', payerOwn, 'month', payer.member.spending_limit],
  ];
  return rules.flatMap(([holder, scope, period, limit]) => (limit === null ? [] : [{ holder, scope, period, limit }]));
}

/** Why the payer cannot pay (402), before the facts only storage knows (the spend) are added. */
export type Shortfall = { kind: 'balance' } | ({ kind: 'limit' } & LimitRule);

/** Credits the organization and the payer spent in the current UTC month and day. */
export interface Spent {
  org: PeriodSpend;
  member: PeriodSpend;
}

const NOTHING_SPENT: Spent = { org: { month: 0, day: 0 }, member: { month: 0, day: 0 } };

/**
 * 402 from the payer as read, in the documented order: a limit (the first, by limitRules, that
 * this cost would take past it), then the balance. Without the spend (the run path), only a limit
 * below the cost itself refuses: the transaction's `spent <= limit - cost` cannot refuse a
 * period's first charge, which has no counter yet; limits already partly spent are checked by
 * the transaction's conditions.
 */
export function creditRefusal(payer: Payer, cost: number, spent: Spent = NOTHING_SPENT): Shortfall | null {
  const exceeded = limitRules(payer).find((rule) => spent[rule.holder][rule.period] + cost > rule.limit);
  if (exceeded) return { kind: 'limit', ...exceeded };
  // A hot organization's lanes hold credits its item does not show: the charge decides.
  if (payer.org.credits < cost && !payer.org.lanes) return { kind: 'balance' };
  return null;
}

/** A holder's limits as read (per month and per day; null where there is none): what its counter is held to and keeps. */
export function holderLimits(payer: Payer, holder: Holder): SpendLimits {
  const limits: SpendLimits = { month: null, day: null };
  for (const rule of limitRules(payer)) if (rule.holder === holder) limits[rule.period] = rule.limit;
  return limits;
}

/** The most a holder's counters may hold before adding `cost` (each limit as read, minus the cost); null where there is no limit. */
export const ceilingsOf = (limits: SpendLimits, cost: number): SpendCeilings => ({
  month: limits.month === null ? null : limits.month - cost,
  day: limits.day === null ? null : limits.day - cost,
});

/** A scope's limits as read, for the conditions that they are unchanged. */
export const limitsOf = (scope: { spending_limit: number | null; daily_limit: number | null }): Limits => ({
  spending_limit: scope.spending_limit,
  daily_limit: scope.daily_limit,
});

/** The 402 for a limit, with what a client needs to act: the limit, the period's spend, the cost and when it resets. */
export const limitRefusal = (rule: LimitRule, spent: number, cost: number, now: Date): ServiceError =>
  spendingLimitExceeded({
    scope: rule.scope,
    period: rule.period,
    spending_limit: rule.limit,
    spent,
    cost,
    resets_at: (rule.period === 'day' ? dayPeriod(now) : monthPeriod(now)).end,
  });

/** The 402 a shortfall means, given the spend (what the answer reports). */
export const shortfallRefusal = (shortfall: Shortfall, payer: Payer, spent: Spent, cost: number, now: Date): ServiceError =>
  shortfall.kind === 'balance'
    ? insufficientCredits(payer.org.credits, cost)
    : limitRefusal(shortfall, spent[shortfall.holder][shortfall.period], cost, now);
