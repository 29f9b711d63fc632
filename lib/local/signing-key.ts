import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { boundedMemo } from '../bounded-memo.ts';

/**
 * The local stack's token signer: an RSA key whose public half the local verifier trusts
 * through a JWKS served on 127.0.0.1. Never used by a deployed stack.
 */
export interface SigningKey {
  kid: string;
  privateKeyPem: string;
}

export const LOCAL_ISSUER = 'https://workspace-service.local/';
export const LOCAL_AUDIENCE = 'workspace-service';
/** The client id of the local stack's access tokens (JWT_CLIENT_IDS of `npm start`). */
export const LOCAL_CLIENT_ID = 'workspace-service-local-client';

export function generateSigningKey(): SigningKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid: `dev-${randomUUID().slice(0, 8)}`, privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** Reuses the key in `file` so tokens survive a restart of `npm start`; creates it otherwise. */
export function loadOrCreateSigningKey(file: string): SigningKey {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as SigningKey;
  const key = generateSigningKey();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(key), { mode: 0o600 });
  return key;
}

export function jwksOf(key: SigningKey): { keys: Record<string, unknown>[] } {
  const jwk = createPublicKey(createPrivateKey(key.privateKeyPem)).export({ format: 'jwk' });
  return { keys: [{ ...jwk, kid: key.kid, alg: 'RS256', use: 'sig' }] };
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/**
 * An RS256 JWT for `sub`; a negative ttl gives a token that has already expired. With `audience`
 * it is an ID-style token (`aud`); with `clientId` a Cognito-style access token (`client_id`,
 * `token_use: access`, no `aud`).
 */
export function signToken(
  key: SigningKey,
  claims: {
    sub: string;
    issuer: string;
    audience?: string;
    clientId?: string;
    ttlSeconds?: number;
    extra?: Record<string, unknown>;
  },
): string {
  const now = Math.floor(Date.now() / 1000);
  const ttl = claims.ttlSeconds ?? 3600;
  const payload = {
    sub: claims.sub,
    iss: claims.issuer,
    ...(claims.audience === undefined ? {} : { aud: claims.audience }),
    ...(claims.clientId === undefined ? {} : { client_id: claims.clientId, token_use: 'access' }),
    iat: Math.min(now, now + ttl - 1),
    exp: now + ttl,
    ...claims.extra,
  };
  return signJwt(key, { alg: 'RS256', typ: 'JWT', kid: key.kid }, payload);
}

/**
 * Each key parsed once (parsing the PEM cost as much as a signature), with the signatures it
 * made: RS256 (PKCS #1 v1.5) signatures are deterministic, so a token asked for again within its
 * second is the one already signed (the test suite asks for thousands, most of them repeats).
 */
const signers = boundedMemo<{ key: KeyObject; signatures: (input: string, compute: () => string) => string }>(16);

/** Signs any header and payload with `key` (RS256); JSON drops `undefined` members, so a claim can be left out. */
export function signJwt(key: SigningKey, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  const signer = signers(key.privateKeyPem, () => ({ key: createPrivateKey(key.privateKeyPem), signatures: boundedMemo<string>(2_000) }));
  const signature = signer.signatures(input, () => base64url(sign('RSA-SHA256', Buffer.from(input), signer.key)));
  return `${input}.${signature}`;
}
