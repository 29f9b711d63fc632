import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { RateLimitGate } from './rate-limit.ts';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

export interface Caller {
  /** The token's `sub`: the user id memberships are keyed by. */
  userId: string;
}

/**
 * Per-request state the middlewares hand to the handler. Kept on the Lambda context object
 * (the middy idiom for typed per-request data), filled in order by the before-middlewares.
 */
export interface ServiceContext extends Context {
  requestId: string;
  caller: Caller;
  rateLimit: RateLimitGate | undefined;
  /** Why the bearer token was refused (lib/auth/refusals.ts), for the request log line. */
  authFailure?: string;
  input: { path: unknown; query: unknown; headers?: unknown; body: unknown };
}
