/**
 * POST /oauth/token (RFC 6749 §4.1.3, §6; OAuth 2.1): a one-time code, or a refresh token,
 * exchanged for an access token (the grant's API-key JWT, 1 hour at most) and the next refresh
 * token. At most two DynamoDB round trips besides the signature: the code's single use, then the
 * grant's refresh generation (a refresh: the generation alone). A code used twice, or a refresh
 * token used after it was rotated, revokes the grant (that second round trip is then the revocation).
 *
 * Refresh tokens hold no secret of the table: `wsr_<payload>.<HMAC>`, the payload naming the grant
 * and its generation, sealed with the deployment's HMAC key; a token is good once, while its
 * generation is the grant's current one, so an old generation presented again is a reuse.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { signApiKeyToken } from '../auth/api-key-token.ts';
import type { TokenSigner } from '../auth/signer.ts';
import { cursorSigningKey } from '../config.ts';
import type { ApiKeyRecord } from '../db/api-keys.ts';
import { revokeApiKey } from '../db/api-keys.ts';
import { advanceRefreshGeneration, redeemOAuthCode } from '../db/oauth-grants.ts';
import { publishSigningKeyOnce } from '../workspace/api-keys.ts';
import { codeHashOf } from './consent.ts';
import { OAuthError } from './errors.ts';

export const ACCESS_TOKEN_SECONDS = 3600;

interface GrantRef {
  org: string;
  key: string;
  generation: number;
}

const mac = (payload: string): Buffer => createHmac('sha256', cursorSigningKey()).update(`oauth-refresh|${payload}`).digest();

export function sealRefreshToken(ref: GrantRef): string {
  const payload = Buffer.from(JSON.stringify([ref.org, ref.key, ref.generation])).toString('base64url');
  return `wsr_${payload}.${mac(payload).toString('base64url')}`;
}

/** The grant a refresh token names, or null for a token this service did not seal. */
export function openRefreshToken(token: string): GrantRef | null {
  const match = /^wsr_([\w-]{1,400})\.([\w-]{43})$/.exec(token);
  if (!match) return null;
  const [, payload = '', given = ''] = match;
  const givenBytes = Buffer.from(given, 'base64url');
  const wanted = mac(payload);
  if (givenBytes.length !== wanted.length || !timingSafeEqual(givenBytes, wanted)) return null;
  const [org, key, generation] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, string, number];
  return { org, key, generation };
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

async function tokenResponse(signer: TokenSigner, key: ApiKeyRecord, generation: number, now: Date) {
  await publishSigningKeyOnce(signer, now);
  const issuedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const keyExpiry = Date.parse(key.expires_at);
  const expiresAt = new Date(Math.min(issuedAt.getTime() + ACCESS_TOKEN_SECONDS * 1000, keyExpiry));
  const accessToken = await signApiKeyToken(signer, { keyId: key.id, orgId: key.organization_id, issuedAt, expiresAt });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: Math.round((expiresAt.getTime() - issuedAt.getTime()) / 1000),
    refresh_token: sealRefreshToken({ org: key.organization_id, key: key.id, generation }),
    // Where the token works, and as whom: the organization is the one /mcp needs as its query.
    organization_id: key.organization_id,
  };
}

/** A form field given exactly once and not empty; `invalid_request` otherwise. */
export const required = (form: URLSearchParams, name: string): string => {
  const values = form.getAll(name);
  if (values.length !== 1 || values[0] === '') throw new OAuthError('invalid_request', `${name} is required, once`);
  return values[0] as string;
};

export async function exchange(form: URLSearchParams, signer: TokenSigner, base: string, now: Date) {
  const grantType = required(form, 'grant_type');
  const resource = form.get('resource');
  if (resource !== null && resource !== `${base}/mcp`) throw new OAuthError('invalid_target', `resource must be ${base}/mcp`);
  if (grantType === 'authorization_code') return exchangeCode(form, signer, now);
  if (grantType === 'refresh_token') return refresh(form, signer, now);
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

async function exchangeCode(form: URLSearchParams, signer: TokenSigner, now: Date) {
  const code = required(form, 'code');
  const clientId = required(form, 'client_id');
  const redirectUri = required(form, 'redirect_uri');
  const verifier = required(form, 'code_verifier');
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
  const redeemed = await redeemOAuthCode(codeHashOf(code), now);
  if (redeemed === null) throw invalidGrant('the code is not one this service issued');
  if ('reused' in redeemed) {
    await revokeApiKey(redeemed.reused.organization_id, redeemed.reused.key_id, now);
    throw invalidGrant('the code was used before: the grant it issued is revoked');
  }
  const stored = redeemed.code;
  if (stored.valid_until_ms <= now.getTime()) throw invalidGrant('the code expired (codes are good for 60 seconds)');
  if (stored.client_id !== clientId) throw invalidGrant('the code was issued to another client');
  if (stored.redirect_uri !== redirectUri) throw invalidGrant('redirect_uri is not the one the code was issued for');
  if (createHash('sha256').update(verifier).digest('base64url') !== stored.code_challenge)
    throw invalidGrant('code_verifier does not match the code_challenge (PKCE)');
  const advanced = await advanceRefreshGeneration(stored.organization_id, stored.key_id, clientId, 0, now);
  if ('stored' in advanced) throw invalidGrant('the grant is revoked or expired');
  return tokenResponse(signer, advanced.key, advanced.generation, now);
}

async function refresh(form: URLSearchParams, signer: TokenSigner, now: Date) {
  const token = required(form, 'refresh_token');
  const clientId = required(form, 'client_id');
  const ref = openRefreshToken(token);
  if (!ref) throw invalidGrant('the refresh token is not one this service issued');
  const advanced = await advanceRefreshGeneration(ref.org, ref.key, clientId, ref.generation, now);
  if ('key' in advanced) return tokenResponse(signer, advanced.key, advanced.generation, now);
  const stored = advanced.stored;
  if (stored === null) throw invalidGrant('the grant no longer exists');
  if (stored.key.oauth?.client_id !== clientId) throw invalidGrant('the refresh token was issued to another client');
  if (stored.key.revoked_at !== null) throw invalidGrant('the grant is revoked');
  if (Date.parse(stored.key.expires_at) <= now.getTime()) throw invalidGrant('the grant expired');
  if (ref.generation < stored.generation) {
    await revokeApiKey(ref.org, ref.key, now);
    throw invalidGrant('the refresh token was used before: the grant is revoked');
  }
  throw invalidGrant('the refresh token is not current');
}
