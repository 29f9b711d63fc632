/**
 * The caller's standing in an organization, whatever its credential: a user's membership, or an
 * API key's grant in its one organization (as a member with the key's role; anywhere else, as a
 * non-member). Domain code asks here instead of reading memberships itself, so that a key acts
 * exactly like a member and never beyond its organization.
 */
import { getMembership, listMembershipsOfUser, type Membership } from '../db/memberships.ts';
import { apiKeyNotAllowed, notFound } from '../errors.ts';
import type { Caller } from '../model.ts';

/** The caller's membership in `orgId`, or null: read in the same round trip as the caller's other reads. */
export async function membershipOfCaller(caller: Caller, orgId: string): Promise<Membership | null> {
  const { apiKey } = caller;
  if (!apiKey) return getMembership(orgId, caller.userId);
  if (apiKey.orgId !== orgId) return null;
  const { role, spending_limit, daily_limit, created_at } = await apiKey.grant;
  return { organization_id: orgId, user_id: apiKey.id, role, spending_limit, daily_limit, created_at };
}

/** Every membership of the caller (an API key: its one organization). */
export async function membershipsOfCaller(caller: Caller): Promise<Membership[]> {
  if (!caller.apiKey) return listMembershipsOfUser(caller.userId);
  const membership = await membershipOfCaller(caller, caller.apiKey.orgId);
  return membership ? [membership] : [];
}

/**
 * Managing members, settings and keys takes a person: an API key is refused (403
 * `api_key_not_allowed`) in its own organization, and is a non-member (404) in any other, so a
 * leaked key can never mint more keys.
 */
export function refuseApiKeys(caller: Caller, orgId: string): void {
  if (!caller.apiKey) return;
  if (caller.apiKey.orgId !== orgId) throw notFound();
  throw apiKeyNotAllowed();
}
