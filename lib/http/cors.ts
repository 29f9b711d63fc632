import type { MiddlewareObj } from '@middy/core';
import { corsAllowedOrigins } from '../config.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

/**
 * What browsers may do, stated once: the local server answers with it, the handlers stamp it,
 * and the CDK stack gives the same to API Gateway's CORS configuration (which answers preflights
 * itself when deployed).
 */
export const CORS_POLICY = {
  allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowHeaders: [
    'Authorization',
    'Content-Type',
    'Endless-Api-Version',
    'Service-Api-Version',
    'Idempotency-Key',
    'Cache-Control',
    'Max-Credits',
  ],
  exposeHeaders: [
    'x-request-id',
    'Endless-Api-Version',
    'RateLimit-Limit',
    'RateLimit-Remaining',
    'RateLimit-Reset',
    'Retry-After',
    'Credits-Charged',
    'Credits-Remaining',
    'Idempotent-Replayed',
    'Charge-Id',
    'Cache-Status',
    'Age',
    'Sample-Data',
    'WWW-Authenticate',
    // The next page of a CSV listing (billing events).
    'Link',
  ],
  maxAgeSeconds: 600,
} as const;

let origins: readonly string[] | undefined;
const allowedOrigins = (): readonly string[] => {
  origins ??= corsAllowedOrigins();
  return origins;
};

/** The Access-Control-Allow-Origin value for this request's Origin, or undefined (CORS off, or an origin not allowed). */
function allowOrigin(event: HttpEvent): string | undefined {
  const origin = event.headers?.origin;
  const allowed = allowedOrigins();
  if (!origin) return undefined;
  if (allowed.includes('*')) return '*';
  return allowed.includes(origin) ? origin : undefined;
}

/** `http://` and a loopback host (`localhost`, `127.x.x.x`, `[::1]`), with its port. */
const LOOPBACK_ORIGIN = /^http:\/\/((?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?)$/;

/**
 * A page of this very server on a loopback address (the local docs page): its `Origin` names
 * the loopback host and port the request was sent to. A DNS-rebound page cannot have one: its
 * origin is the attacker's name, which is then its `Host` too. Deployed, `Host` is never loopback.
 */
function ownLoopbackOrigin(event: HttpEvent, origin: string): boolean {
  const host = LOOPBACK_ORIGIN.exec(origin)?.[1];
  return host !== undefined && host === event.headers?.host;
}

/**
 * The request's `Origin` when it is present and not an allowed origin (one CORS allows, or this
 * server's own on a loopback address): a page on another site, or a DNS-rebound name, that /mcp
 * refuses with 403. Non-browser clients send no `Origin`, and a browser sends one for every
 * cross-origin request and every POST.
 */
export function foreignOrigin(event: HttpEvent): string | undefined {
  const origin = event.headers?.origin;
  if (origin === undefined || allowOrigin(event) !== undefined || ownLoopbackOrigin(event, origin)) return undefined;
  return origin;
}

/**
 * The answer to a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
 * when CORS is on: 204 with the policy for an allowed origin, 204 without CORS headers for any
 * other (the browser then refuses). Null when it is not a preflight or CORS is off, so the
 * request is answered like any other unknown route.
 */
const isPreflight = (event: HttpEvent): boolean =>
  event.requestContext.http.method === 'OPTIONS' && !!event.headers?.origin && !!event.headers['access-control-request-method'];

export function preflight(event: HttpEvent): HttpResult | null {
  if (!isPreflight(event) || allowedOrigins().length === 0) return null;
  const origin = allowOrigin(event);
  return {
    statusCode: 204,
    headers: {
      Vary: 'Origin',
      ...(origin
        ? {
            'Access-Control-Allow-Origin': origin,
            'Access-Control-Allow-Methods': CORS_POLICY.allowMethods.join(', '),
            'Access-Control-Allow-Headers': CORS_POLICY.allowHeaders.join(', '),
            'Access-Control-Max-Age': String(CORS_POLICY.maxAgeSeconds),
          }
        : {}),
    },
    body: '',
  };
}

/** Every answer to an allowed origin, errors included, says so and exposes the headers a client reads. */
export const cors = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => {
  const stamp: MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext>['after'] = async (request) => {
    // A preflight's answer carries its own headers (preflight()).
    if (allowedOrigins().length === 0 || !request.response || isPreflight(request.event)) return;
    const origin = allowOrigin(request.event);
    request.response.headers = {
      ...request.response.headers,
      Vary: 'Origin',
      ...(origin ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': CORS_POLICY.exposeHeaders.join(', ') } : {}),
    };
  };
  return { after: stamp, onError: stamp };
};
