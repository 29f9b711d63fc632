/**
 * Why a bearer token was refused: one reason per thing a client can fix, each with the sentence
 * the 401 carries in `WWW-Authenticate: Bearer error="invalid_token", error_description="…"` and
 * in its `message`. The sentences name the claim at fault and nothing internal (no library, no
 * key material, no expected values), and they stay within RFC 6750's error_description
 * characters (printable ASCII without `"` and `\`).
 */
import {
  JwkInvalidKtyError,
  JwkInvalidUseError,
  JwtExpiredError,
  JwtInvalidAudienceError,
  JwtInvalidIssuerError,
  JwtInvalidSignatureAlgorithmError,
  JwtInvalidSignatureError,
  JwtNotBeforeError,
  JwtParseError,
  JwtWithoutValidKidError,
  KidNotFoundInJwksError,
  WaitPeriodNotYetEndedJwkError,
} from 'aws-jwt-verify/error';

/** Largest Authorization header read (bytes); anything longer is refused before parsing. */
export const MAX_AUTHORIZATION_BYTES = 8192;
/** Longest `sub` accepted (characters): it keys memberships and rate-limit counters in DynamoDB. */
export const MAX_SUBJECT_LENGTH = 255;

export const TOKEN_REFUSALS = {
  missing: 'a bearer token is required',
  not_bearer: 'the Authorization header must be the Bearer scheme followed by one token',
  too_large: `the Authorization header is larger than ${MAX_AUTHORIZATION_BYTES} bytes`,
  malformed: 'the bearer token is not a well-formed JWT',
  bad_signature: 'the bearer token signature is not valid',
  unknown_key: 'the bearer token is signed with a key (kid) that the issuer does not publish',
  expired: 'the bearer token has expired',
  not_yet_valid: 'the bearer token is not valid yet (nbf)',
  issued_in_future: 'the bearer token was issued in the future (iat)',
  no_expiry: 'the bearer token has no expiry (exp)',
  wrong_issuer: 'the bearer token is from another issuer (iss)',
  wrong_audience: 'the bearer token is for another audience or client (aud, client_id)',
  wrong_token_use: 'the bearer token is of a kind this deployment does not accept (token_use)',
  unsupported_crit: 'the bearer token requires a header extension this service does not support (crit)',
  invalid_subject: `the bearer token subject (sub) must be a non-empty string of at most ${MAX_SUBJECT_LENGTH} characters, and not an API key id`,
  invalid_api_key: 'the API key token does not carry the claims of an API key (token_use, sub, jti, org)',
  revoked: 'the API key has been revoked',
  unknown_api_key: 'the API key does not exist, or its organization no longer does',
} as const;

export type RefusalReason = keyof typeof TOKEN_REFUSALS;

/** A token (or its absence) that does not authenticate the caller: always a 401. */
export class TokenRefused extends Error {
  constructor(readonly reason: RefusalReason) {
    super(TOKEN_REFUSALS[reason]);
    this.name = 'TokenRefused';
  }
}

/** aws-jwt-verify's error classes, most specific first (several extend others). */
const LIBRARY_REASONS: [abstract new (...args: never[]) => Error, RefusalReason][] = [
  [JwtParseError, 'malformed'],
  [JwtInvalidSignatureAlgorithmError, 'bad_signature'],
  [JwtInvalidSignatureError, 'bad_signature'],
  [KidNotFoundInJwksError, 'unknown_key'],
  [WaitPeriodNotYetEndedJwkError, 'unknown_key'],
  [JwtWithoutValidKidError, 'unknown_key'],
  [JwkInvalidUseError, 'unknown_key'],
  [JwkInvalidKtyError, 'unknown_key'],
  [JwtExpiredError, 'expired'],
  [JwtNotBeforeError, 'not_yet_valid'],
  [JwtInvalidIssuerError, 'wrong_issuer'],
  [JwtInvalidAudienceError, 'wrong_audience'],
];

/**
 * The refusal a verification error stands for, or null when the error is not about the token:
 * a JWKS that cannot be fetched or parsed is the service's outage, answered 500, never a 401
 * that would send the client to sign in again.
 */
export function refusalOf(error: unknown): TokenRefused | null {
  if (error instanceof TokenRefused) return error;
  const match = LIBRARY_REASONS.find(([kind]) => error instanceof kind);
  return match ? new TokenRefused(match[1]) : null;
}
