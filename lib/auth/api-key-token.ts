/**
 * The bearer token of an API key: a JWT this service signs itself, so that every route keeps one
 * way to authenticate (a bearer JWT) and verifies it with the same library as an identity
 * provider's. It names the key and its organization; what the key may do (role, limit) and
 * whether it still may (revoked) is read from the key's record on each request, never from the
 * token.
 */
import type { TokenSigner } from './signer.ts';

/** The `iss` of every API key, and the `aud`: a key is for this service's API, nothing else. */
export const API_KEY_ISSUER = 'urn:workspace-service:api-keys';
export const API_KEY_AUDIENCE = 'urn:workspace-service:api';
/** What tells an API key from any other token of this issuer. */
export const API_KEY_TOKEN_USE = 'api_key';

/**
 * Where the verifier looks for the service's own public keys. Not fetched over HTTP: the
 * verifier's fetcher reads the signing keys published in the table for this address
 * (lib/auth/verifier.ts); `GET /.well-known/jwks.json` serves the same keys.
 */
export const SERVICE_JWKS_URI = 'https://workspace-service.internal/.well-known/jwks.json';

export interface ApiKeyClaims {
  keyId: string;
  orgId: string;
  issuedAt: Date;
  expiresAt: Date;
}

const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** Signs the token of a key: `sub` and `jti` the key id, `org` its organization, `exp` its expiry. */
export async function signApiKeyToken(signer: TokenSigner, claims: ApiKeyClaims): Promise<string> {
  const { kid } = await signer.publicJwk();
  const header = { alg: 'RS256', typ: 'JWT', kid };
  const payload = {
    iss: API_KEY_ISSUER,
    aud: API_KEY_AUDIENCE,
    sub: claims.keyId,
    jti: claims.keyId,
    org: claims.orgId,
    token_use: API_KEY_TOKEN_USE,
    iat: Math.floor(claims.issuedAt.getTime() / 1000),
    exp: Math.floor(claims.expiresAt.getTime() / 1000),
  };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  const signature = await signer.sign(Buffer.from(input));
  return `${input}.${base64url(signature)}`;
}
