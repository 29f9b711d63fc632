import { MAX_AUTHORIZATION_BYTES, TokenRefused } from './refusals.ts';

// RFC 6750 §2.1 b64token; one token only (a header sent twice arrives joined by a comma).
const BEARER = /^Bearer +([A-Za-z0-9\-_.~+/]+=*)$/i;

/** The token of an `Authorization: Bearer <token>` header, or TokenRefused (missing, too large, not Bearer). */
export function bearerToken(header: string | undefined): string {
  if (!header) throw new TokenRefused('missing');
  // Bounded before any parsing: an oversized header costs no regex, base64 or JSON work.
  if (Buffer.byteLength(header) > MAX_AUTHORIZATION_BYTES) throw new TokenRefused('too_large');
  const token = BEARER.exec(header.trim())?.[1];
  if (!token) throw new TokenRefused('not_bearer');
  return token;
}
