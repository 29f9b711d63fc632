/**
 * What signs API keys: the signing key's public half (published as a JWK) and an RS256
 * signature over a JWT's signing input. Deployed, an AWS KMS key (lib/auth/kms-signer.ts, bundled
 * into the key-issuing function only); locally and in tests, the dev key's PEM.
 */
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import type { PublicJwk } from '../db/api-keys.ts';

export interface TokenSigner {
  /** The public key, with its `kid` (the RFC 7638 thumbprint), `alg` and `use`. */
  publicJwk(): Promise<PublicJwk>;
  /** An RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature of `input`. */
  sign(input: Buffer): Promise<Buffer>;
}

/** RFC 7638: the SHA-256 of the JWK's required members in lexicographic order (RSA: e, kty, n). */
export function thumbprintOf(jwk: { e?: unknown; kty?: unknown; n?: unknown }): string {
  const canonical = JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** The published form of an RSA public key (DER SubjectPublicKeyInfo or a KeyObject). */
export function publicJwkOf(key: Parameters<typeof createPublicKey>[0]): PublicJwk {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  if (jwk.kty !== 'RSA') throw new Error(`API keys are signed with RSA keys (RS256), not ${String(jwk.kty)}`);
  return { kty: jwk.kty, n: jwk.n, e: jwk.e, kid: thumbprintOf(jwk), alg: 'RS256', use: 'sig' };
}

/** The dev key: a private key PEM held by the process (`npm start`, the tests). Its public key is at hand at once. */
export function pemSigner(privateKeyPem: string): TokenSigner & { publicJwkSync(): PublicJwk } {
  const privateKey = createPrivateKey(privateKeyPem);
  const jwk = publicJwkOf(privateKey);
  return {
    publicJwk: async () => jwk,
    publicJwkSync: () => jwk,
    sign: async (input) => sign('RSA-SHA256', input, privateKey),
  };
}
