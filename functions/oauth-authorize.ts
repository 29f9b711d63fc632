import { tokenVerifier } from '../lib/auth/verifier.ts';
import { webhooksConfig } from '../lib/config.ts';
import { consoleFiles } from '../lib/console/files.ts';
import { defined } from '../lib/defined.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import type { HttpEvent } from '../lib/http/types.ts';
import { countForAddress } from '../lib/oauth/address-limit.ts';
import {
  AuthorizationPageError,
  AuthorizationRedirectError,
  type AuthorizationRequest,
  redirectWith,
  validateAuthorizationRequest,
} from '../lib/oauth/authorization-request.ts';
import {
  approve,
  ConsentError,
  choiceOf,
  grantableRoles,
  openTicket,
  RoleAboveThePersons,
  sealTicket,
  signIn,
} from '../lib/oauth/consent.ts';
import { consentPage, errorPage, pageHeaders, signInPage } from '../lib/oauth/pages.ts';

/** The form a page posted (application/x-www-form-urlencoded), at most 16 KB. */
function formOf(event: HttpEvent): URLSearchParams {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text.length > 16_384) throw new AuthorizationPageError('the form is too large');
  return new URLSearchParams(text);
}

const styleSheet = () => defined(consoleFiles().get('console.css'), "the console's style sheet").hashedName;

const html = (statusCode: number, body: string, redirectUri?: string) => ({ statusCode, headers: pageHeaders(redirectUri), body });

const redirect = (location: string) => ({
  statusCode: 302,
  headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' },
  body: '',
});

/** The consent's outcome: back to the client with a code, or with `access_denied`. */
async function decide(request: AuthorizationRequest, form: URLSearchParams, now: Date) {
  const userId = openTicket(request, form.get('ticket'), now);
  if (form.get('decision') === 'deny')
    return redirect(
      redirectWith(request.redirect_uri, { error: 'access_denied', error_description: 'the person denied the connection' }, request.state),
    );
  if (form.get('decision') !== 'approve') throw new ConsentError('choose Allow or Deny');
  const choice = choiceOf(form);
  try {
    const code = await approve(request, userId, choice, now);
    return redirect(redirectWith(request.redirect_uri, { code }, request.state));
  } catch (error) {
    if (!(error instanceof RoleAboveThePersons)) throw error;
    throw new AuthorizationRedirectError(
      request.redirect_uri,
      'invalid_scope',
      `the role ${choice.role} is above yours in that workspace (or you are not a member)`,
      request.state,
    );
  }
}

/**
 * GET /oauth/authorize — validates the request, then the sign-in page. POST /oauth/authorize — the
 * sign-in (a person's token: the consent page) or the consent (its anti-forgery ticket and
 * choices: back to the client with a one-time code). Reached through functions/oauth.ts. docs/mcp.md, "Connecting by OAuth". Pages
 * for people, no part of the API description; public, not rate limited.
 */
export const handler = baseChain().handler(async (event) => {
  const now = new Date();
  const post = event.requestContext.http.method === 'POST';
  let request: AuthorizationRequest | undefined;
  try {
    const params = post ? formOf(event) : new URLSearchParams(event.rawQueryString ?? '');
    request = await validateAuthorizationRequest(params, baseUrl(event), {
      allowLoopback: webhooksConfig().allowLoopback,
      beforeFetch: () => countForAddress('client-document', event.requestContext.http.sourceIp, Date.now()),
    });
    if (!post) return html(200, signInPage(styleSheet(), request), request.redirect_uri);
    if (params.has('ticket') || params.has('decision')) return await decide(request, params, now);
    const token = params.get('token') ?? '';
    if (token === '') return html(400, signInPage(styleSheet(), request, 'Paste your access token to sign in.'), request.redirect_uri);
    const person = await signIn(tokenVerifier(), token);
    const workspaces = person.memberships
      .map((membership) => ({ membership, roles: grantableRoles(membership.role) }))
      .filter(({ roles }) => roles.length > 0);
    if (workspaces.length === 0) throw new ConsentError('you are a member of no workspace', 403);
    return html(200, consentPage(styleSheet(), request, sealTicket(request, person.userId, now), workspaces), request.redirect_uri);
  } catch (error) {
    if (error instanceof AuthorizationPageError) {
      const page = html(error.status, errorPage(styleSheet(), error.message));
      if (error.retryAfterSeconds !== undefined) page.headers['Retry-After'] = String(error.retryAfterSeconds);
      return page;
    }
    if (error instanceof AuthorizationRedirectError)
      return redirect(redirectWith(error.redirectUri, { error: error.error, error_description: error.description }, error.state));
    if (error instanceof ConsentError && request) {
      const page = error.status === 401 ? signInPage(styleSheet(), request, error.message) : errorPage(styleSheet(), error.message);
      return html(error.status, page, request.redirect_uri);
    }
    throw error;
  }
});
