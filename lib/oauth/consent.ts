/**
 * The person's side of an authorization: signing in (a bearer token of the identity provider, as
 * the console's), the consent ticket that carries who signed in from the sign-in to the consent
 * (the consent form's anti-forgery token: sealed with the OAuth sealing key, lib/oauth/sealing-key.ts,
 * bound to this request and to 10 minutes, and good for one approval), and the approval, which
 * mints the grant (an API key bound to the client) and its one-time code in one transaction that
 * spends the ticket's nonce.
 */
import { createHash, randomBytes } from 'node:crypto';
import { newApiKeyRecord } from '../auth/api-key-record.ts';
import { TokenRefused } from '../auth/refusals.ts';
import type { TokenVerifier } from '../auth/verifier.ts';
import { listMembershipsOfUser, type Membership } from '../db/memberships.ts';
import { createOAuthGrant, RoleNotHeld, TicketSpent } from '../db/oauth-grants.ts';
import { API_KEY_ROLES, type RequestOrigin, ROLES, type Role } from '../model.ts';
import { type AuthorizationRequest, requestFingerprint } from './authorization-request.ts';
import { open, seal } from './sealing-key.ts';

export const TICKET_LIFETIME_MS = 10 * 60_000;
export const CODE_LIFETIME_MS = 60_000;
export const DEFAULT_GRANT_DAYS = 30;
export const MAX_GRANT_DAYS = 365;
export const MAX_LIMIT = 1_000_000_000;

/** A consent fault the person sees as a page (no redirect: the person can go back and fix it). */
export class ConsentError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** A ticket opens for the request it was sealed for, and as nothing else (a sign-in state is sealed for another purpose). */
const ticketPurpose = (request: AuthorizationRequest) => `oauth-consent-ticket:${requestFingerprint(request)}`;

/** What a ticket carries: who signed in, until when, and the nonce its approval spends. */
export interface Ticket {
  userId: string;
  untilMs: number;
  nonce: string;
}

/** Verifies the person's token (a person's: an API key cannot grant) and reads where they are a member. */
export async function signIn(verifier: TokenVerifier, token: string): Promise<{ userId: string; memberships: Membership[] }> {
  let verified: Awaited<ReturnType<TokenVerifier['verify']>>;
  try {
    verified = await verifier.verify(token);
  } catch (error) {
    if (error instanceof TokenRefused) throw new ConsentError(`the token was not accepted: ${(error as Error).message}`, 401);
    throw error;
  }
  if (verified.apiKey) throw new ConsentError('sign in as a person: an API key cannot connect an agent', 403);
  return { userId: verified.sub, memberships: await listMembershipsOfUser(verified.sub) };
}

export function sealTicket(request: AuthorizationRequest, userId: string, now: Date): Promise<string> {
  const ticket: Ticket = { userId, untilMs: now.getTime() + TICKET_LIFETIME_MS, nonce: randomBytes(16).toString('base64url') };
  return seal(ticketPurpose(request), ticket);
}

/**
 * What a ticket carries; a ConsentError when it is missing, forged, sealed for another request or
 * for something else, with a key the service no longer holds, or stale. Whether it was spent is
 * the approval's transaction to say.
 */
export async function openTicket(request: AuthorizationRequest, sealed: string | null, now: Date): Promise<Ticket> {
  if (!sealed) throw new ConsentError('the consent form is missing its anti-forgery token: start again from the application', 403);
  const ticket = await open<Ticket>(ticketPurpose(request), sealed);
  if (!ticket) throw new ConsentError('the consent form carries an anti-forgery token this service did not issue for this request', 403);
  if (ticket.untilMs <= now.getTime())
    throw new ConsentError('the consent form is older than 10 minutes: start again from the application', 403);
  return ticket;
}

const rank = (role: Role): number => ROLES.indexOf(role);

/** The key roles a person of `role` may grant: none above their own, never owner. */
export const grantableRoles = (role: Role): Role[] => API_KEY_ROLES.filter((keyRole) => rank(keyRole) <= rank(role));

export interface ConsentChoice {
  organization_id: string;
  role: 'viewer' | 'editor';
  spending_limit: number | null;
  daily_limit: number | null;
  expires_in_days: number;
}

const limitOf = (form: URLSearchParams, name: string, label: string): number | null => {
  const raw = (form.get(name) ?? '').trim();
  if (raw === '') return null;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > MAX_LIMIT)
    throw new ConsentError(`the ${label} must be a whole number of credits from 0 to ${MAX_LIMIT}, or empty for none`);
  return Number(raw);
};

/** The consent form's choices, checked; a role above the person's is `above_role` (an RFC 6749 `invalid_scope`). */
export function choiceOf(form: URLSearchParams): ConsentChoice {
  const organizationId = form.get('organization_id') ?? '';
  if (organizationId === '') throw new ConsentError('choose a workspace');
  const role = form.get('role');
  if (role !== 'viewer' && role !== 'editor') throw new ConsentError('the role must be viewer or editor');
  const days = (form.get('expires_in_days') ?? '').trim();
  if (!/^\d{1,3}$/.test(days) || Number(days) < 1 || Number(days) > MAX_GRANT_DAYS)
    throw new ConsentError(`the expiry must be from 1 to ${MAX_GRANT_DAYS} days`);
  return {
    organization_id: organizationId,
    role,
    spending_limit: limitOf(form, 'spending_limit', 'monthly limit'),
    daily_limit: limitOf(form, 'daily_limit', 'daily limit'),
    expires_in_days: Number(days),
  };
}

/** The person's role is below the one chosen (or they are no member): refused, nothing issued. */
export class RoleAboveThePersons extends Error {}

export const codeHashOf = (code: string): string => createHash('sha256').update(code).digest('base64url');

/**
 * Mints the grant and its one-time code: the key (bound to the client, under the chosen limits and
 * expiry) and the code (60 s, bound to client, redirect URI and PKCE challenge) in one transaction
 * that holds only while the person still has a role at least the key's, and spends the ticket's
 * nonce: a form posted twice mints once, and the second post is a ConsentError. Returns the code.
 */
export async function approve(
  request: AuthorizationRequest,
  userId: string,
  choice: ConsentChoice,
  now: Date,
  ticket: Pick<Ticket, 'nonce' | 'untilMs'>,
  /**
   * The consent's request: its id and address, which the grant's `api_key.created` event records
   * (the person its actor); absent only outside a request (a test's or the bench's approval).
   */
  origin?: RequestOrigin,
): Promise<string> {
  const personRoles = ROLES.filter((role) => rank(role) >= rank(choice.role));
  const key = newApiKeyRecord({
    orgId: choice.organization_id,
    name: `OAuth: ${request.client.client_name ?? new URL(request.redirect_uri).host}`.slice(0, 100),
    role: choice.role,
    createdById: userId,
    days: choice.expires_in_days,
    now,
    spendingLimit: choice.spending_limit,
    dailyLimit: choice.daily_limit,
    oauth: { client_id: request.client.client_id, client_name: request.client.client_name, redirect_uri: request.redirect_uri },
  });
  const code = randomBytes(32).toString('base64url');
  try {
    await createOAuthGrant(
      key,
      {
        organization_id: key.organization_id,
        key_id: key.id,
        client_id: request.client.client_id,
        redirect_uri: request.redirect_uri,
        code_challenge: request.code_challenge,
        valid_until_ms: now.getTime() + CODE_LIFETIME_MS,
        key_expires_at: key.expires_at,
      },
      codeHashOf(code),
      personRoles,
      ticket,
      { actor: { type: 'user', id: userId, client_id: null }, request_id: origin?.id ?? null, source_ip: origin?.sourceIp ?? null },
      now,
    );
  } catch (error) {
    if (error instanceof RoleNotHeld) throw new RoleAboveThePersons();
    if (error instanceof TicketSpent)
      throw new ConsentError(
        'this consent form was already submitted, and one form makes one connection: start again from the application',
        403,
      );
    throw error;
  }
  return code;
}
