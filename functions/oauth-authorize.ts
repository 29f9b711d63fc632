import { tokenVerifier } from '../lib/auth/verifier.ts';
import { consoleHostedUi, webhooksConfig } from '../lib/config.ts';
import { consoleFiles } from '../lib/console/files.ts';
import { defined } from '../lib/defined.ts';
import { methodNotAllowed } from '../lib/errors.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { baseUrl } from '../lib/http/base-url.ts';
import type { HttpEvent, ServiceContext } from '../lib/http/types.ts';
import type { RequestOrigin } from '../lib/model.ts';
import { countForAddress } from '../lib/oauth/address-limit.ts';
import {
  AuthorizationPageError,
  AuthorizationRedirectError,
  type AuthorizationRequest,
  redirectWith,
  requestFields,
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
import {
  clearSignIn,
  isSignInReturn,
  pendingSignIn,
  redeemSignIn,
  SignInFailed,
  signInCookieOf,
  startSignIn,
} from '../lib/oauth/hosted-sign-in.ts';
import { consentPage, errorPage, pageHeaders, signInPage } from '../lib/oauth/pages.ts';
import { handler as preflightOrNotFound } from './route-not-found.ts';

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
async function decide(request: AuthorizationRequest, form: URLSearchParams, now: Date, origin: RequestOrigin) {
  const ticket = await openTicket(request, form.get('ticket'), now);
  if (form.get('decision') === 'deny')
    return redirect(
      redirectWith(request.redirect_uri, { error: 'access_denied', error_description: 'the person denied the connection' }, request.state),
    );
  if (form.get('decision') !== 'approve') throw new ConsentError('choose Allow or Deny');
  const choice = choiceOf(form);
  try {
    const code = await approve(request, ticket.userId, choice, now, ticket, origin);
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
 * GET /oauth/authorize — validates the request, then the sign-in page: with the stack's hosted UI,
 * a link to it (and the cookie that carries the request meanwhile); else a pasted token. GET with
 * the hosted UI's `code` and `state` — its return: the code redeemed, the consent page. POST — the
 * sign-in by a pasted token (the consent page) or the consent (its anti-forgery ticket and choices:
 * back to the client with a one-time code). docs/mcp.md, "Connecting by OAuth". Pages for people,
 * no part of the API description; public, not rate limited (a client document's fetch is, per
 * address).
 */
const pages = baseChain().handler(async (event, context) => {
  // Date.now, which a test can move (a sign-in's return past its 10 minutes).
  const now = new Date(Date.now());
  const post = event.requestContext.http.method === 'POST';
  const base = baseUrl(event);
  const hosted = consoleHostedUi();
  const validate = (params: URLSearchParams) =>
    validateAuthorizationRequest(params, base, {
      allowLoopback: webhooksConfig().allowLoopback,
      beforeFetch: () => countForAddress('client-document', event.requestContext.http.sourceIp, Date.now()),
    });
  /** Set-Cookie of the answer: a new sign-in's, or the end of the one that returned. */
  let setCookie: string | undefined;
  const page = (statusCode: number, body: string, redirectUri?: string) => {
    const reply = html(statusCode, body, redirectUri);
    return setCookie ? { ...reply, headers: { ...reply.headers, 'Set-Cookie': setCookie } } : reply;
  };
  const signInReply = async (statusCode: number, request: AuthorizationRequest, problem?: string) => {
    if (!hosted) return page(statusCode, signInPage(styleSheet(), request, problem), request.redirect_uri);
    const started = await startSignIn(hosted, base, new URLSearchParams(requestFields(request)).toString(), now);
    if (!started) {
      const why = 'This request is too long to carry through the sign-in page: paste your access token instead.';
      return page(statusCode, signInPage(styleSheet(), request, problem ?? why), request.redirect_uri);
    }
    setCookie = started.setCookie;
    return page(statusCode, signInPage(styleSheet(), request, problem, started.url), request.redirect_uri);
  };
  const consentFor = async (request: AuthorizationRequest, token: string) => {
    const person = await signIn(tokenVerifier(), token);
    const workspaces = person.memberships
      .map((membership) => ({ membership, roles: grantableRoles(membership.role) }))
      .filter(({ roles }) => roles.length > 0);
    if (workspaces.length === 0) throw new ConsentError('you are a member of no workspace', 403);
    return page(200, consentPage(styleSheet(), request, await sealTicket(request, person.userId, now), workspaces), request.redirect_uri);
  };
  let request: AuthorizationRequest | undefined;
  try {
    const params = post ? formOf(event) : new URLSearchParams(event.rawQueryString ?? '');
    if (!post && isSignInReturn(params)) {
      if (!hosted) throw new AuthorizationPageError('this deployment has no hosted sign-in page: start again from the application');
      setCookie = clearSignIn();
      const pending = await pendingSignIn(params, signInCookieOf(event.cookies, event.headers?.cookie), now);
      request = await validate(new URLSearchParams(pending.query));
      return await consentFor(request, await redeemSignIn(hosted, base, params, pending.verifier));
    }
    request = await validate(params);
    if (!post) return await signInReply(200, request);
    if (params.has('ticket') || params.has('decision'))
      return await decide(request, params, now, {
        id: context.requestId,
        sourceIp: event.requestContext.http.sourceIp || null,
      });
    const token = params.get('token') ?? '';
    if (token === '') return await signInReply(400, request, 'Paste your access token to sign in.');
    return await consentFor(request, token);
  } catch (error) {
    if (error instanceof AuthorizationPageError) {
      const reply = page(error.status, errorPage(styleSheet(), error.message));
      if (error.retryAfterSeconds !== undefined) reply.headers['Retry-After'] = String(error.retryAfterSeconds);
      return reply;
    }
    if (error instanceof AuthorizationRedirectError)
      return redirect(redirectWith(error.redirectUri, { error: error.error, error_description: error.description }, error.state));
    if (error instanceof SignInFailed)
      return request ? await signInReply(400, request, error.message) : page(400, errorPage(styleSheet(), error.message));
    if (error instanceof ConsentError && request) {
      if (error.status === 401) return await signInReply(401, request, error.message);
      return page(error.status, errorPage(styleSheet(), error.message), request.redirect_uri);
    }
    throw error;
  }
});

/** Any other method: 405 before anything is read, as the `$default` route answers another route's other methods. */
const otherMethod = baseChain().handler(async (event) => {
  throw methodNotAllowed(event.requestContext.http.method, event.rawPath, ['GET', 'POST']);
});

/**
 * ANY /oauth/authorize: one function for the page's GET and its forms' POSTs, which share all
 * their code and one person's few requests in a row (warm for the next). A preflight is answered
 * as the `$default` route answers one.
 */
export const handler = (event: HttpEvent, context: ServiceContext) => {
  const { method } = event.requestContext.http;
  if (method === 'GET' || method === 'POST') return pages(event, context);
  return method === 'OPTIONS' ? preflightOrNotFound(event, context) : otherMethod(event, context);
};
