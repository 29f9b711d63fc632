/**
 * The authorization code flow with PKCE (RFC 7636, S256) against the stack's user pool's hosted
 * UI: a public client, no secret. Pure functions over Web Crypto, so Node runs them in the unit
 * tests as the browser does.
 */

const base64url = (bytes: Uint8Array): string => {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

/** 32 random bytes as base64url: a 43-character verifier (or `state`). */
export const randomToken = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** BASE64URL(SHA-256(verifier)). */
export async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

export interface HostedUi {
  /** `https://<domain>.auth.<region>.amazoncognito.com` */
  url: string;
  clientId: string;
}

export function authorizeUrl(hosted: HostedUi, redirectUri: string, state: string, challenge: string): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: hosted.clientId,
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `${hosted.url}/oauth2/authorize?${query}`;
}

/** The token request's form body for the code the hosted UI sent back. */
export const tokenRequestBody = (hosted: HostedUi, redirectUri: string, code: string, verifier: string): string =>
  new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: hosted.clientId,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  }).toString();

export const logoutUrl = (hosted: HostedUi, redirectUri: string): string =>
  `${hosted.url}/logout?${new URLSearchParams({ client_id: hosted.clientId, logout_uri: redirectUri })}`;

export type Callback = { kind: 'none' } | { kind: 'code'; code: string; state: string } | { kind: 'error'; message: string };

/** What the hosted UI's redirect put in the page's query. */
export function callbackOf(search: string): Callback {
  const query = new URLSearchParams(search);
  const error = query.get('error');
  if (error) return { kind: 'error', message: query.get('error_description') || error };
  const code = query.get('code');
  const state = query.get('state');
  if (code && state) return { kind: 'code', code, state };
  return { kind: 'none' };
}
