import type { MiddlewareObj } from '@middy/core';
import { ApiError, invalidJson } from '../errors.ts';
import { logError } from '../log.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

export interface ErrorBody {
  code: string;
  message: string;
  data?: { issues: ApiError['options']['issues'] };
  request_id: string;
}

/** Errors thrown by middy's JSON body parser carry a 415 and the package name in `cause`. */
function isBodyParserError(error: unknown): boolean {
  const cause = (error as { cause?: { package?: string } } | null)?.cause;
  return cause?.package === '@middy/http-json-body-parser';
}

function toApiError(error: unknown, context: ServiceContext): ApiError {
  if (error instanceof ApiError) return error;
  if (isBodyParserError(error)) return invalidJson('must be a JSON document');
  // Anything else is a bug or an outage: log the details, answer with nothing internal.
  logError('unhandled error', error, { request_id: context.requestId });
  return new ApiError(500, 'internal_error', 'the request failed on the service side; retry with backoff');
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  const issues = error.options.issues;
  return {
    code: error.code,
    message: error.message,
    ...(issues && issues.length > 0 ? { data: { issues } } : {}),
    request_id: requestId,
  };
}

/**
 * The one error mapper. Runs before @middy/http-error-handler (it is registered after it, and
 * middy runs onError in reverse order) and hands it a ready JSON body with `expose: true`.
 */
export const errorMapper = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  onError: async (request) => {
    let error = toApiError(request.error, request.context);
    // The counter was started before this error surfaced: 429 ranks above 400/403/404/409/402.
    if (error.status !== 429 && request.context.rateLimit) {
      try {
        await request.context.rateLimit.check();
      } catch (limited) {
        error = limited as ApiError;
      }
    }
    request.error = Object.assign(new Error(JSON.stringify(errorBody(error, request.context.requestId))), {
      statusCode: error.status,
      expose: true,
      headers: error.options.headers ?? {},
    });
  },
});
