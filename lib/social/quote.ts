/**
 * A quote (`POST /social/{operation}/quote`): what a run with this input would cost now and
 * whether it would be refused, with the run's own rules (lib/billing/charge-rules.ts) and
 * nothing charged, claimed or called. One DynamoDB round trip: the organization, the
 * membership, the month's and the day's spend and (when the run would accept one) the cached
 * result, read together. It asks the configured provider's descriptor which operations it serves;
 * no provider's code is created. Whether every provider of the operation is skipped by its open
 * breaker (the run's 503 `operation_unavailable`) comes from this instance's view of the breakers
 * (lib/social/health/view.ts), as the run's does: no round trip of its own.
 */
import { membershipOfCaller } from '../auth/access.ts';
import { accessRefusal, creditRefusal, maxCreditsRefusal, shortfallRefusal } from '../billing/charge-rules.ts';
import { readSpend } from '../db/credits.ts';
import { canonicalHash } from '../db/idempotency.ts';
import { resultCacheKey } from '../db/keys.ts';
import { getOrganization } from '../db/organizations.ts';
import { getCachedResult } from '../db/result-cache.ts';
import { notAMember, operationNotOffered, ServiceError } from '../errors.ts';
import type { Caller } from '../model.ts';
import { usableProviders } from './failover.ts';
import type { FieldsParam } from './fields.ts';
import { findOperation, isEnabled, selectFields, validateOperationInput } from './operations.ts';
import { providersForCursor } from './provider-cursor.ts';
import { providerIdentity, providersFor, servedByProvider } from './providers/index.ts';
import { lookUp } from './result-cache.ts';

export interface Quote {
  operation: string;
  /** What the run would be charged: the operation's cost, or its cached cost when a cached result would answer it. */
  cost: number;
  balance: number;
  /** Whether the run would be charged and run now (false: `refusal` says what it would answer). */
  allowed: boolean;
  refusal: { code: string; message: string; data: Record<string, unknown> } | null;
  /** Whether a cached result would answer the run (only when the quote was asked with `max-age`). */
  cached: boolean;
}

export interface QuoteRequest {
  caller: Caller;
  orgId: string;
  operationName: string;
  input: unknown;
  maxAgeSeconds?: number | undefined;
  /** The run's `fields`: checked as the run checks them; they change nothing the quote says. */
  fields?: FieldsParam | undefined;
  /** The run's `Max-Credits`: a cost above it is the refusal the quote reports. */
  maxCredits?: number | undefined;
  now?: Date;
}

/** The run's 503 when every provider of the operation is skipped by its open breaker, else null. */
function unavailableRefusal(operation: string, input: Readonly<Record<string, unknown>>, nowMs: number): ServiceError | null {
  try {
    usableProviders(operation, providersForCursor(providersFor(operation), input), nowMs);
    return null;
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'operation_unavailable') return error;
    throw error;
  }
}

const refusalOf = (error: ServiceError): Quote['refusal'] => ({ code: error.code, message: error.message, data: error.details.data ?? {} });

/**
 * A non-member gets the run's 403 as the answer itself (a quote shows the balance, which only
 * members may read); a member gets 200 with what a run would answer. Never 402.
 */
export async function quoteSocialOperation(request: QuoteRequest): Promise<Quote> {
  const now = request.now ?? new Date();
  const operation = findOperation(request.operationName);
  const input = validateOperationInput(operation, request.input);
  selectFields(operation, request.fields);
  const cacheKey = resultCacheKey(request.orgId, operation.name, canonicalHash(input));
  // Asked before the reads: when this instance's view of the breakers is due a refresh, its Query
  // (never awaited) leaves beside them rather than after them.
  const unavailable = unavailableRefusal(operation.name, input, now.getTime());
  const [org, member, spent, stored] = await Promise.all([
    getOrganization(request.orgId),
    membershipOfCaller(request.caller, request.orgId),
    readSpend(request.orgId, request.caller.userId, now),
    request.maxAgeSeconds === undefined ? Promise.resolve(null) : getCachedResult(cacheKey, now.getTime()),
  ]);
  if (!org || !member) throw notAMember();
  const cache = lookUp(stored, operation, request.maxAgeSeconds, now.getTime());
  const cost = 'hit' in cache ? operation.cachedCost : operation.cost;
  const payer = { org, member };
  const shortfall = cost === 0 ? null : creditRefusal(payer, cost, spent);
  const refusal =
    accessRefusal(org, member, { operation: operation.name, network: operation.network, cost }) ??
    (isEnabled(operation, org.networks, servedByProvider) ? null : operationNotOffered(operation.name, providerIdentity().displayName)) ??
    maxCreditsRefusal(cost, request.maxCredits) ??
    // In the run's order: a cached result answers without a provider; otherwise all breakers open refuse before the charge.
    ('hit' in cache ? null : unavailable) ??
    (shortfall ? shortfallRefusal(shortfall, payer, spent, cost, now) : null);
  return {
    operation: operation.name,
    cost,
    balance: org.credits,
    allowed: refusal === null,
    refusal: refusal && refusalOf(refusal),
    cached: 'hit' in cache,
  };
}
