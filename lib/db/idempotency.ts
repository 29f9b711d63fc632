/**
 * Idempotency-Key records of `POST /social/{operation}`. A record is claimed "in progress" inside
 * the charge transaction (so a key is claimed if and only if the run was charged), completed
 * with the response once the run succeeds, and released if the run is refunded. Records live
 * 24 hours (TTL on `expires_at`, also checked on read since TTL deletion lags).
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { logError } from '../log.ts';
import { db, tableName } from './client.ts';
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

export type IdempotencyRecord =
  | { state: 'in_progress'; requestHash: string; owner: string; leaseUntilMs: number }
  | { state: 'completed'; requestHash: string; response: StoredResponse | null };

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
    return { state: 'in_progress', requestHash: item.request_hash, owner: item.owner, leaseUntilMs: Number(item.lease_until_ms) };
  }
  let response: StoredResponse | null = null;
  if (item.response_gzip) response = JSON.parse(gunzipSync(item.response_gzip as Uint8Array).toString('utf8'));
  else if (item.response) response = JSON.parse(item.response as string);
  return { state: 'completed', requestHash: item.request_hash, response };
}

/**
 * The transaction item that claims a key for one run. It succeeds when the key is free, has
 * expired, or is held by an in-progress run of the same request whose lease has run out (its
 * Lambda died mid-call); otherwise the charge is cancelled and nothing is spent.
 */
export function claimItem(key: TableKey, input: { requestHash: string; owner: string; nowMs: number; leaseMs: number }) {
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
        expires_at: Math.floor(input.nowMs / 1000) + IDEMPOTENCY_TTL_SECONDS,
      },
      ConditionExpression:
        'attribute_not_exists(PK) OR expires_at <= :now OR (#state = :inProgress AND lease_until_ms < :nowMs AND request_hash = :hash)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':now': Math.floor(input.nowMs / 1000),
        ':nowMs': input.nowMs,
        ':inProgress': 'in_progress',
        ':hash': input.requestHash,
      },
    },
  };
}

/** Stores the response of a completed run for replay (only by the run that holds the claim). */
export async function completeIdempotencyRecord(key: TableKey, owner: string, response: StoredResponse): Promise<void> {
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
  try {
    await db().send(
      new UpdateCommand({
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
      }),
    );
  } catch (error) {
    // The run succeeded and was charged; failing the response now would make the client retry
    // and pay twice. Logged; a retry with this key gets 409 until the lease runs out.
    logError('idempotency record could not be completed', error);
  }
}

/** Frees the key after a refunded run, so that a retry with it runs again. */
export async function releaseIdempotencyRecord(key: TableKey, owner: string): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') logError('idempotency record could not be released', error);
  }
}
