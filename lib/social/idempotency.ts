/**
 * The Idempotency-Key protocol of a run (docs/social-operations.md): the key is claimed inside
 * the charge transaction, completed with the result, released on a refund. This module holds
 * the decisions; lib/db/idempotency.ts the records.
 */
import { randomUUID } from 'node:crypto';
import { canonicalHash, claimItem, type IdempotencyRecord, recordKey } from '../db/idempotency.ts';
import type { TableKey } from '../db/table.ts';
import { idempotencyKeyInProgress, idempotencyKeyReused, idempotencyResponseTooLarge } from '../errors.ts';

export interface Idempotency {
  key: TableKey;
  requestHash: string;
  /** This attempt's id: only the claim's owner may complete or release it. */
  owner: string;
}

export const idempotencyOf = (orgId: string, userId: string, key: string, operation: string, input: unknown): Idempotency => ({
  key: recordKey(orgId, userId, key),
  requestHash: canonicalHash({ operation, input }),
  owner: randomUUID(),
});

/** A replayed answer: the first run's stored response. */
export interface Replay {
  status: number;
  body: unknown;
}

/**
 * What an existing record means for this request (pure): nothing (go on and charge), a replay
 * of the first response, or a 409.
 */
export function answerFromRecord(record: IdempotencyRecord | null, idempotency: Idempotency, nowMs: number): Replay | null {
  if (!record) return null;
  if (record.requestHash !== idempotency.requestHash) throw idempotencyKeyReused();
  if (record.state === 'in_progress') {
    // A run whose lease has run out died mid-call: the claim lets this request take over.
    if (record.leaseUntilMs < nowMs) return null;
    throw idempotencyKeyInProgress();
  }
  if (!record.response) throw idempotencyResponseTooLarge();
  return { status: record.response.status, body: record.response.body };
}

/** The claim item that joins the charge transaction; its lease outlives the provider call. */
export const claimFor = (idempotency: Idempotency, nowMs: number, providerTimeoutMs: number) =>
  claimItem(idempotency.key, {
    requestHash: idempotency.requestHash,
    owner: idempotency.owner,
    nowMs,
    leaseMs: providerTimeoutMs + 30_000,
  });
