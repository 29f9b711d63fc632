import type { MiddlewareObj } from '@middy/core';
import { config } from '../config.ts';
import { countRequest } from '../db/rate-limit.ts';
import { rateLimited } from '../errors.ts';
import { logError } from '../log.ts';
import type { HttpEvent, HttpResult, RateLimitGate, RateLimitState, ServiceContext } from './types.ts';

/**
 * The caller's counter increment, started early and awaited late: the handler's first reads go
 * out alongside it (one round trip for both), its writes and its answer wait for it (see
 * endpoint()), so the documented order of checks (429 before 400/404/403) holds without a
 * sequential round trip.
 */
export class RateLimitCounter implements RateLimitGate {
  private readonly state: Promise<RateLimitState | undefined>;

  constructor(pending: Promise<RateLimitState>) {
    // Fail open: a counter that cannot be written must not take the whole API down with it.
    this.state = pending.catch((error: unknown) => {
      logError('rate limit counter failed; request allowed', error);
      return undefined;
    });
  }

  settled(): Promise<RateLimitState | undefined> {
    return this.state;
  }

  /** Throws 429 if the caller is over its limit. */
  async check(): Promise<void> {
    const state = await this.state;
    if (state?.exceeded) throw rateLimited(state.resetSeconds);
  }
}

export const rateLimit = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  before: async (request) => {
    const { requests, windowSeconds } = config().rateLimit;
    const nowMs = Date.now();
    const pending = countRequest(request.context.caller.userId, nowMs, windowSeconds).then(({ count, windowEndsMs }) => ({
      limit: requests,
      remaining: Math.max(0, requests - count),
      resetSeconds: Math.max(1, Math.ceil((windowEndsMs - nowMs) / 1000)),
      exceeded: count > requests,
    }));
    request.context.rateLimit = new RateLimitCounter(pending);
  },
});
