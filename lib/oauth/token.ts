/**
 * POST /oauth/token (RFC 6749 §4.1.3, §6; OAuth 2.1): a one-time code, or a refresh token,
 * exchanged for an access token (the grant's API-key JWT, 1 hour at most) and the next refresh
 * token. DynamoDB round trips besides the signature (test/oauth/flow.test.ts and `npm run bench`
 * count them):
 * - a code: 2. The code's single use; then the grant's first refresh token, set on the key beside
 *   the token's own item. A code used twice: its single use, then the revocation of the grant the
 *   first use issued.
 * - a refresh: 2. The rotation, one conditional write on the key (the token is its current one,
 *   the grant the client's, not revoked, not expired); then the new token's item, beside the
 *   signature. Refused: 1 (the rotation); for a token that is not the grant's current one, 2 (its
 *   item read: was it ever issued?); for a reuse, 3 (the grant's revocation).
 *
 * Refresh tokens hold no secret of the service: `wsr_<grant>.<secret>`, the grant (its organization
 * and key ids, which its access token names anyway) as base64url JSON, then 256 random bits. The
 * table keeps only the token's SHA-256: the key holds its current one, and each token issued has an
 * item saying which grant and client it was issued to. No key seals them, so no leaked key forges
 * one, and no rotated key ends a connection. The grant is named in the token so that a rotation is
 * one conditional write on the key, which checks the grant at the same time; found by hash alone it
 * would need a read first.
 *
 * A token is good once. A token the grant issued, presented once it is no longer the current one,
 * is a reuse and revokes the grant (RFC 9700 §4.14.2): that includes the loser of two refreshes
 * sent at once with one token, since the server cannot tell a client sending twice from a thief
 * racing the client. The winner's answer stands, and its tokens end with the grant.
 *
 * Every refusal of a presented refresh token is the same `invalid_grant` with the same words
 * (REFRESH_REFUSED): telling which case it was (unknown, used before, revoked, expired, another
 * client's) would tell whoever holds a token which one is current and which keys are OAuth grants.
 */
import { createHash, randomBytes } from 'node:crypto';
import { signApiKeyToken } from '../auth/api-key-token.ts';
import type { TokenSigner } from '../auth/signer.ts';
import type { ApiKeyRecord } from '../db/api-keys.ts';
import { revokeApiKey } from '../db/api-keys.ts';
import { systemSource } from '../db/audit-events.ts';
import { getRefreshToken, issueFirstRefreshToken, putRefreshToken, redeemOAuthCode, rotateRefreshToken } from '../db/oauth-grants.ts';
import { API_KEY_ID_PATTERN, ORGANIZATION_ID_PATTERN } from '../model.ts';
import { publishSigningKeyOnce } from '../workspace/api-keys.ts';
import { CODE_LIFETIME_MS, codeHashOf, MAX_GRANT_DAYS } from './consent.ts';
import { OAuthError } from './errors.ts';

export const ACCESS_TOKEN_SECONDS = 3600;

/** The one answer to every refused refresh token. */
export const REFRESH_REFUSED = 'the refresh token is not valid (unknown, used before, revoked, expired or issued to another client)';

/** A refresh token's item is kept this long past its grant's end. */
const REFRESH_RECORD_MS = 86_400_000;

const hashOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** A new refresh token of the grant `key` of `org`, and its hash. */
function mintRefreshToken(org: string, key: string): { token: string; hash: string } {
  const grant = Buffer.from(JSON.stringify([org, key])).toString('base64url');
  const token = `wsr_${grant}.${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashOf(token) };
}

/**
 * The grant a refresh token names and the token's hash, when it has the shape of one of ours;
 * null otherwise. Nothing is proved by the shape: the hash, looked up, is what decides.
 */
export function refreshTokenOf(token: string): { org: string; key: string; hash: string } | null {
  const match = /^wsr_([\w-]{1,200})\.[\w-]{43}$/.exec(token);
  if (!match) return null;
  let grant: unknown;
  try {
    grant = JSON.parse(Buffer.from(match[1] ?? '', 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(grant) || grant.length !== 2) return null;
  const [org, key] = grant as unknown[];
  if (typeof org !== 'string' || !ORGANIZATION_ID_PATTERN.test(org) || typeof key !== 'string' || !API_KEY_ID_PATTERN.test(key))
    return null;
  return { org, key, hash: hashOf(token) };
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** The access token of `key`, and `refreshToken` with it; the signing key is published before the first signature. */
async function tokenResponse(signer: TokenSigner, key: ApiKeyRecord, refreshToken: string, now: Date) {
  await publishSigningKeyOnce(signer, now);
  const issuedAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const keyExpiry = Date.parse(key.expires_at);
  const expiresAt = new Date(Math.min(issuedAt.getTime() + ACCESS_TOKEN_SECONDS * 1000, keyExpiry));
  const accessToken = await signApiKeyToken(signer, { keyId: key.id, orgId: key.organization_id, issuedAt, expiresAt });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: Math.round((expiresAt.getTime() - issuedAt.getTime()) / 1000),
    refresh_token: refreshToken,
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
    // Its grant is read first (what its `api_key.revoked` event says of it): a refusal's path, not a client's.
    await revokeApiKey(redeemed.reused.organization_id, redeemed.reused.key_id, now, systemSource('oauth'));
    throw invalidGrant('the code was used before: the grant it issued is revoked');
  }
  const stored = redeemed.code;
  if (stored.valid_until_ms <= now.getTime()) throw invalidGrant('the code expired (codes are good for 60 seconds)');
  if (stored.client_id !== clientId) throw invalidGrant('the code was issued to another client');
  if (stored.redirect_uri !== redirectUri) throw invalidGrant('redirect_uri is not the one the code was issued for');
  if (createHash('sha256').update(verifier).digest('base64url') !== stored.code_challenge)
    throw invalidGrant('code_verifier does not match the code_challenge (PKCE)');
  const next = mintRefreshToken(stored.organization_id, stored.key_id);
  // A grant lives at most MAX_GRANT_DAYS from its approval, a code's minute before this (a code
  // written before it carried the grant's expiry is bounded so).
  const grantEnd = stored.key_expires_at
    ? Date.parse(stored.key_expires_at)
    : stored.valid_until_ms - CODE_LIFETIME_MS + MAX_GRANT_DAYS * 86_400_000;
  // The token's item beside the key's write: the code has proved the request, so an item of a
  // token the key then refuses (a grant revoked meanwhile) is one nobody ever holds.
  const [key] = await Promise.all([
    issueFirstRefreshToken(stored.organization_id, stored.key_id, clientId, next.hash, now),
    putRefreshToken(
      next.hash,
      { organization_id: stored.organization_id, key_id: stored.key_id, client_id: clientId, issued_at: now.toISOString() },
      new Date(grantEnd + REFRESH_RECORD_MS),
    ),
  ]);
  if (key === null) throw invalidGrant('the grant is revoked or expired');
  return tokenResponse(signer, key, next.token, now);
}

async function refresh(form: URLSearchParams, signer: TokenSigner, now: Date) {
  const token = required(form, 'refresh_token');
  const clientId = required(form, 'client_id');
  const presented = refreshTokenOf(token);
  if (!presented) throw invalidGrant(REFRESH_REFUSED);
  const next = mintRefreshToken(presented.org, presented.key);
  const rotated = await rotateRefreshToken(presented.org, presented.key, clientId, presented.hash, next.hash, now);
  if ('key' in rotated) {
    const { key } = rotated;
    // Written once the rotation proved the presented token: a forged one writes nothing.
    const [answer] = await Promise.all([
      tokenResponse(signer, key, next.token, now),
      putRefreshToken(
        next.hash,
        { organization_id: key.organization_id, key_id: key.id, client_id: clientId, issued_at: now.toISOString() },
        new Date(Date.parse(key.expires_at) + REFRESH_RECORD_MS),
      ),
    ]);
    return answer;
  }
  const stored = rotated.stored;
  // Not the current token of a live grant of this client: which of the cases it is changes only
  // whether the grant is revoked, never the answer.
  if (
    stored !== null &&
    stored.key.oauth?.client_id === clientId &&
    stored.key.revoked_at === null &&
    stored.refreshHash !== presented.hash
  ) {
    const issued = await getRefreshToken(presented.hash);
    // The key as the rotation found it (its client is the presenter's; a key's client never changes):
    // revoked with its `api_key.revoked` event, the system its actor.
    if (issued && issued.organization_id === presented.org && issued.key_id === presented.key && issued.client_id === clientId)
      await revokeApiKey(presented.org, presented.key, now, systemSource('oauth'), stored.key);
  }
  throw invalidGrant(REFRESH_REFUSED);
}
