import type { HttpEvent, HttpResult } from '../../lib/http/types.ts';
import { buildHttpEvent, localContext } from '../../lib/local/apigw-event.ts';
import { matchRoute, routeKey } from '../../lib/routes.ts';

// Loose on purpose: middy's handler type has overloads (2 and 3 arguments) that a plain type cannot name.
export type Handler = (event: HttpEvent, context: any, options?: any) => unknown;

export interface Call {
  method?: string;
  /** Path with the query string, e.g. "/organizations/org_a/billing/events?days=3". */
  url: string;
  token?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** The body exactly as sent on the wire. */
  raw: string;
}

/**
 * Invokes a real handler (its whole middy chain) with the event API Gateway would send for
 * this request, routed through the same route table as the local server and the stack.
 */
export async function call(handler: Handler, request: Call): Promise<Answer> {
  const method = request.method ?? 'GET';
  const [pathname = '/', query = ''] = request.url.split('?');
  const { route, pathParameters } = matchRoute(method, pathname);
  const headers: Record<string, string> = { ...(request.headers ?? {}) };
  if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  const event = buildHttpEvent({
    method,
    path: pathname,
    routeKey: routeKey(route),
    rawQueryString: query,
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(pathParameters ? { pathParameters } : {}),
  });
  const result = (await handler(event, localContext(route.name))) as HttpResult;
  const outHeaders = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
  return {
    status: result.statusCode ?? 200,
    headers: outHeaders,
    body: result.body ? JSON.parse(result.body) : undefined,
    raw: result.body ?? '',
  };
}

/** The body of an error answer without its (random) request id, for whole-body comparisons. */
export const withoutRequestId = (body: Record<string, unknown>) => {
  const { request_id: _ignored, ...rest } = body;
  return rest;
};
