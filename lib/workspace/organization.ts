/**
 * An organization's settings as its members see them (`GET /organizations/{id}`) and as its
 * owners change them (`PATCH`). A non-member gets the same 404 as an unknown organization.
 */
import { auditSourceOf, membershipOfCaller } from '../auth/access.ts';
import { type PeriodSpend, readOrgSpend } from '../db/credits.ts';
import { changeOrganizationSettings, getOrganization, type Organization } from '../db/organizations.ts';
import { notFound } from '../errors.ts';
import type { Caller, Network } from '../model.ts';
import { requireOwner } from './owners.ts';

export interface WorkspaceSettings {
  organization_id: string;
  networks: Network[];
  spending_limit: number | null;
  /** Credits the organization spent this UTC month. */
  spent: number;
  daily_limit: number | null;
  /** Credits the organization spent this UTC day. */
  spent_today: number;
  confirm_above: number | null;
  created_at: string;
}

const settingsOf = (org: Organization, spent: PeriodSpend): WorkspaceSettings => ({
  organization_id: org.id,
  networks: org.networks,
  spending_limit: org.spending_limit,
  spent: spent.month,
  daily_limit: org.daily_limit,
  spent_today: spent.day,
  confirm_above: org.confirm_above,
  created_at: org.created_at,
});

/** Any member. One round trip: the organization, the membership and its spend counter read together. */
export async function readWorkspace(caller: Caller, orgId: string, now = new Date()): Promise<WorkspaceSettings> {
  const [org, member, spent] = await Promise.all([getOrganization(orgId), membershipOfCaller(caller, orgId), readOrgSpend(orgId, now)]);
  if (!org || !member) throw notFound();
  return settingsOf(org, spent);
}

/**
 * Owners; other members 403, anyone else 404. The organization and its spend are read beside the
 * owner check; then one transaction: the change, conditional on the values read, with its
 * `organization.updated` event. A change of nothing (the current values) writes nothing.
 */
export async function changeWorkspace(
  caller: Caller,
  orgId: string,
  changes: {
    spending_limit?: number | null | undefined;
    daily_limit?: number | null | undefined;
    confirm_above?: number | null | undefined;
    networks?: Network[] | undefined;
  },
  now = new Date(),
): Promise<WorkspaceSettings> {
  const [, spent, read] = await Promise.all([requireOwner(caller, orgId), readOrgSpend(orgId, now), getOrganization(orgId)]);
  const change = {
    ...(changes.spending_limit === undefined ? {} : { spendingLimit: changes.spending_limit }),
    ...(changes.daily_limit === undefined ? {} : { dailyLimit: changes.daily_limit }),
    ...(changes.networks === undefined ? {} : { networks: [...new Set(changes.networks)] }),
    ...(changes.confirm_above === undefined ? {} : { confirmAbove: changes.confirm_above }),
  };
  const updated = await changeOrganizationSettings(orgId, change, await auditSourceOf(caller), now, read);
  if (!updated) throw notFound();
  return settingsOf(updated, spent);
}
