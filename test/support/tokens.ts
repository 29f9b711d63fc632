import { createHmac, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { inject } from 'vitest';
import { API_KEY_AUDIENCE, API_KEY_ISSUER } from '../../lib/auth/api-key-token.ts';
import { pemSigner } from '../../lib/auth/signer.ts';
import { publishSigningKey } from '../../lib/db/api-keys.ts';
import { type SigningKey, signJwt, signToken } from '../../lib/local/signing-key.ts';

export const TEST_ISSUER = 'https://issuer.test/';
export const TEST_AUDIENCE = 'workspace-service-test';
/** The access-token client id the test environment accepts (JWT_CLIENT_IDS). */
export const TEST_CLIENT_ID = 'test-app-client';

/** The key whose JWKS the verifier under test trusts. */
export const trustedKey = (): SigningKey => inject('signingKey');

const UNTRUSTED_KEY = Symbol.for('workspace-service.test.untrusted-key');
const worker = globalThis as typeof globalThis & { [UNTRUSTED_KEY]?: KeyObject };

/**
 * An RSA key nobody trusts, for forged signatures: one per worker, since generating one takes
 * 50-300 ms of CPU and this module is evaluated afresh for every file (test/support/fresh-file.ts).
 */
export const untrustedKey = (): KeyObject => (worker[UNTRUSTED_KEY] ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);

/** A valid RS256 token for `sub`, signed by the trusted key. */
export function tokenFor(
  sub: string,
  options: { ttlSeconds?: number; issuer?: string; audience?: string; extra?: Record<string, unknown> } = {},
): string {
  return signToken(trustedKey(), {
    sub,
    issuer: options.issuer ?? TEST_ISSUER,
    audience: options.audience ?? TEST_AUDIENCE,
    ttlSeconds: options.ttlSeconds ?? 600,
    extra: options.extra,
  });
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Hand-built tokens for the ways a token can be wrong. */
export const badTokens = {
  unsigned(sub: string): string {
    const now = Math.floor(Date.now() / 1000);
    return `${b64({ alg: 'none', typ: 'JWT', kid: trustedKey().kid })}.${b64({ sub, iss: TEST_ISSUER, aud: TEST_AUDIENCE, exp: now + 600 })}.`;
  },
  hmac(sub: string): string {
    // Signed with the public key's text as an HMAC secret: the classic algorithm-confusion attack.
    const now = Math.floor(Date.now() / 1000);
    const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: trustedKey().kid })}.${b64({ sub, iss: TEST_ISSUER, aud: TEST_AUDIENCE, exp: now + 600 })}`;
    return `${input}.${createHmac('sha256', trustedKey().privateKeyPem).update(input).digest('base64url')}`;
  },
  wrongKey(sub: string): string {
    return signWith(untrustedKey(), trustedKey().kid, sub);
  },
  unknownKid(sub: string): string {
    return signWith(untrustedKey(), 'kid-nobody-published', sub);
  },
  tampered(sub: string): string {
    const [header, , signature] = tokenFor(sub).split('.');
    const now = Math.floor(Date.now() / 1000);
    return `${header}.${b64({ sub: 'someone-else', iss: TEST_ISSUER, aud: TEST_AUDIENCE, exp: now + 600 })}.${signature}`;
  },
};

function signWith(key: KeyObject, kid: string, sub: string): string {
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid })}.${b64({ sub, iss: TEST_ISSUER, aud: TEST_AUDIENCE, iat: now, exp: now + 600 })}`;
  return `${input}.${sign('RSA-SHA256', Buffer.from(input), key).toString('base64url')}`;
}

/**
 * A token signed by the trusted key with exactly these claims and header members on top of a
 * valid token's (`undefined` removes one): for the ways a well-signed token can still be wrong.
 */
export function signedWith(sub: string, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(
    trustedKey(),
    { alg: 'RS256', typ: 'JWT', kid: trustedKey().kid, ...header },
    { sub, iss: TEST_ISSUER, aud: TEST_AUDIENCE, iat: now, exp: now + 600, ...claims },
  );
}

/** A token shaped as Amazon Cognito issues them (RS256 under the trusted kid, an hour long), with `claims`. */
function cognitoToken(claims: Record<string, unknown>): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt(
    trustedKey(),
    { kid: trustedKey().kid, alg: 'RS256' },
    { iss: TEST_ISSUER, auth_time: now, iat: now, exp: now + 3600, jti: '1a2b3c4d-0000-4000-8000-000000000003', ...claims },
  );
}

/** Claims as Amazon Cognito puts them in an ID token of app client `clientId` (`aud` is the client id). */
export const cognitoIdToken = (sub: string, clientId: string, claims: Record<string, unknown> = {}): string =>
  cognitoToken({
    sub,
    email_verified: true,
    'cognito:username': sub,
    origin_jti: '4b2f7a36-0000-4000-8000-000000000001',
    aud: clientId,
    event_id: '9c1e5d2a-0000-4000-8000-000000000002',
    token_use: 'id',
    email: `${sub}@example.com`,
    ...claims,
  });

/** Claims as Amazon Cognito puts them in an access token: `client_id` and `token_use: access`, no `aud`. */
export const cognitoAccessToken = (sub: string, clientId: string, claims: Record<string, unknown> = {}): string =>
  cognitoToken({
    sub,
    client_id: clientId,
    origin_jti: '4b2f7a36-0000-4000-8000-000000000004',
    event_id: '9c1e5d2a-0000-4000-8000-000000000005',
    token_use: 'access',
    scope: 'aws.cognito.signin.user.admin',
    username: sub,
    ...claims,
  });

/**
 * An API key's token with these claims on top of a valid key's (`undefined` removes one),
 * signed by the trusted key under the kid the service gives it (its thumbprint), as the dev key
 * signs them for `npm start`: for the ways a well-signed key token can still be wrong. The key's
 * public half must be published (`publishTestSigningKey`) for it to verify.
 */
export function apiKeyTokenWith(keyId: string, orgId: string, claims: Record<string, unknown> = {}): string {
  const { kid } = pemSigner(trustedKey().privateKeyPem).publicJwkSync();
  const now = Math.floor(Date.now() / 1000);
  return signJwt(
    { ...trustedKey(), kid },
    { alg: 'RS256', typ: 'JWT', kid },
    {
      iss: API_KEY_ISSUER,
      aud: API_KEY_AUDIENCE,
      sub: keyId,
      jti: keyId,
      org: orgId,
      token_use: 'api_key',
      iat: now,
      exp: now + 600,
      ...claims,
    },
  );
}

/** Publishes the trusted key as an API-key signing key in this file's table (what issuing a key does first). */
export const publishTestSigningKey = () => publishSigningKey(pemSigner(trustedKey().privateKeyPem).publicJwkSync(), new Date());
