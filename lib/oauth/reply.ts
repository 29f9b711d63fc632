/**
 * How an OAuth endpoint answers: JSON never cached (RFC 6749 §5.1), errors as `{error,
 * error_description}` (§5.2) with the request id beside them.
 */
import { OAuthError } from './errors.ts';

export interface OAuthReply {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export const oauthJson = (statusCode: number, body: unknown): OAuthReply => ({
  statusCode,
  headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', Pragma: 'no-cache' },
  body: JSON.stringify(body),
});

/** An OAuthError as its answer; anything else is thrown on (the chain's 500). */
export function oauthErrorReply(error: unknown, requestId: string): OAuthReply {
  if (!(error instanceof OAuthError)) throw error;
  const reply = oauthJson(error.status, { error: error.error, error_description: error.description, request_id: requestId });
  if (error.retryAfterSeconds !== undefined) reply.headers['Retry-After'] = String(error.retryAfterSeconds);
  return reply;
}
