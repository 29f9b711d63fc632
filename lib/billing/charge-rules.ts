/**
 * Who may be charged for a run, decided in one place. The run path asks before it charges
 * (from its first reads); the storage layer asks again when the charge transaction is
 * cancelled (from the items DynamoDB returns), so both answer a refusal with the same error.
 * Pure: no I/O, no clock.
 */
import { type LimitScope, mayNotRun, notAMember, operationNotEnabled, type ServiceError } from '../errors.ts';
import { mayRunOperations } from '../model.ts';

/** What the payer looked like when read: the organization and the caller's membership. */
export interface Payer {
  org: { credits: number; networks: readonly string[]; spending_limit: number | null };
  member: { role: string; spending_limit: number | null };
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
export function creditRefusal(payer: Payer, cost: number): Shortfall | null {
  if (payer.org.credits < cost) return { kind: 'balance' };
  const { org, member } = { org: payer.org.spending_limit, member: payer.member.spending_limit };
  if (org !== null && org < cost) return { kind: 'limit', scope: 'organization', limit: org };
  if (member !== null && member < cost) return { kind: 'limit', scope: 'member', limit: member };
  return null;
}
