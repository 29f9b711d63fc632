/**
 * A new API key's record, whoever issues it: an owner (`POST /organizations/{id}/api-keys`,
 * lib/workspace/api-keys.ts) or a person approving an OAuth client (lib/oauth/consent.ts). One
 * place decides its id, that it is issued at a whole second (its token's `iat` and `exp` and the
 * record's expiry are the same instants) and that it expires `days` later, unused and unrevoked.
 */
import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord } from '../db/api-keys.ts';
import type { Role } from '../model.ts';

export interface NewApiKey {
  orgId: string;
  name: string;
  role: Role;
  createdById: string;
  /** Its lifetime, in days from `now`. */
  days: number;
  now: Date;
  spendingLimit?: number | null | undefined;
  dailyLimit?: number | null | undefined;
  confirmAbove?: number | null | undefined;
  allowedIps?: string[] | null | undefined;
  rateLimit?: { requests: number } | null | undefined;
  /** The OAuth client it is a grant for; absent for a key an owner creates. */
  oauth?: ApiKeyRecord['oauth'];
}

const DAY_MS = 86_400_000;

export function newApiKeyRecord(key: NewApiKey): ApiKeyRecord {
  const issuedAt = Math.floor(key.now.getTime() / 1000) * 1000;
  return {
    // From randomUUID, as every id the service makes up (the bench makes them up afresh for its floor).
    id: `key_${randomUUID().replaceAll('-', '')}`,
    organization_id: key.orgId,
    name: key.name,
    role: key.role,
    spending_limit: key.spendingLimit ?? null,
    daily_limit: key.dailyLimit ?? null,
    confirm_above: key.confirmAbove ?? null,
    allowed_ips: key.allowedIps ?? null,
    rate_limit: key.rateLimit ?? null,
    created_at: new Date(issuedAt).toISOString(),
    created_by_id: key.createdById,
    expires_at: new Date(issuedAt + key.days * DAY_MS).toISOString(),
    revoked_at: null,
    last_used_at: null,
    ...(key.oauth ? { oauth: key.oauth } : {}),
  };
}
