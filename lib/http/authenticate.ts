import type { MiddlewareObj } from '@middy/core';
import { tokenVerifier } from '../auth/verifier.ts';
import { unauthenticated } from '../errors.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

const BEARER = /^Bearer +([A-Za-z0-9\-_.~+/]+=*)$/i;

/**
 * Bearer-JWT authentication. Any verification failure (signature, algorithm, kid, issuer,
 * audience, expiry, malformed token) is one answer: 401 with WWW-Authenticate.
 */
export const authenticate = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  before: async (request) => {
    const header = request.event.headers?.authorization;
    if (!header) throw unauthenticated(false);
    const match = BEARER.exec(header.trim());
    if (!match?.[1]) throw unauthenticated(true);
    let payload: { sub?: unknown };
    try {
      payload = await tokenVerifier().verify(match[1]);
    } catch {
      throw unauthenticated(true);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthenticated(true);
    request.context.caller = { userId: payload.sub };
  },
});
