/**
 * The checks this service adds to aws-jwt-verify's (signature, algorithm, kid, `iss`, `exp`
 * and `nbf` when present): run on a token whose signature is already verified. Pure.
 */
import { isApiKeyId, ORGANIZATION_ID_PATTERN } from '../model.ts';
import { API_KEY_TOKEN_USE } from './api-key-token.ts';
import { MAX_SUBJECT_LENGTH, TokenRefused } from './refusals.ts';

/**
 * Tolerated difference between the issuer's clock and ours, for `exp`, `nbf` and `iat` alike:
 * a token is expired 30 s after its `exp` and may be issued up to 30 s "in the future".
 */
export const CLOCK_SKEW_SECONDS = 30;

/** Which tokens a deployment accepts: `aud` in `audiences` (ID tokens), or `client_id` in `clientIds` (access tokens). */
export interface Acceptance {
  audiences: readonly string[];
  clientIds: readonly string[];
}

type Claims = Record<string, unknown>;

const audiencesOf = (aud: unknown): string[] =>
  typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a) => typeof a === 'string') : [];

/**
 * Who the token is for. An `aud` naming a configured audience is enough (any token use); a
 * Cognito access token has no `aud` but a `client_id`, accepted when listed and when its
 * `token_use`, if any, is `access`. An ID token shown where only access tokens are accepted is
 * told so (wrong_token_use), which is what a client mixing up Cognito's two tokens needs to hear.
 */
function checkRecipient(payload: Claims, acceptance: Acceptance): void {
  const audiences = audiencesOf(payload.aud);
  if (audiences.some((aud) => acceptance.audiences.includes(aud))) return;
  const tokenUse = payload.token_use;
  if (typeof payload.client_id === 'string' && acceptance.clientIds.includes(payload.client_id)) {
    if (tokenUse === undefined || tokenUse === 'access') return;
    throw new TokenRefused('wrong_token_use');
  }
  if (tokenUse === 'id' && audiences.some((aud) => acceptance.clientIds.includes(aud))) throw new TokenRefused('wrong_token_use');
  throw new TokenRefused('wrong_audience');
}

/**
 * RFC 7515 §4.1.11: a `crit` header names extensions the recipient must understand; this
 * service understands none, so any `crit` is refused. `exp` is required (a token that never
 * expires is a credential that cannot be revoked by time); `iat` may not lie in the future;
 * `sub` keys memberships and rate-limit counters, so it must be a short non-empty string.
 */
export function checkClaims(header: Claims, payload: Claims, acceptance: Acceptance, nowSeconds: number): void {
  if (header.crit !== undefined) throw new TokenRefused('unsupported_crit');
  if (payload.exp === undefined) throw new TokenRefused('no_expiry');
  if (typeof payload.iat === 'number' && payload.iat > nowSeconds + CLOCK_SKEW_SECONDS) throw new TokenRefused('issued_in_future');
  checkRecipient(payload, acceptance);
  const { sub } = payload;
  if (typeof sub !== 'string' || sub.length === 0 || [...sub].length > MAX_SUBJECT_LENGTH) throw new TokenRefused('invalid_subject');
  // API key ids key spend counters and rate-limit windows as user ids do: no user may take one.
  if (isApiKeyId(sub)) throw new TokenRefused('invalid_subject');
}

/**
 * The claims of one of this service's API keys (lib/auth/api-key-token.ts), on a token whose
 * signature, issuer, audience and expiry aws-jwt-verify has checked. Pure.
 */
export function checkApiKeyClaims(header: Claims, payload: Claims, nowSeconds: number): void {
  if (header.crit !== undefined) throw new TokenRefused('unsupported_crit');
  if (payload.exp === undefined) throw new TokenRefused('no_expiry');
  if (typeof payload.iat === 'number' && payload.iat > nowSeconds + CLOCK_SKEW_SECONDS) throw new TokenRefused('issued_in_future');
  const { sub, org } = payload;
  if (
    payload.token_use !== API_KEY_TOKEN_USE ||
    typeof sub !== 'string' ||
    !isApiKeyId(sub) ||
    payload.jti !== sub ||
    typeof org !== 'string' ||
    !ORGANIZATION_ID_PATTERN.test(org)
  )
    throw new TokenRefused('invalid_api_key');
}
