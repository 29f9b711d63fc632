import { Logger } from '@aws-lambda-powertools/logger';
import { serviceName } from './config.ts';

/**
 * The one logger: Powertools Logger, one JSON object per line. Per request it carries the
 * Lambda context (function, cold start, Lambda request id) and the keys the middleware chain
 * appends: `request_id` (the id clients see in `x-request-id`), `route`, `caller`,
 * `organization_id`. Never pass it tokens, API keys, request bodies or whole events.
 *
 * Level: POWERTOOLS_LOG_LEVEL, else LOG_LEVEL (tests set `silent`), else INFO. A deployed
 * function's Lambda log level (advanced logging controls) takes precedence over both.
 */
export const logger = new Logger({
  serviceName: serviceName(),
  logLevel: (process.env.POWERTOOLS_LOG_LEVEL || process.env.LOG_LEVEL || 'INFO').toUpperCase() as 'INFO',
});

/** An error with its details (name, message, stack) for the log, never for the client. */
export function logError(message: string, error: unknown, fields: Record<string, unknown> = {}): void {
  logger.error(message, { ...fields, error: error instanceof Error ? error : String(error) });
}

/**
 * Keys for every later line of the current request, its `request` line included (the chain
 * drops them when the request ends): what a paid run names there (operation, credits).
 */
export const logKeys = (keys: Record<string, string | number | boolean>): void => logger.appendKeys(keys);
