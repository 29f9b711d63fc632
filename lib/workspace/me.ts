/**
 * `GET /me`: who the caller is and every organization they belong to, with the role, the
 * caller's own limits (what the membership or the key's record holds) and what the caller spent
 * against them this UTC month and day. A user: their memberships (one Query), then their spend
 * counters in those organizations (one BatchGetItem a hundred organizations). An API key: its
 * record (read by authentication, alongside the rate-limit counter) and its spend counter, in one
 * round trip.
 */
import { membershipsOfCaller } from '../auth/access.ts';
import { readMemberSpend, readSpendAcross } from '../db/credits.ts';
import { pendingInvitationsTo } from '../db/invitations.ts';
import type { Caller, Role } from '../model.ts';

export interface MyOrganization {
  organization_id: string;
  role: Role;
  spending_limit: number | null;
  /** Credits the caller spent there this UTC month. */
  spent: number;
  daily_limit: number | null;
  /** Credits the caller spent there this UTC day. */
  spent_today: number;
}

export interface Me {
  /** The token's subject: a user's id, or for an API key the key's id. */
  user_id: string;
  token_kind: 'user' | 'api_key';
  api_key_id: string | null;
  /** The caller's verified address, lower-cased; null without one (and for an API key). */
  email: string | null;
  organizations: MyOrganization[];
  /** The pending invitations to that address, newest first, at most 50 (docs/invitations.md). */
  invitations: MyInvitation[];
}

/** A pending invitation to the caller's verified address: accepted by its id (`POST /invitations/accept`). */
export interface MyInvitation {
  id: string;
  organization_id: string;
  organization_name: string;
  role: Role;
  spending_limit: number | null;
  daily_limit: number | null;
  invited_by: string | null;
  expires_at: string;
}

/** The most pending invitations `GET /me` lists. */
const MAX_LISTED_INVITATIONS = 50;

export async function whoAmI(caller: Caller, now = new Date()): Promise<Me> {
  // The invitations to the caller's address are read beside the memberships: no added round trip.
  const email = caller.apiKey ? undefined : caller.verifiedEmail;
  const [memberships, keySpend, invitations] = await Promise.all([
    membershipsOfCaller(caller),
    caller.apiKey ? readMemberSpend(caller.apiKey.orgId, caller.userId, now) : undefined,
    email === undefined ? [] : pendingInvitationsTo(email, now, MAX_LISTED_INVITATIONS),
  ]);
  const sorted = memberships.sort((a, b) => (a.organization_id < b.organization_id ? -1 : a.organization_id > b.organization_id ? 1 : 0));
  const spend =
    keySpend !== undefined
      ? sorted.map(() => keySpend)
      : sorted.length === 0
        ? []
        : await readSpendAcross(
            sorted.map((membership) => membership.organization_id),
            caller.userId,
            now,
          );
  return {
    user_id: caller.userId,
    token_kind: caller.apiKey ? 'api_key' : 'user',
    api_key_id: caller.apiKey?.id ?? null,
    email: email ?? null,
    organizations: sorted.map((membership, i) => ({
      organization_id: membership.organization_id,
      role: membership.role,
      spending_limit: membership.spending_limit,
      spent: spend[i]?.month ?? 0,
      daily_limit: membership.daily_limit,
      spent_today: spend[i]?.day ?? 0,
    })),
    invitations: invitations.map((invitation) => ({
      id: invitation.id,
      organization_id: invitation.organization_id,
      organization_name: invitation.organization_name,
      role: invitation.role,
      spending_limit: invitation.spending_limit,
      daily_limit: invitation.daily_limit,
      invited_by: invitation.invited_by,
      expires_at: invitation.valid_until,
    })),
  };
}
