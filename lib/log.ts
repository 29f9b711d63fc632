import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { serviceName } from './config.ts';

/**
 * The one logger: Powertools Logger, one JSON object per line: `level`, `message`, `timestamp`,
 * `service`, the Lambda context once the chain has added it (`cold_start`, `function_arn`,
 * `function_memory_size`, `function_name`, `function_request_id`), `xray_trace_id` in Lambda,
 * then the keys the middleware chain appends (`request_id`, `route`, `caller`,
 * `organization_id`) and the line's own. Warnings and errors go to stderr. Never pass it tokens,
 * API keys, request bodies or whole events.
 *
 * Level: POWERTOOLS_LOG_LEVEL, else LOG_LEVEL (tests set `silent`), else INFO; a deployed
 * function's Lambda log level (AWS_LAMBDA_LOG_LEVEL, advanced logging controls, which the stack
 * sets from the same parameter) wins over both.
 */
export const createLogger = (): Logger =>
  new Logger({
    serviceName: serviceName(),
    // Powertools takes the environment's level in capitals only; `LOG_LEVEL=silent` must work too.
    logLevel: (process.env.POWERTOOLS_LOG_LEVEL || process.env.LOG_LEVEL || 'INFO').toUpperCase() as 'INFO',
  });

export const logger = createLogger();

/** What the chain passes to `addContext`: the Lambda context, or the one the local server builds (lib/local/apigw-event.ts). */
export type LambdaContextLike = Context;

/** An error with its details (name, message, stack) for the log, never for the client. */
export function logError(message: string, error: unknown, fields: Record<string, unknown> = {}): void {
  logger.error(message, { ...fields, error: error instanceof Error ? error : String(error) });
}

/**
 * Keys for every later line of the current request, its `request` line included (the chain
 * drops them when the request ends): what a paid run names there (operation, credits).
 */
export const logKeys = (keys: Record<string, string | number | boolean>): void => logger.appendKeys(keys);
