/**
 * Running one social operation, as named steps: find and validate → read → access and
 * idempotency → charge (atomically with its billing event, the run's pending record and the
 * key's claim) or take over a dead attempt's run → the provider under its deadline → settle
 * (deliver, and remove the pending record in the write that completes the key) or refund (in the
 * transaction that removes the pending record and releases the key). Plain arguments in, a plain
 * result out: the HTTP handler and the MCP tool both call it. A run that dies on the way leaves
 * its pending record, which the sweeper refunds (docs/charges.md).
 *
 * DynamoDB round trips before the provider call: (1) the organization, the membership, the
 * idempotency record and (when the run accepts a cached result) the cached result, in parallel
 * (with the caller's rate-limit counter when called over HTTP); (2) the charge transaction (or the
 * takeover transaction). After it: one, the balance read alongside the settle write and the
 * result's storage for later runs. A cache hit at no cost answers after (1).
 */

import { randomUUID } from 'node:crypto';
import { membershipOfCaller } from '../auth/access.ts';
import { accessRefusal, type ChargeAsk, maxCreditsRefusal } from '../billing/charge-rules.ts';
import {
  type ChargeConsent,
  chargeRun,
  type HeldCharge,
  type JobBudget,
  RunOrphaned,
  refundRun,
  StaleRead,
  settleRun,
  takeOverRun,
} from '../billing/paid-run.ts';
import { sweepAfterMs } from '../billing/sweeper.ts';
import { socialConfig } from '../config.ts';
import { canonicalHash, getIdempotencyRecord } from '../db/idempotency.ts';
import { resultCacheKey } from '../db/keys.ts';
import { getOrganization, type Organization } from '../db/organizations.ts';
import { getCachedResult } from '../db/result-cache.ts';
import type { TableKey } from '../db/table.ts';
import { notFoundUpstream, operationNotOffered, upstreamFailed, upstreamFailedRefundPending } from '../errors.ts';
import { logError, logger, logKeys } from '../log.ts';
import type { Caller } from '../model.ts';
import type { OperationDefinition } from './catalog/index.ts';
import { EveryProviderFailed, NotFoundAnswer, type Served, serveWithFailover, usableProviders } from './failover.ts';
import { type FieldsParam, project } from './fields.ts';
import { type Attempt, encodeAttempts } from './health/attempts.ts';
import { decide, type Idempotency, idempotencyOf, leaseMs } from './idempotency.ts';
import { findOperation, isEnabled, selectFields, validateOperationInput } from './operations.ts';
import { REFUND_RESERVE_MS, runEndsByMs } from './provider-call.ts';
import { providersForCursor, withCursorOwner, withVendorCursor } from './provider-cursor.ts';
import { providerIdentity, providersFor } from './providers/index.ts';
import type { SocialProvider } from './providers/types.ts';
import { type CacheHit, cacheStatus, type Forward, lookUp, storeResult } from './result-cache.ts';

/** Re-reads after a spending limit changed under a charge; more would mean limits flapping. */
const STALE_RETRIES = 3;

export interface RunRequest {
  caller: Caller;
  orgId: string;
  operationName: string;
  /** The operation input as sent (validated here against the operation's schema). */
  input: unknown;
  idempotencyKey?: string | undefined;
  /** Answer from this organization's result of the same input if it is at most this old (seconds); undefined: always run. */
  maxAgeSeconds?: number | undefined;
  /**
   * Answer only these paths of the output (lib/social/fields.ts): checked before anything is
   * read, part of the Idempotency-Key's identity, not of the cache key (the whole output is stored).
   */
  fields?: FieldsParam | undefined;
  /**
   * The most this call may be charged (`Max-Credits`): a run (or a cached result) costing more is
   * refused with 402 `max_credits_exceeded`, nothing charged. Not part of the Idempotency-Key's
   * identity: a replay, or a retry that takes over a dead attempt's run, charges nothing new.
   */
  maxCredits?: number | undefined;
  /**
   * An item of a job with `max_credits`: its charge counts in the job's budget, in the charge's own
   * transaction, and one that would take the job past its cap is refused with 402
   * `max_credits_exceeded` (`remaining`), nothing charged; its refund gives the cost back.
   */
  job?: JobBudget | undefined;
  /** The request's id: named in the billing events of its charge and refund. */
  requestId?: string | undefined;
  /**
   * Asked once the charge's cost is known and before it is made (MCP consent, lib/mcp/consent.ts):
   * throws to refuse the run, or gives the consent its charge spends (undefined: none is needed).
   * It reads nothing from the table: the run keeps its round trips.
   */
  consent?: ((cost: number, org: Organization) => Promise<ChargeConsent | undefined>) | undefined;
  /** Epoch ms by which the run must have answered (the function's own deadline); none by default. */
  deadlineMs?: number;
  /** The clock (epoch ms); tests pass their own. */
  now?: () => number;
}

export interface RunResult {
  output: unknown;
  /** Credits charged by this request: 0 for a replay or a cached result at no cost. */
  charged: number;
  /** The balance after the run, when it could be read. */
  remaining: number | undefined;
  /** The answer replays the first response to this Idempotency-Key. */
  replayed: boolean;
  /** On a replay: what the first run was charged (a job's item replayed after its worker died reports it); otherwise undefined. */
  firstCharged?: number | undefined;
  /** The charge's billing event id, when this request charged. */
  chargeId: string | undefined;
  /** RFC 9211 `Cache-Status` (undefined on a replay). */
  cacheStatus: string | undefined;
  /** A cached result's age in seconds (hits only). */
  ageSeconds: number | undefined;
  /** The output is generated sample data (the deployment runs the `sample` provider), not real data. */
  sampleData: boolean;
  /** The provider that produced the output (a cached result: the one that produced it); undefined on a replay or an old cached result. */
  provider?: string | undefined;
}

export async function runSocialOperation(request: RunRequest): Promise<RunResult> {
  const result = await runOnce(request);
  return { ...result, sampleData: providerIdentity().sampleData };
}

/** A provider's name as clients see it (`Social-Provider`, `_meta.provider`, the status page). */
const displayNameOf = (providers: readonly SocialProvider[], name: string | undefined): string | undefined =>
  name === undefined ? undefined : (providers.find((provider) => provider.name === name)?.displayName ?? name);

async function runOnce(request: RunRequest): Promise<Omit<RunResult, 'sampleData'>> {
  const now = request.now ?? Date.now;
  const operation = findOperation(request.operationName);
  logKeys({ operation: operation.name });
  const input = validateOperationInput(operation, request.input);
  const selection = selectFields(operation, request.fields);
  // What the caller asked for: recorded for a replay, and what the answer carries.
  const shaped = (output: unknown): unknown => (selection ? project(output, selection.keep) : output);
  const providers = providersFor(operation.name);
  const idempotency = request.idempotencyKey
    ? idempotencyOf(request.orgId, request.caller.userId, request.idempotencyKey, operation.name, input, selection?.canonical)
    : undefined;
  const cacheKey = resultCacheKey(request.orgId, operation.name, canonicalHash(input));
  const deadlineMs = request.deadlineMs ?? Number.POSITIVE_INFINITY;
  const settle = () => ({ untilMs: settleUntilMs(deadlineMs), nowMs: now() });

  // A page's cursor goes back to the provider that issued it (provider-cursor.ts).
  const paid = await pay(request, operation, providersForCursor(providers, input), { idempotency, cacheKey, deadlineMs, now });
  if ('replay' in paid) {
    logKeys({ credits_charged: 0, credits_refunded: 0, replayed: true });
    return {
      ...answered(paid.replay.body, 0, undefined, undefined),
      replayed: true,
      firstCharged: paid.replay.charged,
      cacheStatus: undefined,
      provider: undefined,
    };
  }
  if ('free' in paid) {
    logKeys({ credits_charged: 0, credits_refunded: 0, cache: 'hit' });
    return { ...answered(shaped(paid.free.output), 0, paid.balance, undefined), ...hitOf(paid.free, providers) };
  }
  logKeys({ credits_charged: paid.run.cost, credits_refunded: 0, ...(paid.hit ? { cache: 'hit' } : {}) });
  if (paid.hit) return { ...(await deliver(paid.run, shaped(paid.hit.output), idempotency, settle())), ...hitOf(paid.hit, providers) };

  const { providerTimeoutMs } = socialConfig();
  let served: Served;
  try {
    served = await serveWithFailover(paid.providers, operation, withVendorCursor(input, providers), {
      timeoutMs: providerTimeoutMs,
      endsAtMs: runEndsByMs(providerTimeoutMs * Math.max(1, paid.providers.length), paid.startedAtMs, deadlineMs),
      now,
    });
  } catch (error) {
    throw await refundAfterFailure(paid.run, error);
  }
  logKeys({ provider: served.provider, ...(served.attempts.length > 1 ? { failover: encodeAttempts(served.attempts) } : {}) });
  const output = withCursorOwner(served.output, served.provider, providers);
  const [result, stored] = await Promise.all([
    deliver(paid.run, shaped(output), idempotency, settle(), { 'Social-Provider': displayNameOf(providers, served.provider) }),
    storeResult(cacheKey, output, now(), { provider: served.provider, attempts: encodeAttempts(served.attempts) }),
  ]);
  logKeys({ cache: `${paid.forward}/${stored}` });
  return {
    ...result,
    cacheStatus: cacheStatus({ forward: paid.forward, stored }),
    ageSeconds: undefined,
    provider: displayNameOf(providers, served.provider),
  };
}

const answered = (output: unknown, charged: number, remaining: number | undefined, chargeId: string | undefined) => ({
  output,
  charged,
  remaining,
  replayed: false,
  chargeId,
  ageSeconds: undefined,
});

/** A cached result keeps the provider that produced it. */
const hitOf = (hit: CacheHit, providers: readonly SocialProvider[]) => ({
  cacheStatus: cacheStatus({ hit: true }),
  ageSeconds: hit.ageSeconds,
  provider: displayNameOf(providers, hit.provider),
});

/** How pay() ends: a replay, a cached result at no cost, or a run held (charged or taken over), with a cached result to deliver or the reason it goes to the provider. */
type Paid =
  | { replay: { body: unknown; charged?: number | undefined } }
  | { free: CacheHit; balance: number }
  | { run: HeldCharge; hit: CacheHit; forward?: never }
  | { run: HeldCharge; hit?: never; forward: Forward; providers: SocialProvider[]; startedAtMs: number };

interface PayContext {
  idempotency: Idempotency | undefined;
  cacheKey: TableKey;
  deadlineMs: number;
  now: () => number;
}

/**
 * Steps 2-4: read, check access, then replay, answer from the cache, take over a dead attempt's
 * run (already paid for), or charge; re-read when the charge found a stale limit or the key
 * changed hands.
 */
async function pay(request: RunRequest, operation: OperationDefinition, providers: SocialProvider[], context: PayContext): Promise<Paid> {
  const { orgId, caller, maxAgeSeconds } = request;
  const { idempotency, now } = context;
  const { providerTimeoutMs } = socialConfig();
  const owner = idempotency?.owner ?? randomUUID();
  // A read again (a limit or the key changed under the charge) reads an API key's record afresh.
  const read = (again = false) =>
    Promise.all([
      // A hot organization's item alone: its lanes' credits are the charge's to find, not a read's.
      getOrganization(orgId, { withLanes: false }),
      membershipOfCaller(caller, orgId, again),
      idempotency ? getIdempotencyRecord(idempotency.key, now()) : Promise.resolve(null),
      maxAgeSeconds === undefined ? Promise.resolve(null) : getCachedResult(context.cacheKey, now()),
    ]);
  let [org, member, record, stored] = await read();
  let orphaned: string | undefined;
  for (let retry = 1; ; retry += 1) {
    const cache = lookUp(stored, operation, maxAgeSeconds, now());
    // A cached result is charged at the operation's cached cost, a run at its cost.
    const ask: ChargeAsk = {
      operation: operation.name,
      network: operation.network,
      cost: 'hit' in cache ? operation.cachedCost : operation.cost,
    };
    const refused = accessRefusal(org, member, ask);
    if (refused) throw refused;
    if (!org || !member) throw new Error('unreachable: accessRefusal refuses a missing organization or member');
    // The organization's networks were checked by accessRefusal: what remains is the provider.
    if (!isEnabled(operation, org.networks, () => providers.length > 0))
      throw operationNotOffered(operation.name, providerIdentity().displayName);
    const decision = idempotency ? decide(record, idempotency, now(), orphaned) : { kind: 'charge' as const };
    if (decision.kind === 'replay') return { replay: decision.replay };
    const capped = decision.kind === 'charge' ? maxCreditsRefusal(ask.cost, request.maxCredits) : null;
    if (capped) throw capped;
    if ('hit' in cache && ask.cost === 0 && decision.kind === 'charge')
      return { free: cache.hit, balance: org.lanes ? ((await getOrganization(orgId))?.credits ?? org.credits) : org.credits };
    // A consent shows the balance: a hot organization's whole balance, its lanes' included.
    const consent =
      decision.kind === 'charge' && request.consent
        ? await request.consent(ask.cost, org.lanes ? ((await getOrganization(orgId)) ?? org) : org)
        : undefined;
    const nowMs = now();
    // Going to the providers: those whose breaker is open are skipped; all open → 503, nothing charged.
    const usable = 'hit' in cache ? [] : usableProviders(operation.name, providers, nowMs);
    const chainTimeoutMs = providerTimeoutMs * Math.max(1, usable.length);
    const attempt = {
      orgId,
      userId: caller.userId,
      operation: operation.name,
      owner,
      sweepAfterMs: sweepAfterMs(runEndsByMs(chainTimeoutMs, nowMs, context.deadlineMs)),
      ...(request.requestId ? { requestId: request.requestId } : {}),
    };
    try {
      if (decision.kind === 'takeover' && idempotency) {
        const run = await takeOverRun(idempotency.key, decision.record, { ...attempt, nowMs, leaseMs: leaseMs(providerTimeoutMs) });
        // The dead attempt's charge paid for a run of the provider: that is what the retry delivers.
        return { run, forward: 'forward' in cache ? cache.forward : 'miss', providers: usable, startedAtMs: nowMs };
      }
      const replacing = decision.kind === 'charge' ? decision.replacing : undefined;
      const run = await chargeRun(
        { org, member },
        {
          ...attempt,
          ...ask,
          now: new Date(nowMs),
          retryUntilMs: chargeRetryUntilMs(context.deadlineMs),
          ...(request.job ? { job: request.job } : {}),
          ...(consent ? { consent } : {}),
          ...(idempotency
            ? { claim: { key: idempotency.key, requestHash: idempotency.requestHash, leaseMs: leaseMs(providerTimeoutMs), replacing } }
            : {}),
        },
      );
      return 'hit' in cache ? { run, hit: cache.hit } : { run, forward: cache.forward, providers: usable, startedAtMs: nowMs };
    } catch (error) {
      // A limit changed, or a concurrent request with the same key won the claim or the
      // takeover: read again and decide afresh (the second case ends in a replay or a 409).
      if (!(error instanceof StaleRead) || retry >= STALE_RETRIES) throw error;
      if (error instanceof RunOrphaned) orphaned = error.chargeId;
      [org, member, record, stored] = await read(true);
    }
  }
}

/**
 * A charge that loses to concurrent ones on a busy organization retries (lib/db/conflict-retry.ts)
 * only while the provider call would still get its whole timeout and the refund its reserve
 * after it; past that, the run fails unpaid rather than paid with too little time to deliver.
 */
const chargeRetryUntilMs = (deadlineMs: number): number => deadlineMs - socialConfig().providerTimeoutMs - REFUND_RESERVE_MS;

/**
 * The provider failed: refund the charge (releasing the key in the same transaction), then say
 * which happened. A refund that cannot be written now is left to the sweeper.
 */
async function refundAfterFailure(run: HeldCharge, failure: unknown): Promise<Error> {
  // What each provider did rides on the refund's event, for the health counters (never a write of its own).
  const attempts: Attempt[] = failure instanceof EveryProviderFailed || failure instanceof NotFoundAnswer ? failure.attempts : [];
  const error = failure instanceof EveryProviderFailed ? failure.last : failure instanceof NotFoundAnswer ? failure.error : failure;
  const notFoundUpstreamToo = failure instanceof NotFoundAnswer;
  // "Not found upstream" is the caller's answer (an account that is not public), not a failure to alert on.
  if (notFoundUpstreamToo) logger.info('not found upstream; refunding', { operation: run.operation, error: (error as Error).message });
  else logError('social operation failed upstream; refunding', error, { operation: run.operation });
  const outcome = await refundRun(run, notFoundUpstreamToo ? 'not found upstream' : 'the upstream call failed', {
    ...(attempts.length > 0 ? { metadata: { attempts: encodeAttempts(attempts) } } : {}),
  });
  // A refund still owed is named as such on the request line, next to the charge.
  logKeys(outcome === 'failed' ? { credits_refund_pending: run.cost } : { credits_refunded: run.cost });
  if (outcome === 'failed') return upstreamFailedRefundPending();
  if (outcome === 'gone') {
    // This attempt outlived its deadline and the sweeper refunded the run, or a retry with the
    // key took it over and settles it: either way nobody pays for this failure.
    logger.warn('the run to refund is no longer held by this attempt', { charge: run.eventId });
  }
  return notFoundUpstreamToo ? notFoundUpstream((error as Error).message) : upstreamFailed();
}

/**
 * How long a settle that fails may be tried again: a few seconds at most, and never into the time
 * the refund that replaces it needs before the deadline.
 */
const SETTLE_PATIENCE_MS = 5_000;
const settleUntilMs = (deadlineMs: number): number => Math.min(Date.now() + SETTLE_PATIENCE_MS, deadlineMs - REFUND_RESERVE_MS / 2);

/**
 * The run is paid for and its output in hand: settle it, and deliver only once the settle is
 * confirmed (the charge stands), alongside the balance read. A failed balance read only costs
 * the `remaining` figure, never the answer.
 */
async function deliver(
  run: HeldCharge,
  output: unknown,
  idempotency: Idempotency | undefined,
  settle: { untilMs: number; nowMs: number },
  headers: { 'Social-Provider'?: string | undefined } = {},
): Promise<Omit<RunResult, 'cacheStatus' | 'ageSeconds' | 'sampleData' | 'provider'>> {
  const [remaining] = await Promise.all([
    getOrganization(run.orgId).then(
      (after) => after?.credits,
      (error: unknown) => {
        logError('balance after a successful run could not be read; Credits-Remaining omitted', error);
        return undefined;
      },
    ),
    // The charge is kept with the stored response, for a replay to say what the first run cost.
    settleRun(
      run,
      idempotency
        ? {
            status: 200,
            headers: {
              'Credits-Charged': String(run.cost),
              ...(headers['Social-Provider'] === undefined ? {} : { 'Social-Provider': headers['Social-Provider'] }),
            },
            body: output,
          }
        : undefined,
      settle,
    ),
  ]);
  return { output, charged: run.cost, remaining, replayed: false, chargeId: run.eventId };
}
