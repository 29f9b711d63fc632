import type { MiddlewareObj } from '@middy/core';
import { internalError, ServiceError } from '../errors.ts';
import { logError } from '../log.ts';
import type { ErrorBody } from './error-body.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

function toServiceError(error: unknown, context: ServiceContext): ServiceError {
  if (error instanceof ServiceError) return error;
  // Anything else is a bug or an outage: log the details, answer with nothing internal.
  logError('unhandled error', error, { request_id: context.requestId });
  return internalError();
}

export function errorBody(error: ServiceError, requestId: string): ErrorBody {
  const { issues, data } = error.details;
  const hasIssues = issues !== undefined && issues.length > 0;
  return {
    code: error.code,
    message: error.message,
    ...(hasIssues || data ? { data: { ...data, ...(hasIssues ? { issues } : {}) } } : {}),
    request_id: requestId,
  };
}

/** The headers an error implies: its protocol headers, and `Retry-After` when it says when to come back. */
export const errorHeaders = (error: ServiceError): Record<string, string> => ({
  ...error.details.headers,
  ...(error.details.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.details.retryAfterSeconds) }),
});

/**
 * The one error mapper: every error becomes the answer, a documented error body (anything
 * unexpected a plain 500 `internal_error`, logged). It is the innermost onError (middy runs
 * them in reverse order of registration), so the request log, CORS and request id stamps see
 * the answer it wrote.
 */
export const errorMapper = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  onError: async (request) => {
    let error = toServiceError(request.error, request.context);
    // The counter was started before this error surfaced: 429 ranks above 400/403/404/409/402.
    if (error.status !== 429 && request.context.rateLimit) {
      try {
        await request.context.rateLimit.check();
      } catch (limited) {
        error = limited as ServiceError;
      }
    }
    request.response = {
      statusCode: error.status,
      headers: { ...errorHeaders(error), 'Content-Type': 'application/json' },
      body: JSON.stringify(errorBody(error, request.context.requestId)),
    };
  },
});
