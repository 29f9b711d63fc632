/**
 * An authorization request (GET or POST /oauth/authorize) as validated before anything is shown
 * (RFC 6749 §4.1.2.1, OAuth 2.1): an unknown client or a redirect URI not byte-equal to one of its
 * own is an error page, never a redirect (an open redirector otherwise); any other fault goes back
 * to the redirect URI as an RFC 6749 error with the `state`.
 */
import { createHash } from 'node:crypto';
import type { ClientDocumentOptions } from './client-metadata-document.ts';
import { type ClientMetadata, resolveClient } from './clients.ts';
import { OAuthError, type OAuthErrorCode } from './errors.ts';

export interface AuthorizationRequest {
  client: ClientMetadata;
  redirect_uri: string;
  code_challenge: string;
  state: string | null;
  resource: string;
}

/** A fault the person sees as a page: the client or its redirect URI cannot be trusted with a redirect. */
export class AuthorizationPageError extends Error {
  constructor(
    message: string,
    readonly status = 400,
    /** With a 429 (too many client documents fetched from this address): the Retry-After header. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A fault returned to the client at its (validated) redirect URI. */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly state: string | null,
  ) {
    super(description);
  }
}

const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
export const MAX_STATE_LENGTH = 1000;

/** The redirect to `redirectUri` carrying `params` (a code, or an error), and the `state` when there was one. */
export function redirectWith(redirectUri: string, params: Record<string, string>, state: string | null): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.append(name, value);
  if (state !== null) url.searchParams.append('state', state);
  return url.toString();
}

/** `params`: the query (GET) or the form (POST). `base`: this service's URL, whose `/mcp` is the one resource. */
export async function validateAuthorizationRequest(
  params: URLSearchParams,
  base: string,
  options: ClientDocumentOptions,
): Promise<AuthorizationRequest> {
  const single = (name: string): string | null => {
    const values = params.getAll(name);
    if (values.length > 1) throw new AuthorizationPageError(`${name} is given more than once`);
    return values[0] ?? null;
  };
  let client: ClientMetadata;
  try {
    client = await resolveClient(single('client_id'), options);
  } catch (error) {
    if (error instanceof OAuthError)
      throw new AuthorizationPageError(error.description, error.status === 429 ? 429 : 400, error.retryAfterSeconds);
    throw error;
  }
  const redirectUri = single('redirect_uri');
  if (redirectUri === null) throw new AuthorizationPageError('redirect_uri is required');
  if (!client.redirect_uris.includes(redirectUri))
    throw new AuthorizationPageError('redirect_uri is not one this client registered (byte for byte)');
  const state = single('state');
  const refuse = (error: OAuthErrorCode, description: string) => new AuthorizationRedirectError(redirectUri, error, description, state);
  if (state !== null && state.length > MAX_STATE_LENGTH)
    throw refuse('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters`);
  if (single('response_type') !== 'code') throw refuse('unsupported_response_type', 'response_type must be code');
  const challenge = single('code_challenge');
  if (challenge === null) throw refuse('invalid_request', 'code_challenge is required (PKCE)');
  if (single('code_challenge_method') !== 'S256') throw refuse('invalid_request', 'code_challenge_method must be S256');
  if (!PKCE_CHALLENGE.test(challenge)) throw refuse('invalid_request', 'code_challenge must be 43 base64url characters (S256)');
  const resource = single('resource');
  const mcp = `${base}/mcp`;
  if (resource !== mcp) throw refuse('invalid_target', `resource must be ${mcp}`);
  return { client, redirect_uri: redirectUri, code_challenge: challenge, state, resource };
}

/** What binds a consent ticket to one request: its client, redirect URI, challenge, state and resource. */
export const requestFingerprint = (request: AuthorizationRequest): string =>
  createHash('sha256')
    .update(JSON.stringify([request.client.client_id, request.redirect_uri, request.code_challenge, request.state, request.resource]))
    .digest('base64url');

/** The fields that carry the request from page to page (hidden inputs). */
export const requestFields = (request: AuthorizationRequest): Record<string, string> => ({
  response_type: 'code',
  client_id: request.client.client_id,
  redirect_uri: request.redirect_uri,
  code_challenge: request.code_challenge,
  code_challenge_method: 'S256',
  resource: request.resource,
  ...(request.state === null ? {} : { state: request.state }),
});
