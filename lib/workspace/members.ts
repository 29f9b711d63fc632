/**
 * An organization's members, managed by its owners (`/organizations/{id}/members`): the list with
 * each member's limits and spend this month and today, adding or changing one (PUT), removing one. The last
 * owner can be neither removed nor demoted (409 `last_owner`), exactly under concurrency: every
 * membership write is one transaction with the organization's owner count (lib/db/memberships.ts).
 */
import { auditSourceOf, membershipOfCaller, refuseApiKeys } from '../auth/access.ts';
import { cursorSigningKey } from '../config.ts';
import { NO_SPEND, type PeriodSpend, readMemberSpend, readMembersSpend } from '../db/credits.ts';
import { listMembersPage, type Membership, putMembership, removeMembership } from '../db/memberships.ts';
import { forbidden, LastOwnerError, lastOwner, NoSuchMemberError, NoSuchOrganizationError, notFound, validationFailed } from '../errors.ts';
import type { Caller, Role } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';
import { requireOwner } from './owners.ts';

export interface MemberView {
  user_id: string;
  role: Role;
  spending_limit: number | null;
  /** Credits spent this UTC month. */
  spent: number;
  daily_limit: number | null;
  /** Credits spent this UTC day. */
  spent_today: number;
  /** The address the member accepted an invitation with; null for a member added by id. */
  email: string | null;
}

const viewOf = (member: Membership, spent: PeriodSpend): MemberView => ({
  user_id: member.user_id,
  role: member.role,
  spending_limit: member.spending_limit,
  spent: spent.month,
  daily_limit: member.daily_limit,
  spent_today: spent.day,
  email: member.email ?? null,
});

export interface MembersPage {
  members: MemberView[];
  next_cursor: string | null;
  has_more: boolean;
}

const cursorScope = (orgId: string) => `members:${orgId}`;

/**
 * Owners only (other members 403, anyone else 404), paged by user id. One round trip: the
 * caller's membership, the page of the members index and the month's spend counters, read
 * together (a caller who may not list gets the same answer as if nothing had been read).
 */
export async function listWorkspaceMembers(
  caller: Caller,
  orgId: string,
  query: { limit: number; cursor?: string | undefined },
  now = new Date(),
): Promise<MembersPage> {
  const key = cursorSigningKey();
  const opened = query.cursor === undefined ? undefined : openCursor(query.cursor, key, cursorScope(orgId));
  if (opened && 'problem' in opened)
    throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: opened.problem }]);
  refuseApiKeys(caller, orgId);
  const [me, page, spend] = await Promise.all([
    membershipOfCaller(caller, orgId),
    listMembersPage(orgId, query.limit, opened?.position),
    readMembersSpend(orgId, now),
  ]);
  if (!me) throw notFound();
  if (me.role !== 'owner') throw forbidden('only owners of the organization can list its members');
  const last = page.members.at(-1);
  return {
    members: page.members.map((member) => viewOf(member, spend.get(member.user_id) ?? NO_SPEND)),
    next_cursor: page.hasMore && last ? sealCursor(cursorScope(orgId), last.user_id, key) : null,
    has_more: page.hasMore,
  };
}

/** Adds or changes a member (owners only): its role, and each of its limits when given (kept when omitted). */
export async function putWorkspaceMember(
  caller: Caller,
  orgId: string,
  userId: string,
  change: { role: Role; spending_limit?: number | null | undefined; daily_limit?: number | null | undefined },
  now = new Date(),
): Promise<{ member: MemberView; created: boolean }> {
  await requireOwner(caller, orgId);
  try {
    const [{ member, created }, spent] = await Promise.all([
      putMembership(
        orgId,
        userId,
        {
          role: change.role,
          ...(change.spending_limit === undefined ? {} : { spendingLimit: change.spending_limit }),
          ...(change.daily_limit === undefined ? {} : { dailyLimit: change.daily_limit }),
        },
        await auditSourceOf(caller),
        now,
      ),
      readMemberSpend(orgId, userId, now),
    ]);
    return { member: viewOf(member, spent), created };
  } catch (error) {
    throw asServiceError(error, userId);
  }
}

/** Removes a member (owners only); an unknown member is 404. */
export async function removeWorkspaceMember(caller: Caller, orgId: string, userId: string): Promise<void> {
  await requireOwner(caller, orgId);
  try {
    await removeMembership(orgId, userId, await auditSourceOf(caller));
  } catch (error) {
    throw asServiceError(error, userId);
  }
}

/** The storage layer's refusals as API answers. */
function asServiceError(error: unknown, userId: string): unknown {
  if (error instanceof LastOwnerError) return lastOwner(userId);
  if (error instanceof NoSuchMemberError || error instanceof NoSuchOrganizationError) return notFound();
  return error;
}
