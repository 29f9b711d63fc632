/**
 * The recovery of stalled jobs' function: EventBridge invokes it every minute (infra/jobs.ts).
 * Not a route: no HTTP, no caller. Finds the jobs whose creation was cut short before all their
 * messages were sent (lib/jobs/recovery.ts): sends their pending items' messages again, or
 * cancels those whose items were never written. A run in which a job could not be recovered ends
 * in an error, so that the function's error alarm fires; a later run tries that job again.
 */
import type { Context } from 'aws-lambda';
import { type RecoveryResult, recoverStalledJobs } from '../lib/jobs/recovery.ts';
import { logger } from '../lib/log.ts';

/** Time kept back from the function's timeout for the jobs already taken on. */
const FINISH_RESERVE_MS = 10_000;

export const handler = async (_event: unknown, context: Context): Promise<RecoveryResult> => {
  logger.resetKeys();
  logger.addContext(context);
  const result = await recoverStalledJobs(new Date(), { stopByMs: Date.now() + context.getRemainingTimeInMillis() - FINISH_RESERVE_MS });
  logger.info('job recovery', { ...result });
  return result;
};
