/**
 * A charge through the money module (lib/billing/paid-run.ts) without a run around it: the payer
 * read as stored, the same transaction a run's charge step sends. For tests that need a charge
 * standing, pending or refunded in a given month.
 */
import { type ClaimRequest, chargeRun } from '../../lib/billing/paid-run.ts';
import { sweepAfterMs } from '../../lib/billing/sweeper.ts';
import { socialConfig } from '../../lib/config.ts';
import { getMembership } from '../../lib/db/memberships.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import type { PendingRun } from '../../lib/db/pending-runs.ts';
import { idempotencyOf, leaseMs } from '../../lib/social/idempotency.ts';
import { findOperation, validateOperationInput } from '../../lib/social/operations.ts';
import { runEndsByMs } from '../../lib/social/provider-call.ts';

export async function chargeDirectly(input: {
  orgId: string;
  userId: string;
  operation?: string;
  network?: string;
  cost?: number;
  now?: Date;
  owner?: string;
  sweepAfterMs?: number;
  claim?: ClaimRequest;
  requestId?: string;
}): Promise<PendingRun> {
  const [org, member] = await Promise.all([getOrganization(input.orgId), getMembership(input.orgId, input.userId)]);
  if (!org || !member) throw new Error(`chargeDirectly: no organization ${input.orgId} or no member ${input.userId}`);
  const now = input.now ?? new Date();
  const sweepAfterMs = input.sweepAfterMs ?? Date.now() + 60_000;
  const run = await chargeRun(
    { org, member },
    {
      orgId: input.orgId,
      userId: input.userId,
      operation: input.operation ?? 'tiktok_profile',
      network: input.network ?? findOperation(input.operation ?? 'tiktok_profile').network,
      cost: input.cost ?? 1,
      now,
      owner: input.owner ?? 'test',
      sweepAfterMs,
      ...(input.claim ? { claim: input.claim } : {}),
      ...(input.requestId ? { requestId: input.requestId } : {}),
    },
  );
  return { ...run, chargedAt: now.toISOString(), sweepAfterMs };
}

/**
 * An attempt with an Idempotency-Key that charged at `at`, claimed its key and then died (its
 * function stopped mid-call): its charge, pending run and in-progress claim, exactly as the run
 * path writes them, and nothing after.
 */
export async function deadAttempt(input: {
  orgId: string;
  userId: string;
  key: string;
  operation: string;
  input: unknown;
  at: Date;
}): Promise<PendingRun> {
  const operation = findOperation(input.operation);
  const idempotency = idempotencyOf(input.orgId, input.userId, input.key, operation.name, validateOperationInput(operation, input.input));
  const { providerTimeoutMs } = socialConfig();
  return chargeDirectly({
    orgId: input.orgId,
    userId: input.userId,
    operation: operation.name,
    cost: operation.cost,
    now: input.at,
    owner: idempotency.owner,
    sweepAfterMs: sweepAfterMs(runEndsByMs(providerTimeoutMs, input.at.getTime(), Number.POSITIVE_INFINITY)),
    claim: { key: idempotency.key, requestHash: idempotency.requestHash, leaseMs: leaseMs(providerTimeoutMs) },
  });
}
