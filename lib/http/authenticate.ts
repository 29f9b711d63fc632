import type { MiddlewareObj } from '@middy/core';
import { bearerToken } from '../auth/bearer.ts';
import { TokenRefused } from '../auth/refusals.ts';
import { tokenVerifier } from '../auth/verifier.ts';
import { invalidToken, unauthenticated } from '../errors.ts';
import { recordUnauthorized } from '../observability/metrics.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

/**
 * Bearer-JWT authentication (lib/auth). A refused token answers 401 saying why
 * (docs/authentication.md); the reason also goes on the request log line and into the
 * `Unauthorized` metric. A verifier that cannot reach the JWKS is not the client's fault: that
 * error passes through and answers 500.
 */
export const authenticate = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  before: async (request) => {
    try {
      const token = bearerToken(request.event.headers?.authorization);
      const { sub } = await tokenVerifier().verify(token);
      request.context.caller = { userId: sub };
    } catch (error) {
      if (!(error instanceof TokenRefused)) throw error;
      request.context.authFailure = error.reason;
      recordUnauthorized(error.reason);
      throw error.reason === 'missing' ? unauthenticated() : invalidToken(error.reason, error.message);
    }
  },
});
