/**
 * `npm run --silent admin -- charges …` (docs/charges.md): the runs charged and still pending,
 * and the charge sweeper on demand. Dispatched by scripts/admin.ts once it has pointed the data
 * layer at a table (the modules below read their configuration on first use).
 */
export const CHARGES_USAGE = `  charges pending [--org ID]                           runs charged and not yet settled or refunded
  charges sweep [--at ISO-8601]                        refund the runs that can no longer finish (due by --at, default now)`;

export type ChargesCommand = 'pending' | 'sweep';

export const isChargesCommand = (sub: string | undefined): sub is ChargesCommand => sub === 'pending' || sub === 'sweep';

export async function chargesCommand(sub: ChargesCommand, options: { orgId?: string; now?: Date }): Promise<unknown> {
  if (sub === 'sweep') {
    const { sweepPendingRuns } = await import('../lib/billing/sweeper.ts');
    const result = await sweepPendingRuns(options.now ? { now: options.now } : {});
    if (result.failed > 0) {
      throw new Error(`refunded ${result.refunded}; ${result.failed} refunds could not be written (see the log): run the sweep again`);
    }
    return { refunded: result.refunded };
  }
  const { listPendingRuns } = await import('../lib/db/pending-runs.ts');
  const nowMs = (options.now ?? new Date()).getTime();
  const runs = await listPendingRuns(options.orgId);
  return {
    pending: runs.map((run) => ({
      organization_id: run.orgId,
      user_id: run.userId,
      operation: run.operation,
      cost: run.cost,
      charge_id: run.eventId,
      charged_at: run.chargedAt,
      sweep_after: new Date(run.sweepAfterMs).toISOString(),
      // Due: the run can no longer finish, and the next sweep refunds it.
      due: run.sweepAfterMs <= nowMs,
      idempotency_key: run.idempotencyKey !== undefined,
    })),
  };
}
