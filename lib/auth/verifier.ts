import { type Fetcher, SimpleFetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { decomposeUnverifiedJwt } from 'aws-jwt-verify/jwt';
import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import { type JwtConfig, jwtConfig } from '../config.ts';
import { listSigningKeys } from '../db/api-keys.ts';
import { API_KEY_AUDIENCE, API_KEY_ISSUER, SERVICE_JWKS_URI } from './api-key-token.ts';
import { CLOCK_SKEW_SECONDS, checkApiKeyClaims, checkClaims } from './claims.ts';
import { refusalOf, TokenRefused } from './refusals.ts';

/**
 * aws-jwt-verify fetches JWKS over HTTPS only. The local stack and the tests serve their JWKS
 * over plain HTTP on the loopback interface, so loopback URIs are fetched with Node's fetch;
 * every other URI goes through the library's own HTTPS fetcher. The service's own keys (the API
 * keys' issuer) are read from the table where the key-issuing function publishes them: no HTTP
 * call to ourselves, and the library's cache and penalty box apply to them as to any JWKS.
 */
class JwksFetcher implements Fetcher {
  private readonly https = new SimpleFetcher();

  async fetch(uri: string, requestOptions?: Record<string, unknown>, data?: ArrayBuffer): Promise<ArrayBuffer> {
    if (uri === SERVICE_JWKS_URI) {
      const bytes = Buffer.from(JSON.stringify({ keys: await listSigningKeys() }));
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    }
    const { protocol, hostname } = new URL(uri);
    if (protocol === 'http:' && (hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]')) {
      // Generous: the tests' JWKS is served by Vitest's main process, which a loaded machine can
      // keep busy for seconds (with 3 s, an unknown-kid case, which refetches it, failed once at
      // load 15: likely this bound). Only the loopback JWKS of tests and npm start comes here.
      const response = await fetch(uri, { signal: AbortSignal.timeout(10_000) });
      if (!response.ok) throw new Error(`JWKS fetch failed with HTTP ${response.status}`);
      return response.arrayBuffer();
    }
    return this.https.fetch(uri, requestOptions, data);
  }
}

/** Who a verified token stands for: a user of the identity provider, or one of this service's API keys. */
export interface VerifiedToken {
  sub: string;
  apiKey?: { id: string; orgId: string };
  /** A user's verified address (verifiedEmailOf). */
  verifiedEmail?: string;
}

/**
 * The token's `email` as a verified address: trimmed and lower-cased, when `email_verified` is
 * `true` or `"true"` (Cognito's federated users carry the string); undefined otherwise. Cognito
 * puts both claims in ID tokens only. Pure.
 */
export function verifiedEmailOf(payload: Record<string, unknown>): string | undefined {
  const verified = payload.email_verified === true || payload.email_verified === 'true';
  if (!verified || typeof payload.email !== 'string') return undefined;
  const email = payload.email.trim().toLowerCase();
  return email === '' ? undefined : email;
}

export interface TokenVerifier {
  /** The verified subject, or a TokenRefused saying why not; other errors are the service's (JWKS unreachable). */
  verify(token: string): Promise<VerifiedToken>;
}

/**
 * Two issuers, each with its own checks. aws-jwt-verify checks the signature (algorithm, kid
 * through the JWKS), `iss`, and `exp`/`nbf` when present. For the identity provider, `audience:
 * null` hands the recipient check to checkClaims, which accepts either an `aud` (ID tokens) or a
 * Cognito access token's `client_id`, and adds this service's rules; for the service's own API
 * keys, `aud` is the API and checkApiKeyClaims requires the claims a key carries.
 */
export function createTokenVerifier(settings: JwtConfig): TokenVerifier {
  const acceptance = { audiences: settings.audiences, clientIds: settings.clientIds };
  const claimsOf = (jwt: { header: unknown; payload: unknown }) =>
    [jwt.header as Record<string, unknown>, jwt.payload as Record<string, unknown>] as const;
  const verifier = JwtVerifier.create(
    [
      {
        issuer: settings.issuer,
        jwksUri: settings.jwksUri,
        audience: null,
        graceSeconds: CLOCK_SKEW_SECONDS,
        customJwtCheck: (jwt) => checkClaims(...claimsOf(jwt), acceptance, Date.now() / 1000),
      },
      {
        issuer: API_KEY_ISSUER,
        jwksUri: SERVICE_JWKS_URI,
        audience: API_KEY_AUDIENCE,
        graceSeconds: CLOCK_SKEW_SECONDS,
        customJwtCheck: (jwt) => checkApiKeyClaims(...claimsOf(jwt), Date.now() / 1000),
      },
    ],
    { jwksCache: new SimpleJwksCache({ fetcher: new JwksFetcher() }) },
  );
  const issuers = new Set([settings.issuer, API_KEY_ISSUER]);
  const verified = new Map<string, { token: VerifiedToken; untilMs: number }>();
  return {
    async verify(token) {
      const nowMs = Date.now();
      const known = verified.get(token);
      if (known && nowMs < known.untilMs) return known.token;
      try {
        // With two issuers the library picks the checks by `iss`, and calls an unknown one a
        // configuration error: it is the token's, said as such before verifying.
        if (!issuers.has(decomposeUnverifiedJwt(token).payload.iss as string)) throw new TokenRefused('wrong_issuer');
        const payload = await verifier.verify(token);
        const sub = payload.sub as string;
        const email = payload.iss === API_KEY_ISSUER ? undefined : verifiedEmailOf(payload as Record<string, unknown>);
        const result: VerifiedToken =
          payload.iss === API_KEY_ISSUER
            ? { sub, apiKey: { id: sub, orgId: payload.org as string } }
            : { sub, ...(email === undefined ? {} : { verifiedEmail: email }) };
        remember(verified, token, result, Math.min(Number(payload.exp) * 1000, nowMs + VERIFIED_KEEP_MS));
        return result;
      } catch (error) {
        throw refusalOf(error) ?? error;
      }
    },
  };
}

/**
 * A token verified once is taken at its word again for a while, by its exact text: a client
 * sends the same token on every request, and its RSA signature and claims are checked once per
 * instance and 5 minutes rather than per request. Never past its `exp`; 5 minutes at most, so that
 * a signing key withdrawn from a JWKS stops its tokens within that time on every instance. What
 * may change within a token's life (an API key's revocation, a membership) is read per request.
 */
const VERIFIED_KEEP_MS = 5 * 60_000;
const VERIFIED_MAX = 1024;

function remember(verified: Map<string, { token: VerifiedToken; untilMs: number }>, text: string, token: VerifiedToken, untilMs: number) {
  if (verified.size >= VERIFIED_MAX) verified.clear();
  verified.set(text, { token, untilMs });
}

let verifier: TokenVerifier | undefined;

/** Built once per cold start from the environment; the JWKS it fetches is cached across requests. */
export function tokenVerifier(): TokenVerifier {
  verifier ??= createTokenVerifier(jwtConfig());
  return verifier;
}
