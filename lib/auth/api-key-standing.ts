/**
 * Whether an API key may act on this request, read from its record on every request (no cache:
 * a revocation, or a change of its addresses, limits or rate, counts from the very next request,
 * on every instance). The read goes out with the request's own first reads, so a key costs no
 * sequential round trip over a user's token.
 */
import { getApiKeyStanding, grantOf, LAST_USED_GRANULARITY_MS, standingOf, touchApiKey } from '../db/api-keys.ts';
import { ipNotAllowed } from '../errors.ts';
import { logError } from '../log.ts';
import type { ApiKeyGrant } from '../model.ts';
import { keyUsableFrom } from './ip-allowlist.ts';
import { TokenRefused } from './refusals.ts';

export interface ApiKeyStanding {
  /**
   * The key's grant in its organization, or a TokenRefused: `revoked`, `expired` (its record's
   * expiry, which the token's `exp` also carries), or `unknown_api_key` (no such key, or its
   * organization is gone); or, for a key used from an address its `allowed_ips` do not hold, the
   * 403 `ip_not_allowed`.
   */
  grant: Promise<ApiKeyGrant>;
  /** The grant, and `last_used_at` moved forward when it was stale: what the answer waits for. */
  settled: Promise<void>;
}

/**
 * Starts the key's reads at once. `from`: the request's source address (what the gateway saw),
 * checked against the key's `allowed_ips`; undefined for work that is no request (a job's items
 * run under the key that created the job, which was checked then). `last_used_at` is written at
 * most once per key per 15 minutes (a conditional write; a failure to write it never refuses the
 * request), after the read and alongside the handler's work, so no request waits a round trip
 * for it; a request refused here never writes it.
 */
export function apiKeyStanding(orgId: string, keyId: string, now = new Date(), from?: string): ApiKeyStanding {
  const grant = getApiKeyStanding(orgId, keyId).then(({ key, orgExists }) => {
    if (!key || !orgExists) throw new TokenRefused('unknown_api_key');
    const standing = standingOf(key, now);
    if (standing !== 'active') throw new TokenRefused(standing);
    if (from !== undefined && !keyUsableFrom(key.allowed_ips, from)) throw ipNotAllowed(from);
    return key;
  });
  const settled = grant.then(async (key) => {
    if (key.last_used_at !== null && Date.parse(key.last_used_at) > now.getTime() - LAST_USED_GRANULARITY_MS) return;
    await touchApiKey(orgId, keyId, now).catch((error: unknown) => logError('last_used_at of an API key not written', error));
  });
  return { grant: grant.then(grantOf), settled };
}
