/**
 * POST /oauth/revoke (RFC 7009): a client ends its own connection by presenting either of its
 * tokens. Both stand for the grant (the API key): revoking the refresh token revokes the key, and
 * with it every access token it issued (§2.1: "SHOULD also invalidate all access tokens based on
 * the same authorization grant"); revoking an access token revokes the key too, since an access
 * token is that key's JWT and cannot be withdrawn alone.
 *
 * Public clients authenticate by `client_id` alone (RFC 6749 §2.3, §3.2.1): it is required, and
 * a token issued to another client (or an API key made by the API, which no client holds) is
 * refused with `unauthorized_client` and nothing is revoked. A token this service does not know —
 * malformed, forged, expired, already revoked, a person's token — is answered 200 (§2.2), so the
 * endpoint tells nothing about tokens it did not issue.
 *
 * Round trips: one conditional write for an access token (after the signing keys, read once a
 * minute) or a grant's current refresh token; for an older refresh token, its item read first
 * (was it issued, and to whom?), then the write. That item never changes once written, so reading
 * it first races with nothing.
 */
import { TokenRefused } from '../auth/refusals.ts';
import type { TokenVerifier } from '../auth/verifier.ts';
import { getRefreshToken, revokeByCurrentRefreshToken, revokeOAuthGrant } from '../db/oauth-grants.ts';
import { OAuthError } from './errors.ts';
import { refreshTokenOf, required } from './token.ts';

/** A refresh token's revocation: its grant's, when the grant issued it. */
async function revokeByRefreshToken(token: string, clientId: string, now: Date): Promise<'revoked' | 'other_client' | 'none'> {
  const presented = refreshTokenOf(token);
  if (!presented) return 'none';
  const outcome = await revokeByCurrentRefreshToken(presented.org, presented.key, clientId, presented.hash, now);
  if (outcome !== 'not_current') return outcome;
  // An older token of the grant revokes it too (RFC 7009 §2.1: the grant, not the token).
  const issued = await getRefreshToken(presented.hash);
  if (!issued || issued.organization_id !== presented.org || issued.key_id !== presented.key) return 'none';
  return issued.client_id === clientId ? revokeOAuthGrant(presented.org, presented.key, clientId, now) : 'other_client';
}

/** An access token's revocation: its key's, when it is an API key's. */
async function revokeByAccessToken(
  token: string,
  clientId: string,
  verifier: TokenVerifier,
  now: Date,
): Promise<'revoked' | 'other_client' | 'none'> {
  try {
    const verified = await verifier.verify(token);
    return verified.apiKey ? revokeOAuthGrant(verified.apiKey.orgId, verified.apiKey.id, clientId, now) : 'none';
  } catch (error) {
    if (error instanceof TokenRefused) return 'none';
    throw error;
  }
}

export async function revokeToken(form: URLSearchParams, verifier: TokenVerifier, now: Date): Promise<void> {
  const token = required(form, 'token');
  const clientId = required(form, 'client_id');
  if (form.getAll('token_type_hint').length > 1) throw new OAuthError('invalid_request', 'token_type_hint may be given once');
  // The two kinds tell themselves apart (`wsr_…` or a JWT): token_type_hint is not needed (§2.1 lets it be ignored).
  const outcome = token.startsWith('wsr_')
    ? await revokeByRefreshToken(token, clientId, now)
    : await revokeByAccessToken(token, clientId, verifier, now);
  if (outcome === 'other_client')
    throw new OAuthError('unauthorized_client', 'the token was not issued to this client: nothing is revoked');
}
