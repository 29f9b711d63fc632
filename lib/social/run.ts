/**
 * Running one social operation, as named steps: find and validate → read → access and
 * idempotency → charge (atomically with its billing event, the run's pending record and the
 * key's claim) or take over a dead attempt's run → the provider under its deadline → settle
 * (deliver, and remove the pending record in the write that completes the key) or refund (in the
 * transaction that removes the pending record and releases the key). Plain arguments in, a plain
 * result out: the HTTP handler and the MCP tool both call it. A run that dies on the way leaves
 * its pending record, which the sweeper refunds (docs/charges.md).
 *
 * DynamoDB round trips before the provider call: (1) the organization, the membership and the
 * idempotency record, in parallel (with the caller's rate-limit counter when called over HTTP);
 * (2) the charge transaction (or the takeover transaction). After it: one, the balance read
 * alongside the settle write.
 */
import { randomUUID } from 'node:crypto';
import { chargeRun, KeyClaimed, StaleRead } from '../billing/charge.ts';
import { accessRefusal, type Payer } from '../billing/charge-rules.ts';
import { sweepAfterMs } from '../billing/sweeper.ts';
import { socialConfig } from '../config.ts';
import { mayHaveBeenWritten } from '../db/client.ts';
import { newChargeId, refundRun } from '../db/credits.ts';
import { completionItem, getIdempotencyRecord, takeOverRun } from '../db/idempotency.ts';
import { spendMonth } from '../db/keys.ts';
import { getMembership } from '../db/memberships.ts';
import { getOrganization } from '../db/organizations.ts';
import { type HeldCharge, settlePendingRun } from '../db/pending-runs.ts';
import {
  chargeUnconfirmed,
  notFoundUpstream,
  operationNotOffered,
  ServiceError,
  upstreamFailed,
  upstreamFailedRefundPending,
} from '../errors.ts';
import { logError, logger, logKeys } from '../log.ts';
import type { Caller } from '../model.ts';
import type { OperationDefinition } from './catalog/index.ts';
import { claimFor, type Decision, decide, type Idempotency, idempotencyOf, leaseMs } from './idempotency.ts';
import { findOperation, isEnabled, validateOperationInput } from './operations.ts';
import { callProvider, providerBudgetMs, REFUND_RESERVE_MS, runEndsByMs } from './provider-call.ts';
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
  const deadlineMs = request.deadlineMs ?? Number.POSITIVE_INFINITY;

  const paid = await pay(request, operation, provider, idempotency, deadlineMs, now);
  if ('replay' in paid) {
    logKeys({ credits_charged: 0, credits_refunded: 0, replayed: true });
    return { output: paid.replay.body, charged: 0, remaining: undefined, replayed: true };
  }
  logKeys({ credits_charged: paid.run.cost, credits_refunded: 0 });

  const budgetMs = providerBudgetMs(socialConfig().providerTimeoutMs, now(), deadlineMs);
  let output: unknown;
  try {
    output = await callProvider(provider, operation, input, budgetMs);
  } catch (error) {
    throw await refundAfterFailure(paid.run, error);
  }
  return settle(paid.run, output, idempotency);
}

/** One attempt at a run: who pays, who holds the run, and when the sweeper may refund it. */
interface Attempt {
  orgId: string;
  userId: string;
  operation: OperationDefinition;
  owner: string;
  nowMs: number;
  sweepAfterMs: number;
  providerTimeoutMs: number;
  /** The caller's deadline (epoch ms): a charge losing to concurrent ones retries only while the run still fits before it. */
  deadlineMs: number;
  idempotency: Idempotency | undefined;
}

/** The takeover found the claim's run gone (settled or refunded outside the protocol): charge afresh. */
class RunOrphaned extends StaleRead {
  constructor(readonly chargeId: string) {
    super(`the run of charge ${chargeId} is gone while its Idempotency-Key claim remains`);
  }
}

/**
 * Steps 2-4: read, check access, then replay, take over a dead attempt's run (already paid
 * for), or charge; re-read when the charge found a stale limit or the key changed hands.
 */
async function pay(
  request: RunRequest,
  operation: OperationDefinition,
  provider: SocialProvider,
  idempotency: Idempotency | undefined,
  deadlineMs: number,
  now: () => number,
): Promise<{ run: HeldCharge } | { replay: { body: unknown } }> {
  const { orgId, caller } = request;
  const { providerTimeoutMs } = socialConfig();
  const ask = { operation: operation.name, network: operation.network, cost: operation.cost };
  const owner = idempotency?.owner ?? randomUUID();
  const read = () =>
    Promise.all([
      getOrganization(orgId),
      getMembership(orgId, caller.userId),
      idempotency ? getIdempotencyRecord(idempotency.key, now()) : Promise.resolve(null),
    ]);
  let [org, membership, record] = await read();
  let orphaned: string | undefined;
  for (let retry = 1; ; retry += 1) {
    const refused = accessRefusal(org, membership, ask);
    if (refused) throw refused;
    // The organization's networks were checked by accessRefusal: what remains is the provider.
    if (!isEnabled(operation, org!.networks, (name) => provider.serves(name))) throw operationNotOffered(operation.name);
    const decision = idempotency ? decide(record, idempotency, now(), orphaned) : { kind: 'charge' as const };
    if (decision.kind === 'replay') return { replay: decision.replay };
    const nowMs = now();
    const sweepAfter = sweepAfterMs(runEndsByMs(providerTimeoutMs, nowMs, deadlineMs));
    const attempt: Attempt = {
      orgId,
      userId: caller.userId,
      operation,
      owner,
      nowMs,
      sweepAfterMs: sweepAfter,
      providerTimeoutMs,
      deadlineMs,
      idempotency,
    };
    try {
      if (decision.kind === 'takeover') return { run: await takeOver(attempt, decision.record) };
      return { run: await chargeAnew(attempt, { org: org!, member: membership! }, decision.replacing) };
    } catch (error) {
      // A limit changed, or a concurrent request with the same key won the claim or the
      // takeover: read again and decide afresh (the second case ends in a replay or a 409).
      if (!(error instanceof StaleRead) || retry >= STALE_RETRIES) throw error;
      if (error instanceof RunOrphaned) orphaned = error.chargeId;
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

/** Charges the run, recording it pending and (with a key) claiming the key, in one transaction. */
async function chargeAnew(attempt: Attempt, payer: Payer, replacing: string | undefined): Promise<HeldCharge> {
  const { operation, idempotency, nowMs } = attempt;
  const chargeId = newChargeId();
  const claimed = { id: chargeId, cost: operation.cost, month: spendMonth(new Date(nowMs)) };
  const claim = idempotency ? claimFor(idempotency, nowMs, attempt.providerTimeoutMs, claimed, replacing) : undefined;
  const charged = chargeRun(payer, {
    operation: operation.name,
    network: operation.network,
    cost: operation.cost,
    orgId: attempt.orgId,
    userId: attempt.userId,
    now: new Date(nowMs),
    retryUntilMs: chargeRetryUntilMs(attempt.deadlineMs),
    run: {
      chargeId,
      owner: attempt.owner,
      sweepAfterMs: attempt.sweepAfterMs,
      ...(idempotency ? { idempotencyKey: idempotency.key } : {}),
    },
    ...(claim ? { claim } : {}),
  });
  return charged.catch(async (error: unknown) => {
    if (error instanceof ServiceError || error instanceof StaleRead || !mayHaveBeenWritten(error)) throw error;
    throw await undoUnconfirmedCharge(heldBy(attempt, claimed), error);
  });
}

/**
 * The charge's write failed without saying whether it was made (DynamoDB's 500, a timeout):
 * undo it at once, so that the error may invite a retry without the client paying twice until
 * the sweeper runs. The undo is the refund, conditional on the run's pending record: it writes
 * nothing if the charge was not made. If the undo fails too, the run is left to the sweeper and
 * the answer says not to retry yet.
 */
async function undoUnconfirmedCharge(run: HeldCharge, error: unknown): Promise<unknown> {
  const outcome = await refundRun(run, 'the charge could not be confirmed');
  if (outcome === 'refunded') logKeys({ credits_refunded: run.cost });
  if (outcome !== 'failed') return error;
  logError('charge not confirmed and not undone; the sweeper will refund it if it was made', error, { charge: run.eventId });
  logKeys({ credits_refund_pending: run.cost });
  return chargeUnconfirmed();
}

/** Takes the claim and the pending run of an attempt that died mid-call: its charge pays for this one. */
async function takeOver(attempt: Attempt, record: Extract<Decision, { kind: 'takeover' }>['record']): Promise<HeldCharge> {
  const key = attempt.idempotency!.key;
  const { charge } = record;
  const outcome = await takeOverRun(key, record, {
    orgId: attempt.orgId,
    owner: attempt.owner,
    nowMs: attempt.nowMs,
    leaseMs: leaseMs(attempt.providerTimeoutMs),
    sweepAfterMs: attempt.sweepAfterMs,
  });
  if (outcome === 'orphaned') throw new RunOrphaned(charge.id);
  if (outcome === 'lost') throw new KeyClaimed('the Idempotency-Key was taken over concurrently');
  logger.info('took over the run of an attempt that died mid-call', { charge: charge.id });
  return heldBy(attempt, charge);
}

/** The run `attempt` holds once `charge` is written for it (with its key, if it has one). */
const heldBy = (attempt: Attempt, charge: { id: string; cost: number; month: string }): HeldCharge => ({
  orgId: attempt.orgId,
  userId: attempt.userId,
  operation: attempt.operation.name,
  cost: charge.cost,
  month: charge.month,
  eventId: charge.id,
  owner: attempt.owner,
  ...(attempt.idempotency ? { idempotencyKey: attempt.idempotency.key } : {}),
});

/**
 * The provider failed: refund the charge (releasing the key in the same transaction), then say
 * which happened. A refund that cannot be written now is left to the sweeper.
 */
async function refundAfterFailure(run: HeldCharge, error: unknown): Promise<Error> {
  const notFoundUpstreamToo = error instanceof UpstreamNotFoundError;
  logError('social operation failed upstream; refunding', error, { operation: run.operation });
  const outcome = await refundRun(run, notFoundUpstreamToo ? 'not found upstream' : 'the upstream call failed');
  // A refund still owed is named as such on the request line, next to the charge.
  logKeys(outcome === 'failed' ? { credits_refund_pending: run.cost } : { credits_refunded: run.cost });
  if (outcome === 'failed') return upstreamFailedRefundPending();
  if (outcome === 'gone') {
    // This attempt outlived its deadline and the sweeper refunded the run, or a retry with the
    // key took it over and settles it: either way nobody pays for this failure.
    logger.warn('the run to refund is no longer held by this attempt', { charge: run.eventId });
  }
  return notFoundUpstreamToo ? notFoundUpstream(error.message) : upstreamFailed();
}

/**
 * The run is paid for and its output in hand: settle it (one write, alongside the balance read)
 * and deliver. A failed balance read only costs the `remaining` figure, never the answer (an
 * error here would make the client pay again).
 */
async function settle(run: HeldCharge, output: unknown, idempotency: Idempotency | undefined): Promise<RunResult> {
  const [remaining] = await Promise.all([
    getOrganization(run.orgId).then(
      (after) => after?.credits,
      (error: unknown) => {
        logError('balance after a successful run could not be read; Credits-Remaining omitted', error);
        return undefined;
      },
    ),
    settlePendingRun(run, idempotency ? completionItem(idempotency.key, run.owner, { status: 200, headers: {}, body: output }) : undefined),
  ]);
  return { output, charged: run.cost, remaining, replayed: false };
}
