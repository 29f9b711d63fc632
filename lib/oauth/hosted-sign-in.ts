/**
 * Signing in at the consent screen through the stack's user pool: the console's hosted UI and
 * public app client (CONSOLE_HOSTED_UI_URL, CONSOLE_CLIENT_ID; docs/console.md), the
 * authorization code flow with PKCE S256, the callback being `/oauth/authorize` itself.
 *
 * The authorization request must survive the round trip, and the return must be the one this
 * browser started. Both ride in one cookie, sealed with the OAuth sealing key for this purpose
 * alone (lib/oauth/sealing-key.ts): the request's query, the PKCE verifier and a nonce, for 10 minutes; `HttpOnly`,
 * `Secure`, `SameSite=Lax` (the return is a top-level GET from the hosted UI's site), its path
 * `/oauth/authorize` alone. The hosted UI's `state` is the nonce: a return whose state is not
 * this browser's cookie's (a code of someone else's sign-in planted in a link) is refused, and the
 * verifier never travels with the code. The code is exchanged here, server to server, and the
 * token it yields is verified as any bearer token is (the tests' issuer, or the pool's).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { consoleHostedUi } from '../config.ts';
import { open, seal } from './sealing-key.ts';

export const SIGN_IN_COOKIE = 'ws_oauth_sign_in';
export const SIGN_IN_LIFETIME_MS = 10 * 60_000;
/** Browsers keep a cookie of about 4 KB at most (name, value and attributes): a longer one would be dropped silently. */
export const MAX_SIGN_IN_COOKIE = 4000;
/** What the hosted UI's token endpoint may take: past it, the person sees a page saying so. */
const TOKEN_TIMEOUT_MS = 5000;

/** The console's hosted UI: `https://<domain>.auth.<region>.amazoncognito.com` and its public app client. */
export type HostedUi = NonNullable<ReturnType<typeof consoleHostedUi>>;

/** A sign-in round trip that cannot be completed: the person sees why and starts again. */
export class SignInFailed extends Error {}

interface Pending {
  nonce: string;
  verifier: string;
  /** The authorization request's query, as the client sent it. */
  query: string;
  until: number;
}

/** The state opens as nothing else, and nothing else (a consent ticket) opens as the state. */
const STATE_PURPOSE = 'oauth-sign-in-state';

const cookie = (value: string, maxAgeSeconds: number): string =>
  `${SIGN_IN_COOKIE}=${value}; Max-Age=${maxAgeSeconds}; Path=/oauth/authorize; HttpOnly; Secure; SameSite=Lax`;

/** Where the hosted UI sends the person back: this very endpoint. */
export const callbackUrl = (base: string): string => `${base}/oauth/authorize`;

/**
 * The start of a sign-in for the authorization request `query`: the hosted UI's address (the
 * sign-in link) and the cookie that carries the request and the verifier meanwhile; null when the
 * request is too long for a cookie (a long `state` with a long redirect URI): a pasted token then.
 */
export async function startSignIn(
  hosted: HostedUi,
  base: string,
  query: string,
  now: Date,
): Promise<{ url: string; setCookie: string } | null> {
  const pending: Pending = {
    nonce: randomBytes(32).toString('base64url'),
    verifier: randomBytes(32).toString('base64url'),
    query,
    until: now.getTime() + SIGN_IN_LIFETIME_MS,
  };
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: hosted.clientId,
    redirect_uri: callbackUrl(base),
    scope: 'openid email profile',
    state: pending.nonce,
    code_challenge: createHash('sha256').update(pending.verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const setCookie = cookie(await seal(STATE_PURPOSE, pending), SIGN_IN_LIFETIME_MS / 1000);
  return setCookie.length > MAX_SIGN_IN_COOKIE ? null : { url: `${hosted.url}/oauth2/authorize?${params}`, setCookie };
}

/** The cookie that ends the round trip (sent with every answer to a return). */
export const clearSignIn = (): string => cookie('', 0);

/** Whether a GET of /oauth/authorize is the hosted UI's return (its `state`, no `client_id` of an authorization request). */
export const isSignInReturn = (params: URLSearchParams): boolean => params.has('state') && !params.has('client_id');

/** The sign-in cookie among the request's (API Gateway gives them apart; the local server as a header). */
export function signInCookieOf(cookies: readonly string[] | undefined, header: string | undefined): string | null {
  const all = [...(cookies ?? []), ...(header ?? '').split(';')].map((part) => part.trim());
  const found = all.find((part) => part.startsWith(`${SIGN_IN_COOKIE}=`));
  return found ? found.slice(SIGN_IN_COOKIE.length + 1) : null;
}

/**
 * The authorization request a return belongs to, once the return is known to be this browser's:
 * its query and the verifier. SignInFailed when there is no cookie, a forged or stale one (or one
 * sealed with a key the service no longer holds), or a `state` that is not its nonce.
 */
export async function pendingSignIn(
  params: URLSearchParams,
  sealed: string | null,
  now: Date,
): Promise<{ query: string; verifier: string }> {
  const pending = sealed ? await open<Pending>(STATE_PURPOSE, sealed) : null;
  if (!pending)
    throw new SignInFailed('this sign-in was not started in this browser (or its cookie was lost): start again from the application');
  if (pending.until <= now.getTime()) throw new SignInFailed('the sign-in took longer than 10 minutes: start again from the application');
  const state = params.get('state') ?? '';
  const given = Buffer.from(state);
  const wanted = Buffer.from(pending.nonce);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    throw new SignInFailed('this sign-in does not belong to the one this browser started: start again from the application');
  return { query: pending.query, verifier: pending.verifier };
}

/** The hosted UI's code, exchanged (server to server, with the verifier) for the person's access token. */
export async function redeemSignIn(hosted: HostedUi, base: string, params: URLSearchParams, verifier: string): Promise<string> {
  const error = params.get('error');
  if (error) throw new SignInFailed(`the sign-in page said: ${params.get('error_description') || error}`);
  const code = params.get('code');
  if (!code) throw new SignInFailed('the sign-in page sent no code back: start again');
  let response: Response;
  try {
    response = await fetch(`${hosted.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: hosted.clientId,
        code,
        redirect_uri: callbackUrl(base),
        code_verifier: verifier,
      }).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
  } catch (cause) {
    throw new SignInFailed(`the sign-in could not be completed (the user pool did not answer: ${(cause as Error).message}): start again`);
  }
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
  if (!response.ok || typeof body.access_token !== 'string')
    throw new SignInFailed(`the sign-in could not be completed (${String(body.error ?? response.status)}): start again`);
  return body.access_token;
}
