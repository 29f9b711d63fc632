/**
 * Running one social operation: validate, check membership and network, charge (atomically
 * with its billing event and the Idempotency-Key claim), call the provider under a timeout,
 * validate its output, and refund the charge if anything upstream went wrong.
 *
 * DynamoDB round trips before the provider call: (1) the rate-limit counter, the organization,
 * the membership and the idempotency record, in parallel; (2) the charge transaction.
 */
import { randomUUID } from 'node:crypto';
import { socialConfig } from '../config.ts';
import {
  type Charge,
  type ChargeBasis,
  chargeOperation,
  mayNotRun,
  notAMember,
  operationNotEnabled,
  refundCharge,
  StaleLimitError,
} from '../db/credits.ts';
import {
  canonicalHash,
  claimItem,
  completeIdempotencyRecord,
  getIdempotencyRecord,
  type IdempotencyRecord,
  recordKey,
  releaseIdempotencyRecord,
} from '../db/idempotency.ts';
import { getMembership, type Membership } from '../db/memberships.ts';
import { getOrganization, type Organization } from '../db/organizations.ts';
import type { TableKey } from '../db/table.ts';
import { ApiError, conflict, notFound, validationFailed } from '../errors.ts';
import { Reply } from '../http/endpoint.ts';
import { alongsideRateLimit } from '../http/rate-limit.ts';
import type { ServiceContext } from '../http/types.ts';
import { toIssues } from '../http/validate.ts';
import { logError } from '../log.ts';
import { recordUpstreamFailure, recordUpstreamLatency } from '../observability/metrics.ts';
import { CATALOG, type OperationDefinition } from './catalog/index.ts';
import { socialProvider } from './providers/index.ts';
import { type SocialProvider, UpstreamError, UpstreamNotFoundError } from './providers/types.ts';

export const HEADERS = {
  charged: 'Credits-Charged',
  remaining: 'Credits-Remaining',
  replayed: 'Idempotent-Replayed',
} as const;

/** Re-reads after a spending limit changed under a charge; more would mean limits flapping. */
const STALE_RETRIES = 3;

export const upstreamFailed = () =>
  new ApiError(500, 'upstream_failed', 'the social data provider failed; the charge was refunded, retry with backoff');
/** The refund write failed too (logged as REFUND FAILED for an operator): say so rather than claim it. */
const upstreamFailedRefundPending = () =>
  new ApiError(
    500,
    'upstream_failed',
    'the social data provider failed; the refund of its charge is delayed, do not retry before your balance is back',
  );

/**
 * Time kept back from the provider call for the refund when the function itself is about to
 * time out: middy answers just before Lambda's deadline and the frozen instance would never
 * write a refund that was still pending, so the charge would be lost.
 */
export const REFUND_RESERVE_MS = 3_000;

const keyReused = () => conflict('idempotency_key_reused', 'this Idempotency-Key was used with another operation or body');
const keyInProgress = () =>
  new ApiError(409, 'idempotency_key_reused', 'a request with this Idempotency-Key is still in progress; retry shortly', {
    headers: { 'Retry-After': '1' },
  });
const tooLargeToReplay = () =>
  conflict('idempotency_key_reused', 'the response to this Idempotency-Key was too large to store for replay; use a new key');

/** Whether a provider may run this operation for this organization (listing and running agree). */
export const isEnabled = (operation: OperationDefinition, networks: readonly string[], provider: SocialProvider) =>
  (operation.network === undefined || networks.includes(operation.network)) && provider.serves(operation.name);

export function findOperation(name: string): OperationDefinition {
  const operation = CATALOG.get(name);
  if (!operation) throw notFound();
  return operation;
}

export function validateOperationInput(operation: OperationDefinition, body: unknown): Record<string, unknown> {
  const parsed = operation.input.safeParse(body);
  if (!parsed.success) throw validationFailed(toIssues('body', parsed.error, body));
  return parsed.data as Record<string, unknown>;
}

interface Idempotency {
  key: TableKey;
  requestHash: string;
  owner: string;
}

/** What an existing record means for this request: nothing (go on) or an answer. */
function answerFromRecord(record: IdempotencyRecord | null, idempotency: Idempotency, nowMs: number): Reply | null {
  if (!record) return null;
  if (record.requestHash !== idempotency.requestHash) throw keyReused();
  if (record.state === 'in_progress') {
    // A run whose lease has run out died mid-call: the claim lets this request take over.
    if (record.leaseUntilMs < nowMs) return null;
    throw keyInProgress();
  }
  if (!record.response) throw tooLargeToReplay();
  return new Reply(
    record.response.body,
    { ...record.response.headers, [HEADERS.charged]: '0', [HEADERS.replayed]: 'true' },
    record.response.status,
  );
}

function checkAccess(operation: OperationDefinition, org: Organization | null, membership: Membership | null, provider: SocialProvider) {
  if (!org || !membership) throw notAMember();
  if (membership.role !== 'editor' && membership.role !== 'owner') throw mayNotRun();
  if (!isEnabled(operation, org.networks, provider)) throw operationNotEnabled(operation.name);
}

const basisOf = (org: Organization, membership: Membership): ChargeBasis => ({
  credits: org.credits,
  orgLimit: org.spending_limit,
  memberLimit: membership.spending_limit,
});

async function callProvider(
  provider: SocialProvider,
  operation: OperationDefinition,
  input: Record<string, unknown>,
  remainingMs: number,
): Promise<unknown> {
  const timeoutMs = Math.max(0, Math.min(socialConfig().providerTimeoutMs, remainingMs - REFUND_RESERVE_MS));
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new UpstreamError(`the provider did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const startedAt = performance.now();
  try {
    // The race also bounds a provider that ignores the abort signal.
    const output = await Promise.race([provider.run({ operation, input, signal: controller.signal }), timeout]).finally(() =>
      recordUpstreamLatency(performance.now() - startedAt),
    );
    const parsed = operation.output.safeParse(output);
    if (!parsed.success) {
      throw new UpstreamError(`the provider's output breaks the output schema: ${JSON.stringify(parsed.error.issues.slice(0, 3))}`);
    }
    return parsed.data;
  } catch (error) {
    // "Not found upstream" is an answer (the account is not public), not a failing provider.
    if (!(error instanceof UpstreamNotFoundError)) recordUpstreamFailure();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export interface RunRequest {
  context: ServiceContext;
  orgId: string;
  operationName: string;
  body: unknown;
  idempotencyKey: string | undefined;
}

export async function runSocialOperation({ context, orgId, operationName, body, idempotencyKey }: RunRequest): Promise<Reply> {
  const userId = context.caller.userId;
  const operation = findOperation(operationName);
  const input = validateOperationInput(operation, body);
  const provider = socialProvider();
  const nowMs = Date.now();
  const idempotency: Idempotency | undefined = idempotencyKey
    ? {
        key: recordKey(orgId, userId, idempotencyKey),
        requestHash: canonicalHash({ operation: operation.name, input }),
        owner: randomUUID(),
      }
    : undefined;

  const read = () =>
    Promise.all([
      getOrganization(orgId),
      getMembership(orgId, userId),
      idempotency ? getIdempotencyRecord(idempotency.key, nowMs) : Promise.resolve(null),
    ]);
  let [org, membership, record] = await alongsideRateLimit(context, read());

  let charge: Charge | undefined;
  for (let attempt = 1; !charge; attempt += 1) {
    checkAccess(operation, org, membership, provider);
    if (idempotency) {
      const replay = answerFromRecord(record, idempotency, Date.now());
      if (replay) return replay;
    }
    try {
      charge = await chargeOperation({
        orgId,
        userId,
        operation: operation.name,
        network: operation.network,
        cost: operation.cost,
        basis: basisOf(org!, membership!),
        ...(idempotency
          ? {
              claim: {
                item: claimItem(idempotency.key, {
                  requestHash: idempotency.requestHash,
                  owner: idempotency.owner,
                  nowMs: Date.now(),
                  leaseMs: socialConfig().providerTimeoutMs + 30_000,
                }),
                onConflict: () => new StaleLimitError('idempotency key claimed concurrently'),
              },
            }
          : {}),
      });
    } catch (error) {
      // A limit changed, or a concurrent request with the same key won the claim: read again
      // and decide afresh (the second case ends in a replay or a 409).
      if (!(error instanceof StaleLimitError) || attempt >= STALE_RETRIES) throw error;
      [org, membership, record] = await read();
    }
  }

  let output: unknown;
  try {
    output = await callProvider(provider, operation, input, context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY);
  } catch (error) {
    const reason = error instanceof UpstreamNotFoundError ? 'not found upstream' : 'the upstream call failed';
    logError('social operation failed upstream; refunding', error, { operation: operation.name, request_id: context.requestId });
    const [refunded] = await Promise.all([
      refundCharge(charge, reason),
      idempotency ? releaseIdempotencyRecord(idempotency.key, idempotency.owner) : Promise.resolve(),
    ]);
    if (!refunded) throw upstreamFailedRefundPending();
    if (error instanceof UpstreamNotFoundError) throw new ApiError(404, 'not_found', error.message);
    throw upstreamFailed();
  }

  // The run is paid for and its output in hand: a failed balance read only costs the header,
  // never the answer (a 500 here would make the client pay again for the same data).
  const [remaining] = await Promise.all([
    getOrganization(orgId).then(
      (after) => (after ? String(after.credits) : undefined),
      (error: unknown) => {
        logError('balance after a successful run could not be read; Credits-Remaining omitted', error, { request_id: context.requestId });
        return undefined;
      },
    ),
    idempotency
      ? completeIdempotencyRecord(idempotency.key, idempotency.owner, { status: 200, headers: {}, body: output })
      : Promise.resolve(),
  ]);
  return new Reply(output, {
    [HEADERS.charged]: String(charge.cost),
    ...(remaining === undefined ? {} : { [HEADERS.remaining]: remaining }),
  });
}
