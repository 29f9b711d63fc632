/**
 * One provider call under its deadline, its output checked against the operation's schema.
 * Whatever goes wrong comes out as an UpstreamError, which the run path refunds.
 */
import { recordUpstreamFailure, recordUpstreamLatency } from '../observability/metrics.ts';
import type { OperationDefinition } from './catalog/index.ts';
import { type SocialProvider, UpstreamError, UpstreamNotFoundError } from './providers/types.ts';

/**
 * Time kept back from the provider call for the refund when the run's own deadline is near: a
 * Lambda answers just before its timeout and the frozen instance would never write a refund
 * that was still pending, so the charge would be lost.
 */
export const REFUND_RESERVE_MS = 3_000;

/** How long the call may take: the configured timeout, cut short to leave the refund its reserve. */
export const providerBudgetMs = (timeoutMs: number, nowMs: number, deadlineMs: number): number =>
  Math.max(0, Math.min(timeoutMs, deadlineMs - nowMs - REFUND_RESERVE_MS));

/**
 * When a run started at `nowMs` has ended at the latest: its function's deadline (the function
 * is stopped then); without one (a direct call), the provider timeout plus the refund reserve.
 */
export const runEndsByMs = (timeoutMs: number, nowMs: number, deadlineMs: number): number =>
  Number.isFinite(deadlineMs) ? deadlineMs : nowMs + timeoutMs + REFUND_RESERVE_MS;

export async function callProvider(
  provider: SocialProvider,
  operation: OperationDefinition,
  input: Record<string, unknown>,
  budgetMs: number,
): Promise<unknown> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new UpstreamError(`the provider did not answer within ${budgetMs} ms`));
    }, budgetMs);
  });
  const startedAt = performance.now();
  try {
    // The race also bounds a provider that ignores the abort signal.
    const output = await Promise.race([provider.run({ operation, input, signal: controller.signal }), timeout]).finally(() =>
      recordUpstreamLatency(performance.now() - startedAt),
    );
    const parsed = operation.output.safeParse(output);
    if (!parsed.success) {
      throw new UpstreamError(`the provider's output breaks the output schema: ${JSON.stringify(parsed.error.issues.slice(0, 3))}`);
    }
    return parsed.data;
  } catch (error) {
    // "Not found upstream" is an answer (the account is not public), not a failing provider.
    if (!(error instanceof UpstreamNotFoundError)) recordUpstreamFailure();
    throw error instanceof UpstreamError ? error : new UpstreamError(`the provider failed: ${(error as Error)?.message ?? String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}
