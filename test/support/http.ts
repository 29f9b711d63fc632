import { gunzipSync } from 'node:zlib';
import type { HttpEvent, HttpResult } from '../../lib/http/types.ts';
import { buildHttpEvent, localContext } from '../../lib/local/apigw-event.ts';
import { matchRoute, routeKey } from '../../lib/routes.ts';
import { assertDescribed } from './contract.ts';

// Loose on purpose: middy's handler type has overloads (2 and 3 arguments) that a plain type cannot name.
export type Handler = (event: HttpEvent, context: any, options?: any) => unknown;

export interface Call {
  method?: string;
  /** Path with the query string, e.g. "/organizations/org_a/billing/events?days=3". */
  url: string;
  token?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The client's address as API Gateway saw it (`requestContext.http.sourceIp`); default 127.0.0.1. */
  sourceIp?: string;
  /**
   * Check the answer against openapi.json (default). Only a handler that is not a route of the
   * table (a test-only endpoint exercising the chain) turns this off.
   */
  contract?: boolean;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** The body exactly as sent on the wire (decoded from base64 and gzip). */
  raw: string;
}

/** The body's text: API Gateway decodes a base64 body to bytes, and the client gunzips it. */
function bodyText(result: HttpResult, headers: Record<string, string>): string {
  if (!result.body) return '';
  if (!result.isBase64Encoded) return result.body;
  const bytes = Buffer.from(result.body, 'base64');
  return (headers['content-encoding'] === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
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
    ...(request.sourceIp === undefined ? {} : { sourceIp: request.sourceIp }),
  });
  const result = (await handler(event, localContext(route.name))) as HttpResult;
  const outHeaders = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
  const raw = bodyText(result, outHeaders);
  const isJson = (outHeaders['content-type'] ?? '').startsWith('application/json');
  const answer = { status: result.statusCode ?? 200, headers: outHeaders, body: raw && isJson ? JSON.parse(raw) : raw || undefined, raw };
  const subset = new URLSearchParams(query).has('fields');
  if (request.contract !== false) assertDescribed(method, pathname, route.path === '$default', answer, subset);
  return answer;
}

/** The body of an error answer without its (random) request id, for whole-body comparisons. */
export const withoutRequestId = (body: Record<string, unknown>) => {
  const { request_id: _ignored, ...rest } = body;
  return rest;
};
