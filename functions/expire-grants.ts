/**
 * The grant expiry's function: EventBridge invokes it every minute (infra/grant-expiry.ts) and it
 * runs a pass every 15 s of that minute, so that a grant expires within 60 s of its `expires_at`
 * (lib/billing/expiry.ts). Not a route: no HTTP, no caller. A pass that could not handle a grant
 * ends in an error, so that the function's error alarm fires; the next pass tries it again.
 */
import type { Context } from 'aws-lambda';
import { expireUntil } from '../lib/billing/expiry.ts';
import { logger } from '../lib/log.ts';

/** A pass every 15 s; the last one starts at least 15 s before the timeout. */
const PASS_EVERY_MS = 15_000;
const FINISH_RESERVE_MS = 15_000;

export const handler = async (_event: unknown, context: Context): Promise<{ expired: number }> => {
  logger.addContext(context);
  const result = await expireUntil(Date.now() + Math.min(context.getRemainingTimeInMillis() - FINISH_RESERVE_MS, 45_000), PASS_EVERY_MS);
  logger.info('grant expiry', { ...result });
  if (result.retried > 0) throw new Error(`grants left for the next pass: ${result.retried}`);
  return { expired: result.expired };
};
