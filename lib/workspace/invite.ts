/**
 * Inviting by email (docs/invitations.md): an owner's (or an operator's) new invitation and its
 * resend, each with a new token and one email. The refusals after validation, in order: the
 * address is a member's (409 `already_member`), a pending invitation to it exists (409
 * `invitation_pending`, never replaced), 50 are pending (409 `invitation_limit_reached`); each
 * decided from what was read and held by the transaction's conditions (lib/db/invitations.ts), so
 * they hold under any concurrency. The email goes once the invitation is written: SES refusing it
 * is 500 `upstream_failed` naming the invitation, which a resend sends again.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { auditSourceOf } from '../auth/access.ts';
import type { AuditSource } from '../db/audit-events.ts';
import {
  AddressIsAMember,
  createInvitation,
  getInvitation,
  getInvitationSlots,
  InvitationChanged,
  type InvitationRecord,
  type InvitationSlots,
  InvitationSlotsChanged,
  memberOfAddress,
  resendInvitation,
} from '../db/invitations.ts';
import { getOrganization } from '../db/organizations.ts';
import {
  alreadyMember,
  invitationEmailNotSent,
  invitationLimitReached,
  invitationNotPending,
  invitationPending,
  notFound,
} from '../errors.ts';
import { logger } from '../log.ts';
import { EmailNotSent, sendEmail } from '../mail/email.ts';
import type { Caller, Role } from '../model.ts';
import { type InvitationView, invitationView, statusAt, tokenHashOf } from './invitations.ts';
import { asOwner, requireOwner } from './owners.ts';

/** At most this many pending invitations per organization (expired ones do not count). */
export const MAX_PENDING_INVITATIONS = 50;
export const DEFAULT_EXPIRES_IN_DAYS = 7;
const DAY_MS = 86_400_000;
/** Reads and writes when the pending invitations keep changing under a creation. */
const ATTEMPTS = 5;

export interface InvitationInput {
  /** Already trimmed and lower-cased (the schema's rule, invitationEmail). */
  email: string;
  role: Role;
  spending_limit?: number | null | undefined;
  daily_limit?: number | null | undefined;
  expires_in_days?: number | undefined;
}

/** 32 random bytes, base64url: 256 bits, shown once in the email's link. */
const newToken = (): string => randomBytes(32).toString('base64url');

/**
 * `inv_`, the creation time (ms, 12 hex digits) and 20 random hex digits: ids sort by creation
 * time, so the organization's partition lists newest first, ties by id.
 */
export const newInvitationId = (createdAt: Date): string =>
  `inv_${createdAt.getTime().toString(16).padStart(12, '0')}${randomUUID().replaceAll('-', '').slice(0, 20)}`;

/** The refusal the pending invitations as read give an invitation to `email` (other than `self`), or null. */
function pendingRefusal(slots: InvitationSlots, email: string, self: string | null, nowMs: number): Error | null {
  const live = [...slots.pending].filter(([id, entry]) => id !== self && entry.untilMs > nowMs);
  const same = live.find(([, entry]) => entry.email === email);
  if (same) return invitationPending(same[0]);
  if (live.length >= MAX_PENDING_INVITATIONS) return invitationLimitReached(MAX_PENDING_INVITATIONS);
  return null;
}

const ROLE_PHRASES: Record<Role, string> = { viewer: 'a viewer', editor: 'an editor', owner: 'an owner' };

const limitText = (limit: number | null, period: 'month' | 'day') =>
  limit === null ? `no ${period === 'month' ? 'monthly' : 'daily'} limit` : `${limit} credits a ${period}`;

/** The invitation's email: the organization in the subject; the role, limits, expiry and link in the text. */
function invitationEmail(invitation: InvitationRecord, acceptUrl: string) {
  return {
    to: invitation.email,
    subject: `You are invited to join ${invitation.organization_name} on the Workspace Service`,
    text: [
      `You are invited to join ${invitation.organization_name} as ${ROLE_PHRASES[invitation.role]}.`,
      `Your spending limits there: ${limitText(invitation.spending_limit, 'month')}, ${limitText(invitation.daily_limit, 'day')}.`,
      `The invitation expires at ${invitation.valid_until}.`,
      '',
      'To accept, open this link and sign in (or sign up) with this email address:',
      acceptUrl,
      '',
      'If you did not expect this invitation, ignore this email.',
    ].join('\n'),
    tags: { kind: 'invitation', invitation_id: invitation.id, organization_id: invitation.organization_id },
  };
}

/** Sends an invitation's email with its token in the link's fragment (no server log, proxy or Referer sees it). */
async function mail(invitation: InvitationRecord, token: string, consoleUrl: string): Promise<void> {
  try {
    await sendEmail(invitationEmail(invitation, `${consoleUrl}#invitation=${token}`));
  } catch (error) {
    if (!(error instanceof EmailNotSent)) throw error;
    logger.warn('invitation email not sent', {
      invitation_id: invitation.id,
      organization_id: invitation.organization_id,
      reason: error.message,
    });
    throw invitationEmailNotSent(invitation.id);
  }
}

/**
 * Invites `input.email` to the organization, as `inviter` (an owner's user id; null for an
 * operator, whose role is not checked), and sends its email. `consoleUrl`: where the link goes.
 * `source`: who, for its `invitation.created` audit event (the owner, or the operator).
 * `standing`: the inviter's owner check, in flight; read beside the first reads (one round trip),
 * its refusal answers before anything they found.
 */
export async function invite(
  orgId: string,
  inviter: string | null,
  input: InvitationInput,
  consoleUrl: string,
  source: AuditSource,
  now = new Date(),
  standing?: Promise<void>,
): Promise<InvitationView> {
  const days = input.expires_in_days ?? DEFAULT_EXPIRES_IN_DAYS;
  const token = newToken();
  for (let attempt = 1; ; attempt += 1) {
    const [, organization, memberId, slots] = await Promise.all([
      attempt === 1 ? standing : undefined,
      getOrganization(orgId),
      memberOfAddress(orgId, input.email),
      getInvitationSlots(orgId),
    ]);
    if (!organization) throw notFound();
    if (memberId !== null) throw alreadyMember('a member of the organization has this address');
    const refusal = pendingRefusal(slots, input.email, null, now.getTime());
    if (refusal) throw refusal;
    const invitation: InvitationRecord = {
      id: newInvitationId(now),
      organization_id: orgId,
      organization_name: organization.name,
      email: input.email,
      role: input.role,
      spending_limit: input.spending_limit ?? null,
      daily_limit: input.daily_limit ?? null,
      status: 'pending',
      invited_by: inviter,
      created_at: now.toISOString(),
      valid_until: new Date(now.getTime() + days * DAY_MS).toISOString(),
      expires_in_days: days,
      accepted_at: null,
      accepted_by: null,
      revoked_at: null,
      token_hash: tokenHashOf(token),
    };
    try {
      // `now` may be in the past (the admin CLI's `--at`): the pending ones are counted as of this instant.
      await asOwner(createInvitation(invitation, tokenHashOf(token), slots, Date.now(), source));
    } catch (error) {
      if (error instanceof AddressIsAMember) throw alreadyMember('a member of the organization has this address');
      if (error instanceof InvitationSlotsChanged && attempt < ATTEMPTS) continue;
      throw error;
    }
    await mail(invitation, token, consoleUrl);
    // As read now: a backdated one (`now` in the past) may be expired already.
    return invitationView(invitation, new Date());
  }
}

/** `POST …/invitations`: owners with a user's token (API keys 403, other members 403, anyone else 404). */
export async function inviteToWorkspace(
  caller: Caller,
  orgId: string,
  input: InvitationInput,
  consoleUrl: string,
  now = new Date(),
): Promise<InvitationView> {
  return invite(orgId, caller.userId, input, consoleUrl, await auditSourceOf(caller), now, requireOwner(caller, orgId));
}

/**
 * `POST …/invitations/{id}/resend`: a pending or expired invitation gets a new token (the previous
 * one dead at once), `expires_at` now plus the days it was created with, and one more email; an
 * expired one revives, refused like a creation by `invitation_pending` and
 * `invitation_limit_reached`; a revoked or accepted one is 409 `invitation_not_pending`.
 */
export async function resendWorkspaceInvitation(
  caller: Caller,
  orgId: string,
  invitationId: string,
  consoleUrl: string,
  now = new Date(),
): Promise<InvitationView> {
  // Who, for its event: known before the owner check starts (a user's token: no read).
  const source = await auditSourceOf(caller);
  const standing = requireOwner(caller, orgId);
  const token = newToken();
  for (let attempt = 1; ; attempt += 1) {
    // The owner check beside the first reads (one round trip); its refusal answers first.
    const [, read, slots] = await Promise.all([
      attempt === 1 ? standing : undefined,
      getInvitation(orgId, invitationId),
      getInvitationSlots(orgId),
    ]);
    if (!read) throw notFound();
    if (read.status !== 'pending') throw invitationNotPending(read.status);
    if (statusAt(read, now) === 'expired') {
      const refusal = pendingRefusal(slots, read.email, read.id, now.getTime());
      if (refusal) throw refusal;
    }
    const resent: InvitationRecord = {
      ...read,
      valid_until: new Date(now.getTime() + read.expires_in_days * DAY_MS).toISOString(),
      token_hash: tokenHashOf(token),
    };
    try {
      await asOwner(resendInvitation(read, resent, tokenHashOf(token), caller.userId, slots, now.getTime(), source));
    } catch (error) {
      if ((error instanceof InvitationSlotsChanged || error instanceof InvitationChanged) && attempt < ATTEMPTS) continue;
      throw error;
    }
    await mail(resent, token, consoleUrl);
    return invitationView(resent, now);
  }
}
