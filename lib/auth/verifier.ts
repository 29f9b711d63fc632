import { type Fetcher, SimpleFetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { JwtVerifier } from 'aws-jwt-verify/jwt-verifier';
import { type JwtConfig, jwtConfig } from '../config.ts';
import { CLOCK_SKEW_SECONDS, checkClaims } from './claims.ts';
import { refusalOf } from './refusals.ts';

/**
 * aws-jwt-verify fetches JWKS over HTTPS only. The local stack and the tests serve their JWKS
 * over plain HTTP on the loopback interface, so loopback URIs are fetched with Node's fetch;
 * every other URI goes through the library's own HTTPS fetcher.
 */
class LoopbackAwareFetcher implements Fetcher {
  private readonly https = new SimpleFetcher();

  async fetch(uri: string, requestOptions?: Record<string, unknown>, data?: ArrayBuffer): Promise<ArrayBuffer> {
    const { protocol, hostname } = new URL(uri);
    if (protocol === 'http:' && (hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]')) {
      const response = await fetch(uri, { signal: AbortSignal.timeout(3000) });
      if (!response.ok) throw new Error(`JWKS fetch failed with HTTP ${response.status}`);
      return response.arrayBuffer();
    }
    return this.https.fetch(uri, requestOptions, data);
  }
}

export interface TokenVerifier {
  /** The verified subject, or a TokenRefused saying why not; other errors are the service's (JWKS unreachable). */
  verify(token: string): Promise<{ sub: string }>;
}

/**
 * aws-jwt-verify checks the signature (algorithm, kid through the JWKS), `iss`, and `exp`/`nbf`
 * when present; `audience: null` hands the recipient check to checkClaims, which accepts either
 * an `aud` (ID tokens) or a Cognito access token's `client_id`, and adds this service's rules.
 */
export function createTokenVerifier(settings: JwtConfig): TokenVerifier {
  const acceptance = { audiences: settings.audiences, clientIds: settings.clientIds };
  const verifier = JwtVerifier.create(
    {
      issuer: settings.issuer,
      jwksUri: settings.jwksUri,
      audience: null,
      graceSeconds: CLOCK_SKEW_SECONDS,
      customJwtCheck: ({ header, payload }) =>
        checkClaims(header as Record<string, unknown>, payload as Record<string, unknown>, acceptance, Date.now() / 1000),
    },
    { jwksCache: new SimpleJwksCache({ fetcher: new LoopbackAwareFetcher() }) },
  );
  return {
    async verify(token) {
      try {
        const payload = await verifier.verify(token);
        return { sub: payload.sub as string };
      } catch (error) {
        throw refusalOf(error) ?? error;
      }
    },
  };
}

let verifier: TokenVerifier | undefined;

/** Built once per cold start from the environment; the JWKS it fetches is cached across requests. */
export function tokenVerifier(): TokenVerifier {
  verifier ??= createTokenVerifier(jwtConfig());
  return verifier;
}
