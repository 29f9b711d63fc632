import { JwtVerifier } from 'aws-jwt-verify';
import { type Fetcher, SimpleFetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { jwtConfig } from '../config.ts';

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

type Verifier = { verify(token: string): Promise<{ sub?: unknown }> };
let verifier: Verifier | undefined;

/** Built once per cold start; the JWKS it fetches is cached across requests. */
export function tokenVerifier(): Verifier {
  if (!verifier) {
    const { issuer, audience, jwksUri } = jwtConfig();
    verifier = JwtVerifier.create(
      { issuer, audience, jwksUri, graceSeconds: 0 },
      { jwksCache: new SimpleJwksCache({ fetcher: new LoopbackAwareFetcher() }) },
    ) as unknown as Verifier;
  }
  return verifier;
}
