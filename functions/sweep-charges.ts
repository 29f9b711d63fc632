/**
 * The charge sweeper's function: EventBridge invokes it every minute (infra/sweeper.ts), and it
 * returns idle credit lanes (lib/billing/lanes.ts) after the refunds. Not a
 * route: no HTTP, no caller. A sweep whose refunds failed ends in an error, so that the
 * function's error alarm fires; the next minute's sweep tries them again.
 */
import type { Context } from 'aws-lambda';
import { returnIdleLanes } from '../lib/billing/lanes.ts';
import { sweepPendingRuns } from '../lib/billing/sweeper.ts';
import { logger } from '../lib/log.ts';

/** Time kept back from the function's timeout for the refunds already started. */
const FINISH_RESERVE_MS = 10_000;

export const handler = async (_event: unknown, context: Context): Promise<{ refunded: number }> => {
  logger.addContext(context);
  const result = await sweepPendingRuns({ stopByMs: Date.now() + context.getRemainingTimeInMillis() - FINISH_RESERVE_MS });
  if (result.failed > 0) {
    logger.error('charge sweep: refunds failed', { ...result });
    throw new Error(`refunds failed: ${result.failed} (refunded ${result.refunded}); the next sweep tries again`);
  }
  // Then hot organizations' lanes idle past LANE_IDLE_SECONDS go back to their balance.
  const lanes = await returnIdleLanes();
  logger.info('charge sweep', { ...result, lanes_returned: lanes.lanes, lane_credits_returned: lanes.credits });
  return { refunded: result.refunded };
};
