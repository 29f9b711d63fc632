/**
 * `GET /me`: who the caller is and every organization they belong to, with the role and the
 * caller's own limits in each (what the membership or the key's record holds). One
 * round trip: a user's memberships (one Query), or an API key's record (read by authentication,
 * alongside the rate-limit counter).
 */
import { membershipsOfCaller } from '../auth/access.ts';
import type { Caller, Role } from '../model.ts';

export interface Me {
  /** The token's subject: a user's id, or for an API key the key's id. */
  user_id: string;
  token_kind: 'user' | 'api_key';
  api_key_id: string | null;
  /** Each with the caller's role and own limits there (a member's, or the API key's; null: none). */
  organizations: { organization_id: string; role: Role; spending_limit: number | null; daily_limit: number | null }[];
}

export async function whoAmI(caller: Caller): Promise<Me> {
  const memberships = await membershipsOfCaller(caller);
  return {
    user_id: caller.userId,
    token_kind: caller.apiKey ? 'api_key' : 'user',
    api_key_id: caller.apiKey?.id ?? null,
    organizations: memberships
      .map((membership) => ({
        organization_id: membership.organization_id,
        role: membership.role,
        spending_limit: membership.spending_limit,
        daily_limit: membership.daily_limit,
      }))
      .sort((a, b) => (a.organization_id < b.organization_id ? -1 : a.organization_id > b.organization_id ? 1 : 0)),
  };
}
