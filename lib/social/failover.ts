/**
 * Failover (docs/social-operations.md, "Failover"): a paid run goes to its operation's providers
 * in order, skipping those whose breaker is open, each call under its own timeout and all of them
 * under the run's deadline, until one answers. A provider that times out, answers 5xx or 429, or
 * answers something unusable (not JSON, not the output schema) is a failure: the next is tried.
 * "Not found" and an empty result are answers: no failover. One answer is returned, whichever
 * provider gave it; a provider abandoned at its timeout is never waited for again (its late answer
 * is dropped), so two answers never make two results or two charges.
 */
import { operationUnavailable } from '../errors.ts';
import type { OperationDefinition } from './catalog/index.ts';
import type { Attempt } from './health/attempts.ts';
import { breakerFor, noteAttempts } from './health/view.ts';
import { callProvider, REFUND_RESERVE_MS } from './provider-call.ts';
import { type SocialProvider, UpstreamError, UpstreamNotFoundError } from './providers/types.ts';
import { testFault } from './test-faults.ts';

/** An attempt shorter than this is not started: the run's deadline is too near to wait for an answer. */
const MIN_ATTEMPT_MS = 250;

/**
 * The providers a run may try now, in order: an operation's providers without those whose breaker
 * is open. All open: 503 `operation_unavailable`, with when the first lets a probe through.
 */
export function usableProviders(operation: string, providers: readonly SocialProvider[], nowMs: number): SocialProvider[] {
  const views = providers.map((provider) => ({ provider, breaker: breakerFor(operation, provider.name, nowMs) }));
  const usable = views.filter((view) => view.breaker.state !== 'open').map((view) => view.provider);
  if (usable.length > 0 || providers.length === 0) return usable;
  const probeAtMs = Math.min(...views.map((view) => view.breaker.probeAtMs));
  throw operationUnavailable(
    operation,
    Math.max(1, Math.ceil((probeAtMs - nowMs) / 1000)),
    providers.map((provider) => provider.displayName),
  );
}

export interface Served {
  output: unknown;
  /** The provider that answered (its registry name). */
  provider: string;
  attempts: Attempt[];
}

/** The run failed on every provider it tried: the last error, and what each attempt did. */
export class EveryProviderFailed extends Error {
  constructor(
    readonly last: unknown,
    readonly attempts: Attempt[],
  ) {
    super('every provider failed');
  }
}

/** The run's answer was "not found" from a provider: an answer (refunded as today), with the attempts that led to it. */
export class NotFoundAnswer extends Error {
  constructor(
    readonly error: UpstreamNotFoundError,
    readonly attempts: Attempt[],
    readonly provider: string,
  ) {
    super(error.message);
  }
}

/**
 * Runs the operation on `providers` in order until one answers. Each call gets the provider
 * timeout, cut to what is left before `endsAtMs` less the refund's reserve: whatever the providers
 * do, the chain ends in time for the refund.
 */
export async function serveWithFailover(
  providers: readonly SocialProvider[],
  operation: OperationDefinition,
  input: Record<string, unknown>,
  { timeoutMs, endsAtMs, now }: { timeoutMs: number; endsAtMs: number; now: () => number },
): Promise<Served> {
  const attempts: Attempt[] = [];
  let last: unknown = new UpstreamError('no provider could be tried before the deadline');
  for (const provider of providers) {
    const budgetMs = Math.min(timeoutMs, endsAtMs - now() - REFUND_RESERVE_MS);
    if (budgetMs < MIN_ATTEMPT_MS) break;
    const startedAt = now();
    try {
      const fault = testFault(operation.name, provider.name, input);
      const output = await callProvider(fault ?? provider, operation, input, budgetMs);
      attempts.push({ provider: provider.name, ok: true, ms: now() - startedAt });
      noteAttempts(operation.name, attempts, now());
      return { output, provider: provider.name, attempts };
    } catch (error) {
      if (error instanceof UpstreamNotFoundError) {
        attempts.push({ provider: provider.name, ok: true, ms: now() - startedAt });
        noteAttempts(operation.name, attempts, now());
        throw new NotFoundAnswer(error, attempts, provider.name);
      }
      last = error;
      // An input this provider cannot take (its endpoint has no such option): the next is tried, and this one's health is untouched.
      if (error instanceof UpstreamError && error.detail.code === 'unsupported_input') continue;
      attempts.push({ provider: provider.name, ok: false, ms: now() - startedAt });
    }
  }
  noteAttempts(operation.name, attempts, now());
  throw new EveryProviderFailed(last, attempts);
}
