/**
 * The payments reconciler's function, which then runs the auto-recharges due (lib/billing/recharge.ts):
 * EventBridge invokes it every minute (infra/stack.ts). Not a
 * route: no HTTP, no caller. A pass that fails ends in an error, so that the function's error alarm
 * fires; the next minute's pass lists the same events again (its checkpoint did not move).
 */
import type { Context } from 'aws-lambda';
import { runDueRecharges } from '../lib/billing/recharge.ts';
import { reconcilePayments } from '../lib/billing/reconciler.ts';
import { logger } from '../lib/log.ts';

export const handler = async (_event: unknown, context: Context) => {
  logger.addContext(context);
  const reconciled = await reconcilePayments({ scheduled: true });
  // Then the auto-recharges due (retries, deferrals, a new month, recharges in flight looked after).
  const recharges = await runDueRecharges();
  logger.info('auto-recharges due', { ...recharges });
  if (recharges.retried > 0) throw new Error(`auto-recharges left for the next pass: ${recharges.retried}`);
  return { ...reconciled, recharges };
};
