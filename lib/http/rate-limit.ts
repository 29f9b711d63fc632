import type { MiddlewareObj } from '@middy/core';
import { config } from '../config.ts';
import { countRequest } from '../db/rate-limit.ts';
import { rateLimited } from '../errors.ts';
import { logError } from '../log.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends (at least 1). */
  resetSeconds: number;
  exceeded: boolean;
}

/**
 * The caller's counter increment, started early and awaited late: handlers run their own
 * first reads alongside it (one round trip for both) and consult it before acting, so the
 * documented order of checks (429 before 400/404/403) holds without a sequential round trip.
 */
export class RateLimitGate {
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

  /** Awaits `work` together with the counter; a 429 wins over whatever `work` did. */
  async alongside<T>(work: Promise<T>): Promise<T> {
    const [, result] = await Promise.allSettled([this.state, work]);
    await this.check();
    if (result.status === 'rejected') throw result.reason;
    return result.value;
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
    request.context.rateLimit = new RateLimitGate(pending);
  },
});

/** For handlers: run `work` alongside the rate-limit counter (see RateLimitGate.alongside). */
export const alongsideRateLimit = <T>(context: ServiceContext, work: Promise<T>): Promise<T> =>
  context.rateLimit ? context.rateLimit.alongside(work) : work;
