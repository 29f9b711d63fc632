/**
 * The Idempotency-Key protocol of a run (docs/social-operations.md): the key is claimed inside
 * the charge transaction, completed with the result, released on a refund, taken over (with
 * its charge) by a retry when the attempt holding it died. This module holds
 * the decisions; lib/db/idempotency.ts the records.
 */
import { randomUUID } from 'node:crypto';
import {
  type ClaimedCharge,
  canonicalHash,
  claimItem,
  type IdempotencyRecord,
  type InProgressRecord,
  recordKey,
} from '../db/idempotency.ts';
import type { TableKey } from '../db/table.ts';
import { idempotencyKeyInProgress, idempotencyKeyReused, idempotencyResponseTooLarge } from '../errors.ts';

export interface Idempotency {
  key: TableKey;
  requestHash: string;
  /** This attempt's id: only the claim's owner may complete or release it. */
  owner: string;
}

/**
 * `fields` (canonical: trimmed paths, comma-joined) joins the identity only when given, so that a
 * request without it hashes as it did before `fields` existed (keys in flight across a deploy).
 */
export const idempotencyOf = (
  orgId: string,
  userId: string,
  key: string,
  operation: string,
  input: unknown,
  fields?: string,
): Idempotency => ({
  key: recordKey(orgId, userId, key),
  requestHash: canonicalHash(fields === undefined ? { operation, input } : { operation, input, fields }),
  owner: randomUUID(),
});

/** A replayed answer: the first run's stored response. */
export interface Replay {
  status: number;
  body: unknown;
  /** What the first run was charged, when its stored response says (responses stored since jobs). */
  charged?: number | undefined;
}

/** What an existing record means for this request. */
export type Decision =
  | { kind: 'charge'; replacing?: string }
  | { kind: 'replay'; replay: Replay }
  | { kind: 'takeover'; record: InProgressRecord & { charge: ClaimedCharge } };

/**
 * What an existing record means for this request (pure): charge (no record, or one no charge of
 * which can be standing), replay the first response, take over a run whose attempt died
 * mid-call (its lease ran out), or a 409. `orphaned`: the charge of a claim that takeOverRun
 * found without its run; that claim is replaced by a new charge.
 */
export function decide(record: IdempotencyRecord | null, idempotency: Idempotency, nowMs: number, orphaned?: string): Decision {
  if (!record) return { kind: 'charge' };
  if (record.requestHash !== idempotency.requestHash) throw idempotencyKeyReused();
  if (record.state === 'in_progress') {
    if (record.leaseUntilMs >= nowMs) throw idempotencyKeyInProgress();
    if (!record.charge) return { kind: 'charge' };
    if (record.charge.id === orphaned) return { kind: 'charge', replacing: orphaned };
    return { kind: 'takeover', record: { ...record, charge: record.charge } };
  }
  if (!record.response) throw idempotencyResponseTooLarge();
  const charged = record.response.headers['Credits-Charged'];
  return {
    kind: 'replay',
    replay: { status: record.response.status, body: record.response.body, ...(charged === undefined ? {} : { charged: Number(charged) }) },
  };
}

/** How long a claim protects its run from a takeover: past the longest a run can live. */
export const leaseMs = (providerTimeoutMs: number): number => providerTimeoutMs + 30_000;

/** The claim item that joins the charge transaction and names the charge. */
export const claimFor = (idempotency: Idempotency, nowMs: number, providerTimeoutMs: number, charge: ClaimedCharge, replacing?: string) =>
  claimItem(idempotency.key, {
    requestHash: idempotency.requestHash,
    owner: idempotency.owner,
    nowMs,
    leaseMs: leaseMs(providerTimeoutMs),
    charge,
    ...(replacing === undefined ? {} : { replacing }),
  });
