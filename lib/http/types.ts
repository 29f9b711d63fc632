import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Caller } from '../model.ts';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

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
  /**
   * An API key's standing, read alongside the handler (lib/http/authenticate.ts): `check()`
   * throws its 401 when the key is revoked or gone. Undefined for a user's token.
   */
  credential?: { check(): Promise<void> } | undefined;
  /** Why the bearer token was refused (lib/auth/refusals.ts), for the request log line. */
  authFailure?: string;
  input: { path: unknown; query: unknown; headers?: unknown; body: unknown };
}

/** The caller's rate-limit window after this request: what the RateLimit-* headers say. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends (at least 1). */
  resetSeconds: number;
  exceeded: boolean;
}

/** The caller's counter, started early and awaited late (lib/http/rate-limit.ts). */
export interface RateLimitGate {
  settled(): Promise<RateLimitState | undefined>;
  /** Throws 429 if the caller is over its limit. */
  check(): Promise<void>;
}
