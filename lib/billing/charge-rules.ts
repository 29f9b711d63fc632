/**
 * Who may be charged for a run, decided in one place. The run path asks before it charges
 * (from its first reads); the storage layer asks again when the charge transaction is
 * cancelled (from the items DynamoDB returns), so both answer a refusal with the same error.
 * Pure: no I/O, no clock.
 */
import {
  insufficientCredits,
  type LimitScope,
  mayNotRun,
  notAMember,
  operationNotEnabled,
  type ServiceError,
  spendingLimitExceeded,
} from '../errors.ts';
import { isApiKeyId, mayRunOperations } from '../model.ts';
import { monthPeriod } from './period.ts';

/** What the payer looked like when read: the organization and the caller's membership. */
export interface Payer {
  org: { credits: number; networks: readonly string[]; spending_limit: number | null };
  /** A member, or an API key (its `user_id` is the key's id). */
  member: { role: string; spending_limit: number | null; user_id?: string };
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

/** Why the payer cannot pay (402), before the facts only storage knows (the month's spend) are added. */
export type Shortfall = { kind: 'balance' } | { kind: 'limit'; scope: LimitScope; limit: number };

/**
 * 402 from the payer as read: a balance below the cost, or a limit below the cost itself (the
 * transaction's `spent <= limit - cost` cannot refuse a month's first charge, which has no
 * counter yet). Limits already partly spent are checked by the transaction's conditions.
 */
export function creditRefusal(payer: Payer, cost: number, spent: MonthSpend = { org: 0, member: 0 }): Shortfall | null {
  if (payer.org.credits < cost) return { kind: 'balance' };
  const { org, member } = { org: payer.org.spending_limit, member: payer.member.spending_limit };
  if (org !== null && spent.org + cost > org) return { kind: 'limit', scope: 'organization', limit: org };
  if (member !== null && spent.member + cost > member) return { kind: 'limit', scope: payerScope(payer.member), limit: member };
  return null;
}

/**
 * Whose limit a payer's own limit is: a member's, or an API key's (a key pays as a member of its
 * organization with its own limit and spend counter, keyed by its id).
 */
export const payerScope = (member: { user_id?: string }): LimitScope =>
  member.user_id !== undefined && isApiKeyId(member.user_id) ? 'api_key' : 'member';

/** Credits the organization and the member spent this month. */
export interface MonthSpend {
  org: number;
  member: number;
}

/** The 402 for a limit, with what a client needs to act: the limit, the month's spend, the cost and when it resets. */
export const limitRefusal = (scope: LimitScope, limit: number, spent: number, cost: number, now: Date): ServiceError =>
  spendingLimitExceeded({ scope, spending_limit: limit, spent, cost, resets_at: monthPeriod(now).end });

/** The 402 a shortfall means, given the month's spend (what the answer reports). */
export const shortfallRefusal = (shortfall: Shortfall, payer: Payer, spent: MonthSpend, cost: number, now: Date): ServiceError =>
  shortfall.kind === 'balance'
    ? insufficientCredits(payer.org.credits, cost)
    : limitRefusal(shortfall.scope, shortfall.limit, shortfall.scope === 'organization' ? spent.org : spent.member, cost, now);
