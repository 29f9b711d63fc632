/**
 * Invitations by email (docs/invitations.md): what an invitation looks like to its owners and its
 * invitee, the owners' listing and revocation, and the acceptance. Creating and resending, which
 * send an email, are in invite.ts: only their functions carry the email client.
 *
 * An invitation's token is ≥ 128 random bits, shown only in its email's link, and stored only as
 * its SHA-256; an unknown, expired, revoked or accepted invitation is answered alike (404).
 */
import { createHash } from 'node:crypto';
import { auditSourceOf } from '../auth/access.ts';
import { cursorSigningKey } from '../config.ts';
import type { AuditSource } from '../db/audit-events.ts';
import {
  AlreadyAMember,
  acceptInvitation,
  getInvitation,
  InvitationChanged,
  type InvitationFilter,
  type InvitationRecord,
  InviterLacksRole,
  inboxEntryOrg,
  invitationOfToken,
  listInvitationsPage,
  OwnerCountMissing,
  revokeInvitation,
} from '../db/invitations.ts';
import { backfillOwnerCount, getMembership, type Membership } from '../db/memberships.ts';
import {
  alreadyMember,
  apiKeyNotAllowed,
  emailMismatch,
  emailNotVerified,
  invitationNotPending,
  notFound,
  validationFailed,
} from '../errors.ts';
import { type Caller, ROLES, type Role } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';
import { asOwner, requireOwner } from './owners.ts';

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

/** An invitation as its organization's owners see it (never its token). */
export interface InvitationView {
  id: string;
  organization_id: string;
  email: string;
  role: Role;
  spending_limit: number | null;
  daily_limit: number | null;
  status: InvitationStatus;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

/** `expired`: a pending one past its expiry, as read (nothing writes it). */
export const statusAt = (invitation: InvitationRecord, now: Date): InvitationStatus =>
  invitation.status === 'pending' && Date.parse(invitation.valid_until) <= now.getTime() ? 'expired' : invitation.status;

export const invitationView = (invitation: InvitationRecord, now: Date): InvitationView => ({
  id: invitation.id,
  organization_id: invitation.organization_id,
  email: invitation.email,
  role: invitation.role,
  spending_limit: invitation.spending_limit,
  daily_limit: invitation.daily_limit,
  status: statusAt(invitation, now),
  invited_by: invitation.invited_by,
  created_at: invitation.created_at,
  expires_at: invitation.valid_until,
  accepted_at: invitation.accepted_at,
});

/** The SHA-256 of a token (hex): what is stored and looked up, never the token. */
export const tokenHashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** The roles at least `role`: an inviter must still hold one of them when its invitation is accepted. */
export const rolesAtLeast = (role: Role): readonly Role[] => ROLES.slice(ROLES.indexOf(role));

// ---------------------------------------------------------------- the owners' listing

export interface InvitationsPage {
  invitations: InvitationView[];
  next_cursor: string | null;
  has_more: boolean;
}

const cursorScope = (orgId: string, status: InvitationFilter) => `invitations:${orgId}:${status}`;

/**
 * Owners (API keys 403, other members 403, anyone else 404): the organization's invitations newest
 * first, of one status or all, each listed until 90 days after it ended. One round trip for the
 * first page: the caller's membership and the Query together.
 */
export async function listInvitations(
  caller: Caller,
  orgId: string,
  query: { status?: InvitationStatus | undefined; limit: number; cursor?: string | undefined },
  now = new Date(),
): Promise<InvitationsPage> {
  const status: InvitationFilter = query.status ?? 'all';
  const key = cursorSigningKey();
  const opened = query.cursor === undefined ? undefined : openCursor(query.cursor, key, cursorScope(orgId, status));
  if (opened && 'problem' in opened)
    throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: opened.problem }]);
  const [, page] = await Promise.all([requireOwner(caller, orgId), listInvitationsPage(orgId, status, query.limit, now, opened?.position)]);
  const last = page.invitations.at(-1);
  return {
    invitations: page.invitations.map((invitation) => invitationView(invitation, now)),
    next_cursor: page.hasMore && last ? sealCursor(cursorScope(orgId, status), last.id, key) : null,
    has_more: page.hasMore,
  };
}

// ---------------------------------------------------------------- revocation

/**
 * Revokes an invitation (owners; `revokerId` null for an operator): a pending or expired one
 * becomes `revoked` and its token dead at once, with its `invitation.revoked` event (`source`: who);
 * a revoked one again changes nothing and writes none; an accepted one is 409
 * `invitation_not_pending`; an unknown one (or another organization's) 404.
 */
export async function revokeInvitationOf(
  orgId: string,
  invitationId: string,
  revokerId: string | null,
  source: AuditSource,
  now = new Date(),
  standing?: Promise<void>,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    // `standing`: the revoker's owner check, in flight, read beside the invitation; its refusal answers first.
    const [, invitation] = await Promise.all([attempt === 1 ? standing : undefined, getInvitation(orgId, invitationId)]);
    if (!invitation) throw notFound();
    if (invitation.status === 'revoked') return;
    if (invitation.status === 'accepted') throw invitationNotPending('accepted');
    try {
      await asOwner(revokeInvitation(invitation, revokerId, now, source));
      return;
    } catch (error) {
      // Accepted or revoked since it was read: read it again, and answer what it became.
      if (!(error instanceof InvitationChanged) || attempt >= 3) throw error;
    }
  }
}

/** `DELETE …/invitations/{id}`: owners with a user's token. */
export async function revokeWorkspaceInvitation(caller: Caller, orgId: string, invitationId: string, now = new Date()): Promise<void> {
  await revokeInvitationOf(orgId, invitationId, caller.userId, await auditSourceOf(caller), now, requireOwner(caller, orgId));
}

// ---------------------------------------------------------------- acceptance

export interface Acceptance {
  organization_id: string;
  invitation_id: string;
  user_id: string;
  role: Role;
  spending_limit: number | null;
  daily_limit: number | null;
}

/** What identifies the invitation: its token (from the email's link), or its id (as `GET /me` lists it). */
export type AcceptBy = { token: string } | { invitation_id: string };

/** The invitation a token or an id names, if it is pending, unexpired and (by token) that token's; else null. */
async function pendingInvitationOf(
  by: AcceptBy,
  caller: Caller,
  now: Date,
): Promise<{ invitation: InvitationRecord; member: Membership | null } | null> {
  const named =
    'token' in by
      ? await invitationOfToken(tokenHashOf(by.token))
      : caller.verifiedEmail === undefined
        ? null
        : await inboxEntryOrg(caller.verifiedEmail, by.invitation_id);
  if (!named) return null;
  const [invitation, member] = await Promise.all([
    getInvitation(named.organization_id, named.invitation_id),
    getMembership(named.organization_id, caller.userId),
  ]);
  if (!invitation || statusAt(invitation, now) !== 'pending') return null;
  if ('token' in by && invitation.token_hash !== tokenHashOf(by.token)) return null;
  // By id, only an invitation to the caller's own verified address exists for them.
  if (!('token' in by) && invitation.email !== caller.verifiedEmail) return null;
  return { invitation, member };
}

/**
 * `POST /invitations/accept`, by a user's token (API keys 403), member of any organization or of
 * none. In order: an invitation that is unknown, expired, revoked or accepted (by id: or addressed
 * to anyone else) → 404, one body for all; by token, no verified address → 403
 * `email_not_verified`, another address → 403 `email_mismatch`; a member already → 409
 * `already_member` (the invitation stays pending). Then one transaction (lib/db/invitations.ts):
 * the membership with exactly the invitation's role and limits and the address, the invitation
 * accepted, on condition that it is still pending, unexpired and its token current, and that its
 * inviter still holds a role at least the invited one (else 404, as for an invitation no longer
 * standing).
 */
export async function acceptWorkspaceInvitation(caller: Caller, by: AcceptBy, now = new Date()): Promise<Acceptance> {
  if (caller.apiKey) throw apiKeyNotAllowed();
  const found = await pendingInvitationOf(by, caller, now);
  if (!found) throw notFound();
  const { invitation, member: current } = found;
  if (caller.verifiedEmail === undefined) throw emailNotVerified();
  if (caller.verifiedEmail !== invitation.email) throw emailMismatch();
  if (current) throw alreadyMember('you are a member of this organization already; the invitation stays pending');
  // The inviter accepting an invitation it sent is no member (else the line above): it no longer holds its role.
  if (invitation.invited_by === caller.userId) throw notFound();
  // The actor of its events: the new member (a user's token: API keys are refused above).
  const source = await auditSourceOf(caller);
  const member: Membership = {
    organization_id: invitation.organization_id,
    user_id: caller.userId,
    role: invitation.role,
    spending_limit: invitation.spending_limit,
    daily_limit: invitation.daily_limit,
    created_at: now.toISOString(),
    email: invitation.email,
  };
  for (let attempt = 1; ; attempt += 1) {
    try {
      await acceptInvitation(
        invitation,
        member,
        'token' in by ? { tokenHash: tokenHashOf(by.token) } : null,
        rolesAtLeast(invitation.role),
        now,
        source,
      );
      break;
    } catch (error) {
      if (error instanceof OwnerCountMissing && attempt < 3) {
        await backfillOwnerCount(invitation.organization_id);
        continue;
      }
      if (error instanceof InvitationChanged || error instanceof InviterLacksRole) throw notFound();
      if (error instanceof AlreadyAMember)
        throw alreadyMember('you are a member of this organization already; the invitation stays pending');
      throw error;
    }
  }
  return {
    organization_id: invitation.organization_id,
    invitation_id: invitation.id,
    user_id: caller.userId,
    role: invitation.role,
    spending_limit: invitation.spending_limit,
    daily_limit: invitation.daily_limit,
  };
}
