/**
 * The payments reconciler's function: EventBridge invokes it every minute (infra/stack.ts). Not a
 * route: no HTTP, no caller. A pass that fails ends in an error, so that the function's error alarm
 * fires; the next minute's pass lists the same events again (its checkpoint did not move).
 */
import type { Context } from 'aws-lambda';
import { reconcilePayments } from '../lib/billing/reconciler.ts';
import { logger } from '../lib/log.ts';

export const handler = async (_event: unknown, context: Context) => {
  logger.addContext(context);
  return reconcilePayments({ scheduled: true });
};
