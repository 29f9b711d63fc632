/**
 * The one rate limit of the OAuth endpoints that take no token: per source address, on what costs
 * the service something for anyone who asks: a registration (an item in the table) and a client ID
 * metadata document's fetch (an outgoing request to a URL of the caller's choosing). Counted with
 * the API's own fixed-window counter (lib/db/rate-limit.ts: one atomic ADD, across instances),
 * under a subject no user id can take (`oauth-<purpose>@<address>`).
 */
import { oauthClientRateLimit } from '../config.ts';
import { countRequest } from '../db/rate-limit.ts';
import { OAuthError } from './errors.ts';

export type LimitedPurpose = 'register' | 'client-document';

const WHAT: Record<LimitedPurpose, string> = {
  register: 'client registrations',
  'client-document': 'client metadata documents fetched',
};

/** Counts one `purpose` for `address`; over the limit, OAuthError 429 `temporarily_unavailable` with Retry-After. */
export async function countForAddress(purpose: LimitedPurpose, address: string, nowMs: number): Promise<void> {
  const { requests, windowSeconds } = oauthClientRateLimit();
  const { count, windowEndsMs } = await countRequest(`oauth-${purpose}@${address}`, nowMs, windowSeconds);
  if (count <= requests) return;
  const retryAfter = Math.max(1, Math.ceil((windowEndsMs - nowMs) / 1000));
  throw new OAuthError(
    'temporarily_unavailable',
    `too many ${WHAT[purpose]} from this address (at most ${requests} an hour): retry in ${retryAfter} s`,
    429,
    retryAfter,
  );
}
