/**
 * The caller's standing in an organization, whatever its credential: a user's membership, or an
 * API key's grant in its one organization (as a member with the key's role; anywhere else, as a
 * non-member). Domain code asks here instead of reading memberships itself, so that a key acts
 * exactly like a member and never beyond its organization.
 */
import { getApiKeyStanding, grantOf, standingOf } from '../db/api-keys.ts';
import type { AuditSource } from '../db/audit-events.ts';
import { getMembership, listMembershipsOfUser, type Membership } from '../db/memberships.ts';
import { apiKeyNotAllowed, invalidToken, notFound } from '../errors.ts';
import type { ApiKeyCaller, ApiKeyGrant, Caller } from '../model.ts';
import { TOKEN_REFUSALS } from './refusals.ts';

/**
 * The key's grant as its record holds it now, read again (a charge that found the key changed
 * since the request read it): null when it or its organization is gone; a revoked or expired key
 * is its 401.
 */
async function currentGrant(apiKey: ApiKeyCaller): Promise<ApiKeyGrant | null> {
  const { key, orgExists } = await getApiKeyStanding(apiKey.orgId, apiKey.id);
  if (!key || !orgExists) return null;
  const standing = standingOf(key, new Date());
  if (standing !== 'active') throw invalidToken(standing, TOKEN_REFUSALS[standing]);
  return grantOf(key);
}

/**
 * The caller's membership in `orgId`, or null: read in the same round trip as the caller's other
 * reads. An API key's is the grant its request read (authentication read it alongside), or with
 * `reread` its record as it is now.
 */
export async function membershipOfCaller(caller: Caller, orgId: string, reread = false): Promise<Membership | null> {
  const { apiKey } = caller;
  if (!apiKey) return getMembership(orgId, caller.userId);
  if (apiKey.orgId !== orgId) return null;
  const grant = reread ? await currentGrant(apiKey) : await apiKey.grant;
  if (!grant) return null;
  const { role, spending_limit, daily_limit, created_at } = grant;
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

/**
 * Who the audit events of the caller's changes name (docs/audit.md): a user by their `sub`, an API
 * key by its id with the OAuth client a consent minted it for; and the request they came with.
 */
export async function auditSourceOf(caller: Caller): Promise<AuditSource> {
  const request = { request_id: caller.request?.id ?? null, source_ip: caller.request?.sourceIp ?? null };
  if (!caller.apiKey) return { actor: { type: 'user', id: caller.userId, client_id: null }, ...request };
  const grant = await caller.apiKey.grant;
  return { actor: { type: 'api_key', id: caller.apiKey.id, client_id: grant.client_id ?? null }, ...request };
}
