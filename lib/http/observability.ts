import type { MiddlewareObj } from '@middy/core';
import { type LambdaContextLike, logger } from '../log.ts';
import { recordColdStart, recordRequest } from '../observability/metrics.ts';
import { tracingMiddleware } from '../observability/tracer.ts';
import { routeNames } from './route-keys.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

type Middleware = MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext>;

/** The route's name from the route table (the `route` log key and metric dimension). */
const routeOf = (event: HttpEvent): string => routeNames[event.routeKey] ?? event.routeKey ?? 'unknown';

let coldStart = true;

/** The `ColdStart` metric, on the first request of an instance. */
const coldStartMetric = (): MiddlewareObj => ({
  before: async (request) => {
    if (!coldStart) return;
    coldStart = false;
    recordColdStart((request.context as { functionName?: string }).functionName ?? '');
  },
});

/** The Lambda context on every log line of a request; the keys appended during it are dropped at its end. */
const lambdaContextLogging = (): MiddlewareObj => {
  const reset = async () => logger.resetKeys();
  return {
    before: async (request) => {
      logger.resetKeys();
      logger.addContext(request.context as LambdaContextLike);
    },
    after: reset,
    onError: reset,
  };
};

/**
 * The outermost middlewares of every chain: the Tracer (when bundled), the Lambda context on
 * every log line, and the cold start metric. The request's own metric is written with its log
 * line (requestLog).
 */
export const outermost = (): MiddlewareObj[] => [...tracingMiddleware(), lambdaContextLogging(), coldStartMetric()];

const organizationOf = (input: ServiceContext['input'] | undefined): string | undefined => {
  const from = (part: unknown) => (part as { organization_id?: unknown } | undefined)?.organization_id;
  const value = from(input?.path) ?? from(input?.query);
  return typeof value === 'string' ? value : undefined;
};

/** The documented error code of an error answer (the mapper wrote it), for the request log line. */
const codeOf = (response: HttpResult | null | undefined): string | undefined => {
  if (!response || (response.statusCode ?? 200) < 400 || typeof response.body !== 'string') return undefined;
  try {
    return (JSON.parse(response.body) as { code?: string }).code;
  } catch {
    return undefined;
  }
};

/**
 * One log line and one `Requests` metric per request. Goes right after requestContext (which
 * has the request id), so its after/onError run once the response exists, error or not.
 */
export const requestLog = (): Middleware => {
  const done: Middleware['after'] = async (request) => {
    const status = request.response?.statusCode ?? 500;
    const code = codeOf(request.response);
    const organizationId = organizationOf(request.context.input);
    const { startedAt } = request.internal as { startedAt: number };
    recordRequest(routeOf(request.event), status);
    logger.info('request', {
      status,
      ...(code ? { code } : {}),
      ...(request.context.authFailure ? { auth_failure: request.context.authFailure } : {}),
      duration_ms: Date.now() - startedAt,
      ...(request.context.caller ? { caller: request.context.caller.userId } : {}),
      ...(organizationId ? { organization_id: organizationId } : {}),
    });
  };
  return {
    before: async (request) => {
      (request.internal as { startedAt: number }).startedAt = Date.now();
      logger.appendKeys({ request_id: request.context.requestId, route: routeOf(request.event) });
    },
    after: done,
    onError: done,
  };
};

/**
 * After validation: who is calling, for which organization, on every later log line. Handlers
 * whose organization comes from the resource (restore) append `organization_id` themselves.
 */
export const logIdentity = (): Middleware => ({
  before: async (request) => {
    const organizationId = organizationOf(request.context.input);
    logger.appendKeys({
      caller: request.context.caller.userId,
      ...(organizationId ? { organization_id: organizationId } : {}),
    });
  },
});
