import { randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

export const API_VERSION = '1';

/**
 * Outermost middleware: gives each request its id, and stamps the headers every response
 * carries (request id, API version, rate-limit state) on success and on error alike.
 */
export const requestContext = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => {
  const before: MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext>['before'] = async (request) => {
    request.context.requestId = request.event.requestContext?.requestId || randomUUID();
    request.context.rateLimit = undefined;
    request.context.authFailure = undefined;
    request.context.credential = undefined;
  };
  const stamp: MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext>['after'] = async (request) => {
    const response = request.response ?? { statusCode: 500 };
    const headers: Record<string, string | number | boolean> = {
      // No body (a 204, an MCP notification's 202), so no Content-Type.
      ...(response.body === undefined || response.body === '' ? {} : { 'Content-Type': 'application/json' }),
      ...(response.headers ?? {}),
      'x-request-id': request.context.requestId,
      'Endless-Api-Version': API_VERSION,
    };
    // A 401 names no window: the caller is not known (an API key refused after the counter started).
    const state = response.statusCode === 401 ? undefined : await request.context.rateLimit?.settled();
    if (state) {
      headers['RateLimit-Limit'] = String(state.limit);
      headers['RateLimit-Remaining'] = String(state.remaining);
      headers['RateLimit-Reset'] = String(state.resetSeconds);
    }
    request.response = { ...response, headers };
  };
  return { before, after: stamp, onError: stamp };
};
