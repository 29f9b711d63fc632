import type { MiddlewareObj } from '@middy/core';
import { config } from '../config.ts';
import { countRequest } from '../db/rate-limit.ts';
import { rateLimited, ServiceError } from '../errors.ts';
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

  constructor(pending: Promise<RateLimitState | undefined>) {
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

/** The key's refusal of the request's address: such a request is not the key's, and is not counted. */
const refusedAddress = (error: unknown): boolean => error instanceof ServiceError && error.code === 'ip_not_allowed';

/**
 * Counts the request in its caller's window. An API key with a rate of its own (`rate_limit`) is
 * held to it rather than to the stack's limit: its record is read alongside the counter, so this
 * costs no round trip. A request of a key from an address it is not bound to is taken back out of
 * the window (its answer is the 403, and no RateLimit-* headers), so that whoever holds a leaked
 * key cannot use up the window of the agent it belongs to.
 */
export const rateLimit = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  before: async (request) => {
    const { requests, windowSeconds } = config().rateLimit;
    const nowMs = Date.now();
    const { caller } = request.context;
    const counted = countRequest(caller.userId, nowMs, windowSeconds);
    const key = caller.apiKey?.grant.then(
      (granted) => ({ own: granted.rate_limit?.requests, refused: false }),
      (error: unknown) => ({ own: undefined, refused: refusedAddress(error) }),
    );
    const pending = Promise.all([counted, key]).then(async ([{ count, windowEndsMs }, rate]) => {
      if (rate?.refused) {
        await countRequest(caller.userId, nowMs, windowSeconds, -1);
        return undefined;
      }
      // A key's own rate never exceeds the stack's (a stack whose limit was lowered since it was set included).
      const limit = Math.min(rate?.own ?? requests, requests);
      return {
        limit,
        remaining: Math.max(0, limit - count),
        resetSeconds: Math.max(1, Math.ceil((windowEndsMs - nowMs) / 1000)),
        exceeded: count > limit,
      };
    });
    request.context.rateLimit = new RateLimitCounter(pending);
  },
});
