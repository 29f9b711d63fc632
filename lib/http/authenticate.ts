import type { MiddlewareObj } from '@middy/core';
import { apiKeyStanding } from '../auth/api-key-standing.ts';
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
 *
 * An API key's token is verified here like any other; whether the key still stands (not revoked,
 * its organization still there, used from one of its `allowed_ips`) is read alongside the
 * handler's first reads: the handler sees the key's grant through its caller, its writes and its
 * answer wait for the verdict (endpoint()), and a refusal outranks whatever else the request would
 * have answered (the error mapper): its 401, or its 403 `ip_not_allowed`, which ranks right after
 * authentication, above the version check, the rate limit and validation.
 */
export const authenticate = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  before: async (request) => {
    const { context } = request;
    const refuse = (error: TokenRefused) => {
      context.authFailure = error.reason;
      recordUnauthorized(error.reason);
      return error.reason === 'missing' ? unauthenticated() : invalidToken(error.reason, error.message);
    };
    try {
      const token = bearerToken(request.event.headers?.authorization);
      const { sub, apiKey, verifiedEmail } = await tokenVerifier().verify(token);
      // The address API Gateway saw (locally, the socket's): never a header the client sets.
      const sourceIp = request.event.requestContext?.http?.sourceIp ?? '';
      const origin = { id: context.requestId, sourceIp: sourceIp || null };
      if (!apiKey) {
        context.caller = verifiedEmail === undefined ? { userId: sub, request: origin } : { userId: sub, verifiedEmail, request: origin };
        return;
      }
      const standing = apiKeyStanding(apiKey.orgId, apiKey.id, new Date(), sourceIp);
      const mapped = (error: unknown) => {
        throw error instanceof TokenRefused ? refuse(error) : error;
      };
      const grant = standing.grant.catch(mapped);
      const settled = standing.settled.catch(mapped);
      // Awaited later (or never, when the handler fails first): no unhandled rejection meanwhile.
      grant.catch(() => undefined);
      settled.catch(() => undefined);
      context.caller = { userId: sub, apiKey: { ...apiKey, grant }, request: origin };
      context.credential = { check: () => settled };
    } catch (error) {
      if (!(error instanceof TokenRefused)) throw error;
      throw refuse(error);
    }
  },
});
