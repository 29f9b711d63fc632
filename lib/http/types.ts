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
  /**
   * Epoch ms by which the answer must be on its way: the function's own deadline less the time to
   * write it (Infinity without one). No DynamoDB call is waited for past it; a run's provider call
   * and refund fit before it.
   */
  deadlineMs: number;
  /** Why the bearer token was refused (lib/auth/refusals.ts), for the request log line. */
  authFailure?: string;
  input: { path: unknown; query: unknown; headers?: unknown; body: unknown };
}
