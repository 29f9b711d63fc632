/**
 * An operator's invitations (docs/invitations.md): one made as `POST …/invitations` makes it, by
 * nobody (`invited_by` null: no owner's standing to check, at acceptance either), with its email;
 * an organization's invitations, of one status or all; a revocation. What the routes answer with
 * a 409 is refused here naming its code (the CLI exits 1); an email SES did not take is the
 * route's 500 `upstream_failed` (the invitation stands: an owner resends it).
 */
import type { AuditSource } from '../db/audit-events.ts';
import { getInvitation, type InvitationFilter, listInvitationsPage } from '../db/invitations.ts';
import { InvitationRefusedError, NoSuchInvitationError, NoSuchOrganizationError, ServiceError } from '../errors.ts';
import { type InvitationStatus, type InvitationView, invitationView, revokeInvitationOf } from '../workspace/invitations.ts';
import { type InvitationInput, invite } from '../workspace/invite.ts';
import { requireOrganization } from './organizations.ts';

/** A 409 of the routes as a refusal naming its code; a 404 as `notFound` says; anything else as it is. */
function refused(error: unknown, notFound: () => Error): unknown {
  if (!(error instanceof ServiceError)) return error;
  if (error.status === 409) return new InvitationRefusedError(error.code, error.message);
  if (error.code === 'not_found') return notFound();
  return error;
}

/**
 * Invites `input.email` to the organization as an operator, with the route's rules and email (the
 * link to `consoleUrl`). `createdAt` in the past backdates the invitation, so its expiry.
 */
export async function inviteAsOperator(
  orgId: string,
  input: InvitationInput,
  consoleUrl: string,
  source: AuditSource,
  createdAt = new Date(),
): Promise<InvitationView> {
  try {
    return await invite(orgId, null, input, consoleUrl, source, createdAt);
  } catch (error) {
    throw refused(error, () => new NoSuchOrganizationError(`organization ${orgId} does not exist`));
  }
}

/** The page size of each read: the listing is read whole. */
const PAGE = 100;

/** The organization's invitations, newest first, of one status or all (each listed until 90 days after it ended). */
export async function listOrganizationInvitations(
  orgId: string,
  status: InvitationStatus | undefined,
  now = new Date(),
): Promise<{ organization_id: string; invitations: InvitationView[] }> {
  const filter: InvitationFilter = status ?? 'all';
  const [, first] = await Promise.all([requireOrganization(orgId), listInvitationsPage(orgId, filter, PAGE, now)]);
  const invitations = [...first.invitations];
  for (let page = first; page.hasMore; ) {
    page = await listInvitationsPage(orgId, filter, PAGE, now, invitations.at(-1)?.id);
    invitations.push(...page.invitations);
  }
  return { organization_id: orgId, invitations: invitations.map((invitation) => invitationView(invitation, now)) };
}

/**
 * Revokes an invitation as an operator: a pending or expired one becomes `revoked` (its link dead
 * at once), a revoked one stays as it is; an accepted one is refused (`invitation_not_pending`).
 * Returns the invitation as it is now.
 */
export async function revokeAsOperator(
  orgId: string,
  invitationId: string,
  source: AuditSource,
  now = new Date(),
): Promise<InvitationView> {
  const unknown = () => new NoSuchInvitationError(`invitation ${invitationId} of organization ${orgId} does not exist`);
  try {
    await revokeInvitationOf(orgId, invitationId, null, source, now);
  } catch (error) {
    throw refused(error, unknown);
  }
  const revoked = await getInvitation(orgId, invitationId);
  if (!revoked) throw unknown();
  return invitationView(revoked, now);
}
