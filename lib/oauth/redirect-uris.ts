/**
 * Which redirect URIs a client may register (OAuth 2.1 §2.3.1, RFC 8252 §7.3): https, or plain
 * http on a loopback address (a native client's local listener). No fragment, no credentials,
 * bounded. At /oauth/authorize a redirect URI must then be byte-equal to one registered.
 */
import { OAuthError } from './errors.ts';

export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI is refused, or null. */
export function redirectUriRefusal(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '') return 'must be a non-empty string';
  if (raw.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash !== '' || raw.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must be https, or http on a loopback address (127.0.0.1, [::1], localhost)';
}

/** A client's `redirect_uris` as registered or published: 1 to 10 acceptable URIs. */
export function checkedRedirectUris(value: unknown, error: 'invalid_redirect_uri' | 'invalid_client_metadata'): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new OAuthError(error, 'redirect_uris must be a non-empty array');
  if (value.length > MAX_REDIRECT_URIS) throw new OAuthError(error, `redirect_uris may hold at most ${MAX_REDIRECT_URIS} URIs`);
  for (const [index, uri] of value.entries()) {
    const refusal = redirectUriRefusal(uri);
    if (refusal) throw new OAuthError(error, `redirect_uris[${index}] ${refusal}`);
  }
  return value as string[];
}
