/** `GET /me`: who the caller is and every organization they belong to, with the role in each. One Query. */
import { listMembershipsOfUser } from '../db/memberships.ts';
import type { Caller, Role } from '../model.ts';

export interface Me {
  user_id: string;
  token_kind: 'user' | 'api_key';
  api_key_id: string | null;
  organizations: { organization_id: string; role: Role }[];
}

export async function whoAmI(caller: Caller): Promise<Me> {
  const memberships = await listMembershipsOfUser(caller.userId);
  return {
    user_id: caller.userId,
    // API keys (their own issuer and one organization) are not built yet: every caller is a user.
    token_kind: 'user',
    api_key_id: null,
    organizations: memberships
      .map((membership) => ({ organization_id: membership.organization_id, role: membership.role }))
      .sort((a, b) => (a.organization_id < b.organization_id ? -1 : a.organization_id > b.organization_id ? 1 : 0)),
  };
}
