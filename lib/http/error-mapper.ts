import type { MiddlewareObj } from '@middy/core';
import { errorFields, internalError, invalidJson, ServiceError } from '../errors.ts';
import { logError } from '../log.ts';
import type { ErrorBody } from './error-body.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

/** Errors thrown by middy's JSON body parser carry a 415 and the package name in `cause`. */
function isBodyParserError(error: unknown): boolean {
  const cause = (error as { cause?: { package?: string } } | null)?.cause;
  return cause?.package === '@middy/http-json-body-parser';
}

function toServiceError(error: unknown, context: ServiceContext): ServiceError {
  if (error instanceof ServiceError) return error;
  if (isBodyParserError(error)) return invalidJson('must be a JSON document');
  // Anything else is a bug or an outage: log the details, answer with nothing internal.
  logError('unhandled error', error, { request_id: context.requestId });
  return internalError();
}

export const errorBody = (error: ServiceError, requestId: string): ErrorBody => ({ ...errorFields(error), request_id: requestId });

/** The headers an error implies: its protocol headers, and `Retry-After` when it says when to come back. */
export const errorHeaders = (error: ServiceError): Record<string, string> => ({
  ...error.details.headers,
  ...(error.details.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.details.retryAfterSeconds) }),
});

/**
 * The one error mapper. Runs before @middy/http-error-handler (it is registered after it, and
 * middy runs onError in reverse order) and hands it a ready JSON body with `expose: true`.
 */
export const errorMapper = (): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  onError: async (request) => {
    let error = toServiceError(request.error, request.context);
    // An API key's standing was read alongside the handler: its 401 ranks above everything.
    if (error.status !== 401 && request.context.credential) {
      try {
        await request.context.credential.check();
      } catch (refused) {
        error = toServiceError(refused, request.context);
      }
    }
    // The counter was started before this error surfaced: 429 ranks above 400/403/404/409/402,
    // not above the key's own refusal of this address (which was not counted).
    if (error.status !== 401 && error.status !== 429 && error.code !== 'ip_not_allowed' && request.context.rateLimit) {
      try {
        await request.context.rateLimit.check();
      } catch (limited) {
        error = limited as ServiceError;
      }
    }
    request.error = Object.assign(new Error(JSON.stringify(errorBody(error, request.context.requestId))), {
      statusCode: error.status,
      expose: true,
      headers: errorHeaders(error),
    });
  },
});
