import type { MiddlewareObj } from '@middy/core';
import { ServiceError } from '../errors.ts';
import type { HttpEvent, HttpResult, ServiceContext } from './types.ts';

/** `Bearer error="…"` → `Bearer resource_metadata="…", error="…"`: the other parameters are kept. */
function withResourceMetadata(error: ServiceError, url: string): ServiceError {
  const challenge = error.details.headers?.['WWW-Authenticate'] ?? 'Bearer';
  const params = challenge.replace(/^Bearer\s*/i, '');
  const header = `Bearer resource_metadata="${url}"${params ? `, ${params}` : ''}`;
  return new ServiceError(error.code, error.message, {
    ...error.details,
    headers: { ...error.details.headers, 'WWW-Authenticate': header },
  });
}

/**
 * Names the protected resource metadata (RFC 9728 §5.1) in the challenge of every 401, so that
 * a client that has no token (an MCP client) can discover the authorization server by itself.
 * Registered after the error mapper, so that its onError runs first (middy runs onError in
 * reverse order).
 */
export const resourceMetadataChallenge = (
  metadataUrl: (event: HttpEvent) => string,
): MiddlewareObj<HttpEvent, HttpResult, Error, ServiceContext> => ({
  onError: async (request) => {
    const error = request.error;
    if (error instanceof ServiceError && error.status === 401) request.error = withResourceMetadata(error, metadataUrl(request.event));
  },
});
