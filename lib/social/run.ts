/**
 * Running one social operation, as named steps: find and validate → read → access and
 * idempotency → charge (atomically with its billing event and the key's claim) → the provider
 * under its deadline → settle (deliver and complete the key) or refund (and release the key).
 * Plain arguments in, a plain result out: the HTTP handler and the MCP tool both call it.
 *
 * DynamoDB round trips before the provider call: (1) the organization, the membership and the
 * idempotency record, in parallel (with the caller's rate-limit counter when called over HTTP);
 * (2) the charge transaction.
 */
import { type Charge, chargeRun, StaleRead } from '../billing/charge.ts';
import { accessRefusal, type Payer } from '../billing/charge-rules.ts';
import { socialConfig } from '../config.ts';
import { refundCharge } from '../db/credits.ts';
import { completeIdempotencyRecord, getIdempotencyRecord, releaseIdempotencyRecord } from '../db/idempotency.ts';
import { getMembership } from '../db/memberships.ts';
import { getOrganization } from '../db/organizations.ts';
import { notFoundUpstream, operationNotOffered, upstreamFailed, upstreamFailedRefundPending } from '../errors.ts';
import { logError, logKeys } from '../log.ts';
import type { Caller } from '../model.ts';
import type { OperationDefinition } from './catalog/index.ts';
import { answerFromRecord, claimFor, type Idempotency, idempotencyOf } from './idempotency.ts';
import { findOperation, isEnabled, validateOperationInput } from './operations.ts';
import { callProvider, providerBudgetMs, REFUND_RESERVE_MS } from './provider-call.ts';
import { socialProvider } from './providers/index.ts';
import { type SocialProvider, UpstreamNotFoundError } from './providers/types.ts';

/** Re-reads after a spending limit changed under a charge; more would mean limits flapping. */
const STALE_RETRIES = 3;

export interface RunRequest {
  caller: Caller;
  orgId: string;
  operationName: string;
  /** The operation input as sent (validated here against the operation's schema). */
  input: unknown;
  idempotencyKey?: string | undefined;
  /** Epoch ms by which the run must have answered (the function's own deadline); none by default. */
  deadlineMs?: number;
  /** The clock (epoch ms); tests pass their own. */
  now?: () => number;
}

export interface RunResult {
  output: unknown;
  /** Credits charged by this request: 0 for a replay. */
  charged: number;
  /** The balance after the run, when it could be read. */
  remaining: number | undefined;
  /** The answer replays the first response to this Idempotency-Key. */
  replayed: boolean;
}

export async function runSocialOperation(request: RunRequest): Promise<RunResult> {
  const now = request.now ?? Date.now;
  const operation = findOperation(request.operationName);
  logKeys({ operation: operation.name });
  const input = validateOperationInput(operation, request.input);
  const provider = socialProvider();
  const idempotency = request.idempotencyKey
    ? idempotencyOf(request.orgId, request.caller.userId, request.idempotencyKey, operation.name, input)
    : undefined;

  const charged = await charge(request, operation, provider, idempotency, now);
  if ('replay' in charged) {
    logKeys({ credits_charged: 0, credits_refunded: 0, replayed: true });
    return { output: charged.replay.body, charged: 0, remaining: undefined, replayed: true };
  }
  logKeys({ credits_charged: charged.charge.cost, credits_refunded: 0 });

  const budgetMs = providerBudgetMs(socialConfig().providerTimeoutMs, now(), request.deadlineMs ?? Number.POSITIVE_INFINITY);
  let output: unknown;
  try {
    output = await callProvider(provider, operation, input, budgetMs);
  } catch (error) {
    throw await refundAfterFailure(charged.charge, error, idempotency);
  }
  return settle(charged.charge, output, idempotency);
}

/** Steps 2-4: read, check access, replay or charge; re-read when the charge found a stale limit. */
async function charge(
  request: RunRequest,
  operation: OperationDefinition,
  provider: SocialProvider,
  idempotency: Idempotency | undefined,
  now: () => number,
): Promise<{ charge: Charge } | { replay: { body: unknown } }> {
  const { orgId, caller } = request;
  const ask = { operation: operation.name, network: operation.network, cost: operation.cost };
  const read = () =>
    Promise.all([
      getOrganization(orgId),
      getMembership(orgId, caller.userId),
      idempotency ? getIdempotencyRecord(idempotency.key, now()) : Promise.resolve(null),
    ]);
  let [org, membership, record] = await read();
  for (let attempt = 1; ; attempt += 1) {
    const refused = accessRefusal(org, membership, ask);
    if (refused) throw refused;
    // The organization's networks were checked by accessRefusal: what remains is the provider.
    if (!isEnabled(operation, org!.networks, (name) => provider.serves(name))) throw operationNotOffered(operation.name);
    const replay = idempotency ? answerFromRecord(record, idempotency, now()) : null;
    if (replay) return { replay };
    const payer: Payer = { org: org!, member: membership! };
    try {
      const claim = idempotency ? claimFor(idempotency, now(), socialConfig().providerTimeoutMs) : undefined;
      return {
        charge: await chargeRun(payer, {
          ...ask,
          orgId,
          userId: caller.userId,
          now: new Date(now()),
          retryUntilMs: chargeRetryUntilMs(request.deadlineMs),
          ...(claim ? { claim } : {}),
        }),
      };
    } catch (error) {
      // A limit changed, or a concurrent request with the same key won the claim: read again
      // and decide afresh (the second case ends in a replay or a 409).
      if (!(error instanceof StaleRead) || attempt >= STALE_RETRIES) throw error;
      [org, membership, record] = await read();
    }
  }
}

/**
 * A charge that loses to concurrent ones on a busy organization retries (lib/db/conflict-retry.ts)
 * only while the provider call would still get its whole timeout and the refund its reserve
 * after it; past that, the run fails unpaid rather than paid with too little time to deliver.
 */
const chargeRetryUntilMs = (deadlineMs: number | undefined): number =>
  (deadlineMs ?? Number.POSITIVE_INFINITY) - socialConfig().providerTimeoutMs - REFUND_RESERVE_MS;

/** The provider failed: refund the charge and release the key, then say which happened. */
async function refundAfterFailure(charge: Charge, error: unknown, idempotency: Idempotency | undefined): Promise<Error> {
  const notFoundUpstreamToo = error instanceof UpstreamNotFoundError;
  logError('social operation failed upstream; refunding', error, { operation: charge.operation });
  const [refunded] = await Promise.all([
    refundCharge(charge, notFoundUpstreamToo ? 'not found upstream' : 'the upstream call failed'),
    idempotency ? releaseIdempotencyRecord(idempotency.key, idempotency.owner) : Promise.resolve(),
  ]);
  // A refund still owed is named as such on the request line, next to the charge.
  logKeys(refunded ? { credits_refunded: charge.cost } : { credits_refund_pending: charge.cost });
  if (!refunded) return upstreamFailedRefundPending();
  return notFoundUpstreamToo ? notFoundUpstream(error.message) : upstreamFailed();
}

/**
 * The run is paid for and its output in hand: deliver it. A failed balance read only costs the
 * `remaining` figure, never the answer (an error here would make the client pay again).
 */
async function settle(charge: Charge, output: unknown, idempotency: Idempotency | undefined): Promise<RunResult> {
  const [remaining] = await Promise.all([
    getOrganization(charge.orgId).then(
      (after) => after?.credits,
      (error: unknown) => {
        logError('balance after a successful run could not be read; Credits-Remaining omitted', error);
        return undefined;
      },
    ),
    idempotency
      ? completeIdempotencyRecord(idempotency.key, idempotency.owner, { status: 200, headers: {}, body: output })
      : Promise.resolve(),
  ]);
  return { output, charged: charge.cost, remaining, replayed: false };
}
