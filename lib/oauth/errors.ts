/**
 * The errors of the OAuth endpoints (RFC 6749 §5.2, RFC 7591 §3.2.2): `{error, error_description}`,
 * the shape every OAuth client parses, not this API's `{code, message}`. Thrown by the domain and
 * answered by the OAuth functions (functions/oauth-*.ts).
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'access_denied'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    /** With a 429: when to try again (the Retry-After header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
  }
}
