/**
 * The one error family of the service. Domain and storage code throw these; the error mapper
 * (lib/http/error-mapper.ts) turns them, and anything else, into the documented error body.
 */

export interface Issue {
  path: (string | number)[];
  code: string;
  message: string;
}

export type ErrorCode =
  | 'validation_failed'
  | 'invalid_json'
  | 'bad_request'
  | 'headers_too_large'
  | 'unsupported_api_version'
  | 'unauthenticated'
  | 'insufficient_credits'
  | 'spending_limit_exceeded'
  | 'forbidden'
  | 'operation_not_enabled'
  | 'not_found'
  | 'route_not_found'
  | 'slug_taken'
  | 'name_taken'
  | 'parent_deleted'
  | 'idempotency_key_reused'
  | 'rate_limited'
  | 'internal_error'
  | 'upstream_failed';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly options: { issues?: Issue[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
  }
}

export const validationFailed = (issues: Issue[]): ApiError => {
  const first = issues[0];
  const message = first ? `${first.path.join('.')}: ${first.message}` : 'request is invalid';
  return new ApiError(400, 'validation_failed', message, { issues });
};

export const invalidJson = (detail: string): ApiError =>
  new ApiError(400, 'invalid_json', `body: ${detail}`, {
    issues: [{ path: ['body'], code: 'invalid_json', message: detail }],
  });

/** A request API Gateway refuses before any route: not parseable as HTTP, or a target that is no path. */
export const badRequest = (message: string): ApiError => new ApiError(400, 'bad_request', message);

/** API Gateway's limit on the request line plus header values (HTTP API quota, not adjustable). */
export const headersTooLarge = (limitBytes: number): ApiError =>
  new ApiError(431, 'headers_too_large', `the request line and headers exceed ${limitBytes} bytes`);

export const unauthenticated = (tokenSent: boolean): ApiError =>
  new ApiError(401, 'unauthenticated', tokenSent ? 'the bearer token is not valid' : 'a bearer token is required', {
    headers: { 'WWW-Authenticate': tokenSent ? 'Bearer error="invalid_token"' : 'Bearer' },
  });

export const unsupportedApiVersion = (message: string): ApiError => new ApiError(400, 'unsupported_api_version', message);

export const forbidden = (message: string): ApiError => new ApiError(403, 'forbidden', message);

/** Same body whatever the reason, so an id cannot be probed. */
export const notFound = (): ApiError => new ApiError(404, 'not_found', 'no such resource');

export const rateLimited = (retryAfterSeconds: number): ApiError =>
  new ApiError(429, 'rate_limited', `rate limit exceeded, retry in ${retryAfterSeconds} s`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

export const conflict = (code: 'slug_taken' | 'name_taken' | 'parent_deleted' | 'idempotency_key_reused', message: string): ApiError =>
  new ApiError(409, code, message);
