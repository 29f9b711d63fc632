/**
 * Sign-in with the stack's user pool (GET /console names it in two meta tags when the stack has
 * one): off to the hosted UI with a PKCE challenge, and back with a code, exchanged here for the
 * tokens. The verifier and state wait in this tab's session storage meanwhile, and are removed once used.
 */

import { authorizeUrl, callbackOf, challengeOf, type HostedUi, logoutUrl, randomToken, tokenRequestBody } from './pkce.ts';
import { PENDING_SIGN_IN as PENDING } from './session.ts';

export function hostedUiOfPage(): HostedUi | null {
  const url = document.querySelector('meta[name="hosted-ui"]')?.getAttribute('content');
  const clientId = document.querySelector('meta[name="hosted-ui-client"]')?.getAttribute('content');
  return url && clientId ? { url, clientId } : null;
}

/** The console's own URL, the app client's callback: no query, no fragment. */
export const redirectUri = (): string => `${window.location.origin}${window.location.pathname}`;

export async function startHostedSignIn(hosted: HostedUi): Promise<void> {
  const verifier = randomToken();
  const state = randomToken();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  window.location.assign(authorizeUrl(hosted, redirectUri(), state, await challengeOf(verifier)));
}

/**
 * The tokens for a code in the page's query (the access token, and the ID token, which carries the
 * person's verified address), or null when the page was not opened by the hosted UI; throws with a
 * person's message when the exchange fails. The query leaves the address bar either way.
 */
export async function finishHostedSignIn(hosted: HostedUi | null): Promise<{ accessToken: string; idToken?: string } | null> {
  const callback = callbackOf(window.location.search);
  if (callback.kind === 'none') return null;
  window.history.replaceState(null, '', redirectUri() + window.location.hash);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as { verifier: string; state: string } | null;
  sessionStorage.removeItem(PENDING);
  if (callback.kind === 'error') throw new Error(`The sign-in page said: ${callback.message}`);
  if (!hosted) throw new Error('This deployment has no hosted sign-in.');
  if (!pending || pending.state !== callback.state) throw new Error('That sign-in was not started from this tab: start it again.');
  const response = await fetch(`${hosted.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: tokenRequestBody(hosted, redirectUri(), callback.code, pending.verifier),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: string; id_token?: string; error?: string };
  if (!response.ok || !body.access_token)
    throw new Error(`The sign-in could not be completed (${body.error ?? response.status}): start it again.`);
  return { accessToken: body.access_token, ...(body.id_token ? { idToken: body.id_token } : {}) };
}

export const hostedSignOutUrl = (hosted: HostedUi): string => logoutUrl(hosted, redirectUri());
