/**
 * Idempotency-Key records of `POST /social/{operation}`. A record is claimed "in progress" inside
 * the charge transaction (so a key is claimed if and only if the run was charged) and names that
 * charge; it is completed with the response in the transaction that settles the run, and
 * released in the transaction that refunds it. A retry that finds the claim's lease run out (its
 * Lambda died mid-call) takes the claim and the pending run over instead of charging again: one
 * key, at most one charge standing. Records live 24 hours (TTL on `expires_at`, also checked on
 * read since TTL deletion lags).
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, type TransactItem, tableName } from './client.ts';
import { idempotencyRecordKey } from './keys.ts';
import type { TableKey } from './table.ts';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** Bodies above this are stored gzip-compressed; DynamoDB items stop at 400 KB. */
const INLINE_BODY_BYTES = 64 * 1024;
const MAX_STORED_BYTES = 350 * 1024;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The charge a claim was taken with (absent on records written before charges were tracked). */
export interface ClaimedCharge {
  id: string;
  cost: number;
  month: string;
  /** The UTC day the charge counts in (absent on claims written before daily limits). */
  day?: string | undefined;
  /** The capped job whose budget the charge counted in (a job's item with `max_credits`). */
  job?: string | undefined;
}

export type InProgressRecord = {
  state: 'in_progress';
  requestHash: string;
  owner: string;
  leaseUntilMs: number;
  charge: ClaimedCharge | undefined;
};

export type IdempotencyRecord = InProgressRecord | { state: 'completed'; requestHash: string; response: StoredResponse | null };

/** SHA-256 of JSON with object keys sorted at every level: key order does not change a request. */
export function canonicalHash(value: unknown): string {
  const canonical = (input: unknown): unknown => {
    if (Array.isArray(input)) return input.map(canonical);
    if (input !== null && typeof input === 'object') {
      return Object.fromEntries(
        Object.keys(input)
          .sort()
          .map((key) => [key, canonical((input as Record<string, unknown>)[key])]),
      );
    }
    return input;
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(value)))
    .digest('hex');
}

export const recordKey = (orgId: string, userId: string, idempotencyKey: string): TableKey =>
  idempotencyRecordKey(orgId, userId, createHash('sha256').update(idempotencyKey).digest('hex'));

export async function getIdempotencyRecord(key: TableKey, now = Date.now()): Promise<IdempotencyRecord | null> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  if (!item || Number(item.expires_at) <= Math.floor(now / 1000)) return null;
  if (item.state === 'in_progress') {
    const charge = item.charge
      ? {
          id: String(item.charge.id),
          cost: Number(item.charge.cost),
          month: String(item.charge.month),
          ...(item.charge.day === undefined ? {} : { day: String(item.charge.day) }),
          ...(item.charge.job === undefined ? {} : { job: String(item.charge.job) }),
        }
      : undefined;
    return { state: 'in_progress', requestHash: item.request_hash, owner: item.owner, leaseUntilMs: Number(item.lease_until_ms), charge };
  }
  let response: StoredResponse | null = null;
  if (item.response_gzip) response = JSON.parse(gunzipSync(item.response_gzip as Uint8Array).toString('utf8'));
  else if (item.response) response = JSON.parse(item.response as string);
  return { state: 'completed', requestHash: item.request_hash, response };
}

/**
 * The transaction item that claims a key for one run and names its charge. It succeeds when the
 * key is free or has expired; otherwise the charge is cancelled and nothing is spent. An
 * in-progress claim whose lease ran out is taken over (lib/billing/paid-run.ts), never by a new charge,
 * with two exceptions where no charge of it can be standing: a claim written before claims named
 * their charge, and the claim whose charge a takeover found settled or refunded (`replacing`).
 */
export function claimItem(
  key: TableKey,
  input: { requestHash: string; owner: string; nowMs: number; leaseMs: number; charge: ClaimedCharge; replacing?: string },
): TransactItem {
  const orphan = input.replacing === undefined ? '' : ' OR #charge.id = :replacing';
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...key,
        entity: 'idempotency_record',
        state: 'in_progress',
        request_hash: input.requestHash,
        owner: input.owner,
        lease_until_ms: input.nowMs + input.leaseMs,
        charge: input.charge,
        expires_at: Math.floor(input.nowMs / 1000) + IDEMPOTENCY_TTL_SECONDS,
      },
      ConditionExpression: `attribute_not_exists(PK) OR expires_at <= :now OR (#state = :inProgress AND lease_until_ms < :nowMs AND request_hash = :hash AND (attribute_not_exists(#charge)${orphan}))`,
      ExpressionAttributeNames: { '#state': 'state', '#charge': 'charge' },
      ExpressionAttributeValues: {
        ':now': Math.floor(input.nowMs / 1000),
        ':nowMs': input.nowMs,
        ':inProgress': 'in_progress',
        ':hash': input.requestHash,
        ...(input.replacing === undefined ? {} : { ':replacing': input.replacing }),
      },
    },
  };
}

/**
 * The item that hands an in-progress claim whose lease ran out to a new attempt (`to`, with a new
 * lease), only while it is still held by the dead attempt that was read (`record.owner`). It
 * joins the transaction that moves the claim's pending run too (lib/billing/paid-run.ts).
 */
export function takeoverItem(key: TableKey, record: InProgressRecord, to: { owner: string; nowMs: number; leaseMs: number }): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #owner = :to, lease_until_ms = :lease',
      ConditionExpression:
        '#state = :inProgress AND #owner = :from AND lease_until_ms < :nowMs AND request_hash = :hash AND expires_at > :now',
      ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
      ExpressionAttributeValues: {
        ':inProgress': 'in_progress',
        ':from': record.owner,
        ':to': to.owner,
        ':lease': to.nowMs + to.leaseMs,
        ':nowMs': to.nowMs,
        ':now': Math.floor(to.nowMs / 1000),
        ':hash': record.requestHash,
      },
    },
  };
}

/** The item that stores the response of a completed run (only by the attempt that holds the claim). */
export function completionItem(key: TableKey, owner: string, response: StoredResponse): TransactItem {
  const json = JSON.stringify(response);
  const values: Record<string, unknown> = { ':done': 'completed', ':owner': owner };
  let set = '#state = :done';
  if (Buffer.byteLength(json) <= INLINE_BODY_BYTES) {
    values[':response'] = json;
    set += ', #response = :response';
  } else {
    const gzipped = gzipSync(json);
    if (gzipped.byteLength <= MAX_STORED_BYTES) {
      values[':gzip'] = gzipped;
      set += ', #gzip = :gzip';
    }
    // Larger still: the record completes without a response, and a retry is told so (409).
  }
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: `SET ${set} REMOVE #lease`,
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeNames: {
        '#state': 'state',
        '#owner': 'owner',
        '#lease': 'lease_until_ms',
        ...(values[':response'] ? { '#response': 'response' } : {}),
        ...(values[':gzip'] ? { '#gzip': 'response_gzip' } : {}),
      },
      ExpressionAttributeValues: values,
    },
  };
}

/** The item that frees the key of a refunded run (only the attempt that holds the claim), so that a retry runs again. */
export function releaseItem(key: TableKey, owner: string): TransactItem {
  return {
    Delete: {
      TableName: tableName(),
      Key: key,
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':owner': owner },
    },
  };
}
