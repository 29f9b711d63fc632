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
 * endpoint tells nothing about tokens it did not issue. One conditional write at most.
 */
import { TokenRefused } from '../auth/refusals.ts';
import type { TokenVerifier } from '../auth/verifier.ts';
import { revokeOAuthGrant } from '../db/oauth-grants.ts';
import { OAuthError } from './errors.ts';
import { openRefreshToken, required } from './token.ts';

/** The grant (organization and key) a token names, or null for a token that names none. */
async function grantOf(token: string, verifier: TokenVerifier): Promise<{ org: string; key: string } | null> {
  // The two kinds tell themselves apart (`wsr_…` or a JWT): token_type_hint is not needed (§2.1 lets it be ignored).
  if (token.startsWith('wsr_')) return openRefreshToken(token);
  try {
    const verified = await verifier.verify(token);
    return verified.apiKey ? { org: verified.apiKey.orgId, key: verified.apiKey.id } : null;
  } catch (error) {
    if (error instanceof TokenRefused) return null;
    throw error;
  }
}

export async function revokeToken(form: URLSearchParams, verifier: TokenVerifier, now: Date): Promise<void> {
  const token = required(form, 'token');
  const clientId = required(form, 'client_id');
  if (form.getAll('token_type_hint').length > 1) throw new OAuthError('invalid_request', 'token_type_hint may be given once');
  const grant = await grantOf(token, verifier);
  if (!grant) return;
  if ((await revokeOAuthGrant(grant.org, grant.key, clientId, now)) === 'other_client')
    throw new OAuthError('unauthorized_client', 'the token was not issued to this client: nothing is revoked');
}
