/**
 * What an operator sees and does of an organization's API keys: the list with spend, revocation,
 * and the guardrails a leaked or runaway key needs at once (its addresses, its daily limit) when
 * no owner is at hand.
 */
import { type SpendPeriod, spendPeriod } from '../billing/period.ts';
import { type ApiKeyChanges, type ApiKeyRecord, listApiKeys, revokeApiKey, updateApiKey } from '../db/api-keys.ts';
import type { AuditSource } from '../db/audit-events.ts';
import { NO_SPEND } from '../db/credits.ts';
import { readMonthSpend } from '../db/spend.ts';
import { NoSuchApiKeyError } from '../errors.ts';
import { requireOrganization } from './organizations.ts';

export interface ApiKeysReport {
  organization_id: string;
  period: Omit<SpendPeriod, 'month'>;
  api_keys: (ApiKeyRecord & { spent: number; spent_today: number })[];
}

/** Every key of the organization, revoked and expired ones included, with its spend this month and today (three reads in parallel). */
export async function listApiKeysWithSpend(orgId: string, now = new Date()): Promise<ApiKeysReport> {
  const { month: _month, ...period } = spendPeriod(now);
  const [, keys, spend] = await Promise.all([requireOrganization(orgId), listApiKeys(orgId), readMonthSpend(orgId, now)]);
  return {
    organization_id: orgId,
    period,
    api_keys: keys.map((key) => {
      const spent = spend.members.get(key.id) ?? NO_SPEND;
      return { ...key, spent: spent.month, spent_today: spent.day };
    }),
  };
}

/** Revokes a key at once (its next request is refused); a key revoked already keeps its first instant (and no event is written). */
export async function revokeKey(orgId: string, keyId: string, source: AuditSource, now = new Date()): Promise<ApiKeyRecord> {
  const revoked = await revokeApiKey(orgId, keyId, now, source);
  if (!revoked) throw new NoSuchApiKeyError(`${orgId} has no API key ${keyId}`);
  return revoked;
}

/**
 * Changes a key's guardrails (what `PATCH …/api-keys/{key_id}` takes, validated by the caller),
 * in force from its next request; a revoked or unknown key is refused.
 */
export async function changeKey(orgId: string, keyId: string, changes: ApiKeyChanges, source: AuditSource): Promise<ApiKeyRecord> {
  const changed = await updateApiKey(orgId, keyId, changes, source, new Date());
  if (!changed) throw new NoSuchApiKeyError(`${orgId} has no API key ${keyId} that is not revoked`);
  return changed;
}

/** The grants of one OAuth client in the organization (keys with `created_via: "oauth"` and that `client_id`), with their spend. */
export async function listClientGrants(orgId: string, clientId: string, now = new Date()): Promise<ApiKeysReport> {
  const report = await listApiKeysWithSpend(orgId, now);
  return { ...report, api_keys: report.api_keys.filter((key) => key.oauth?.client_id === clientId) };
}

/**
 * Revokes every grant of one OAuth client in the organization that is not revoked yet (a client
 * gone rogue): each key's next request is refused, and its refresh token with it; each key its own
 * transaction with its own `api_key.revoked` event. Returns the keys revoked now.
 */
export async function revokeClientGrants(orgId: string, clientId: string, source: AuditSource, now = new Date()): Promise<ApiKeyRecord[]> {
  await requireOrganization(orgId);
  const grants = (await listApiKeys(orgId)).filter((key) => key.oauth?.client_id === clientId && key.revoked_at === null);
  const revoked = await Promise.all(grants.map((key) => revokeApiKey(orgId, key.id, now, source, key)));
  return revoked.filter((key): key is ApiKeyRecord => key !== null);
}
