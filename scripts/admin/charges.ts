/**
 * `admin charges …` (docs/charges.md): the runs charged and still pending, and the charge
 * sweeper on demand (the deployed stack runs it every minute, `npm start` on an interval).
 */
import { type CommandGroup, command, orgId, UsageError } from './command.ts';

const pending = command({
  name: 'pending',
  summary: 'runs charged and not yet settled or refunded',
  options: { org: { type: 'string', value: 'ID', description: 'only this organization' } },
  parse: (args) => ({ orgId: args.optional('org') === undefined ? undefined : orgId(args) }),
  run: async ({ orgId: org }) => {
    const { listPendingRuns } = await import('../../lib/db/pending-runs.ts');
    const nowMs = Date.now();
    const runs = await listPendingRuns(org);
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
  },
});

const sweep = command({
  name: 'sweep',
  summary: 'refund the runs that can no longer finish, each exactly once; prints {"refunded": N}',
  options: { at: { type: 'string', value: 'ISO-8601', description: 'refund the runs due by then (default now)' } },
  parse: (args) => {
    const at = args.optional('at');
    if (at !== undefined && Number.isNaN(Date.parse(at))) throw new UsageError('--at must be an ISO 8601 date-time');
    return { now: at === undefined ? undefined : new Date(at) };
  },
  run: async ({ now }) => {
    const { sweepPendingRuns } = await import('../../lib/billing/sweeper.ts');
    const result = await sweepPendingRuns(now ? { now } : {});
    if (result.failed > 0) {
      throw new Error(`refunded ${result.refunded}; ${result.failed} refunds could not be written (see the log): run the sweep again`);
    }
    return { refunded: result.refunded };
  },
});

export const group: CommandGroup = { name: 'charges', commands: [pending, sweep] };
