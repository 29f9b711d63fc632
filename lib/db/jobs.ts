/**
 * Bulk jobs and their items (docs/jobs.md). A job item holds the job's counters, kept exact by
 * moving them only in the transaction that moves an item: `queued` (items nobody has claimed),
 * `running` (claimed, at the provider), `succeeded`, `failed`, `cancelled`, `charged`. The
 * organization item's `active_jobs` counts its jobs queued or running: incremented (bounded) in
 * the creation transaction, decremented in the one transaction that ends the job. Builds and
 * sends items; what a cancellation means is for lib/jobs/ to say.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { BatchWriteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionFailed, conditionFailedOn, db, queryAll, type TransactItem, tableName, transact } from './client.ts';
import { ACTIVE_JOBS_PK, activeJobKey, jobIdempotencyKey, jobItemIndexOf, jobItemKey, jobItemsPrefix, jobKey, orgKey } from './keys.ts';
import type { TableKey } from './table.ts';

export type JobStatus = 'queued' | 'running' | 'completed' | 'cancelled';
/** An item as stored: `pending` until claimed, `running` while its run is in flight. */
export type StoredItemStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export type WebhookStatus = 'pending' | 'delivered' | 'failed';
/**
 * Whether the job's item messages are all on the queue: `sending` from the creation transaction
 * until the creation (or a recovery, lib/jobs/recovery.ts) marks them `sent`. Null: a job created
 * before this field existed.
 */
export type MessagesState = 'sending' | 'sent';

/** An error as an item records it: the body a single run would have answered, without its request id. */
export interface ItemError {
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

export interface JobRecord {
  id: string;
  organization_id: string;
  operation: string;
  status: JobStatus;
  total: number;
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  charged: number;
  created_at: string;
  created_by_id: string;
  completed_at: string | null;
  /** `Cache-Control: max-age` given on the job's request: applies to every item. */
  max_age_seconds: number | null;
  /** `fields` given on the job's request (canonical): every item's output keeps only these paths; null or absent: whole outputs. */
  fields?: string | null;
  /** Set by a cancel while items were in flight: the job ends as cancelled when the last one finishes. */
  cancel_requested: boolean;
  /** The 402 that refused an item: every item not yet claimed fails with it, uncharged. */
  refusal: ItemError | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  webhook_status: WebhookStatus | null;
  webhook_attempts: number;
  /** See MessagesState; null on a job created before it existed. */
  messages: MessagesState | null;
  /** When its messages were marked sent (by its creation, or by a recovery). */
  messages_sent_at: string | null;
  /** When a recovery sent its messages again (its creation was cut short), or null. */
  recovered_at: string | null;
}

export interface JobItemRecord {
  index: number;
  input: unknown;
  status: StoredItemStatus;
  output: unknown;
  error: ItemError | null;
  charged: number;
  finished_at: string | null;
  /** While running: until when its worker holds it (epoch ms); a redelivery after that takes it over. */
  lease_until_ms: number | null;
}

const num = (value: unknown): number => Number(value ?? 0);

export const jobOf = (item: Record<string, unknown>): JobRecord => ({
  id: String(item.id),
  organization_id: String(item.organization_id),
  operation: String(item.operation),
  status: item.status as JobStatus,
  total: num(item.total),
  queued: num(item.queued),
  running: num(item.running),
  succeeded: num(item.succeeded),
  failed: num(item.failed),
  cancelled: num(item.cancelled),
  charged: num(item.charged),
  created_at: String(item.created_at),
  created_by_id: String(item.created_by_id),
  completed_at: (item.completed_at as string | undefined) ?? null,
  max_age_seconds: item.max_age_seconds == null ? null : Number(item.max_age_seconds),
  fields: (item.fields as string | undefined) ?? null,
  cancel_requested: item.cancel_requested === true,
  refusal: (item.refusal as ItemError | undefined) ?? null,
  webhook_url: (item.webhook_url as string | undefined) ?? null,
  webhook_secret: (item.webhook_secret as string | undefined) ?? null,
  webhook_status: (item.webhook_status as WebhookStatus | undefined) ?? null,
  webhook_attempts: num(item.webhook_attempts),
  messages: (item.messages as MessagesState | undefined) ?? null,
  messages_sent_at: (item.messages_sent_at as string | undefined) ?? null,
  recovered_at: (item.recovered_at as string | undefined) ?? null,
});

/**
 * An item's output is kept gzip-compressed (`output_gzip`), as the result cache keeps its own: an
 * item stops at DynamoDB's 400 KB, and compressed JSON leaves outputs several times that size room.
 * Items written before kept it as a map (`output`).
 */
function outputOf(item: Record<string, unknown>): unknown {
  if (item.output_gzip instanceof Uint8Array) return JSON.parse(gunzipSync(item.output_gzip).toString('utf8'));
  return item.output ?? null;
}

const itemOf = (item: Record<string, unknown>): JobItemRecord => ({
  index: jobItemIndexOf(String(item.SK)),
  input: item.input,
  status: item.status as StoredItemStatus,
  output: outputOf(item),
  error: (item.error as ItemError | undefined) ?? null,
  charged: num(item.charged),
  finished_at: (item.finished_at as string | undefined) ?? null,
  lease_until_ms: item.lease_until_ms == null ? null : Number(item.lease_until_ms),
});

// ---------------------------------------------------------------- creation

/** The organization has its most jobs active: nothing was written. */
export class JobLimitFull extends Error {}
/** The organization item is gone: nothing was written. */
export class NoJobOrganization extends Error {}
/** The Idempotency-Key names a job already (`jobId`, `requestHash`): nothing was written. */
export class JobKeyTaken extends Error {
  constructor(
    readonly jobId: string,
    readonly requestHash: string,
  ) {
    super(`the Idempotency-Key names job ${jobId}`);
  }
}

export const JOB_KEY_TTL_SECONDS = 24 * 3600;

export interface JobKeyClaim {
  key: TableKey;
  requestHash: string;
}

export const jobKeyRecordKey = jobIdempotencyKey;

export async function getJobKeyRecord(key: TableKey, nowMs: number): Promise<{ jobId: string; requestHash: string } | null> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  if (!item || Number(item.expires_at) <= Math.floor(nowMs / 1000)) return null;
  return { jobId: String(item.job_id), requestHash: String(item.request_hash) };
}

/**
 * The creation transaction: the job, the organization's active-job counter (bounded by
 * `maxActive`, so that concurrent creations can never pass it) and, with a key, its record.
 * Throws JobLimitFull, NoJobOrganization or JobKeyTaken when a condition refuses it.
 */
export async function createJob(job: JobRecord, maxActive: number, claim: JobKeyClaim | undefined, nowMs: number): Promise<void> {
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        // Unset fields are absent, not null: conditions ask `attribute_not_exists(refusal)`.
        Item: { ...jobKey(job.id), entity: 'job', ...Object.fromEntries(Object.entries(job).filter(([, value]) => value !== null)) },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: orgKey(job.organization_id),
        UpdateExpression: 'ADD active_jobs :one',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(active_jobs) OR active_jobs < :max)',
        ExpressionAttributeValues: { ':one': 1, ':max': maxActive },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...activeJobKey(job.id),
          entity: 'active_job',
          job_id: job.id,
          organization_id: job.organization_id,
          created_at: job.created_at,
        },
      },
    },
  ];
  if (claim) {
    items.push({
      Put: {
        TableName: tableName(),
        Item: {
          ...claim.key,
          entity: 'job_key',
          job_id: job.id,
          request_hash: claim.requestHash,
          expires_at: Math.floor(nowMs / 1000) + JOB_KEY_TTL_SECONDS,
        },
        // A record past its expiry that TTL has not removed yet counts as gone.
        ConditionExpression: 'attribute_not_exists(PK) OR expires_at <= :now',
        ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
  }
  await transact(items, (reasons) => {
    const taken = claim ? conditionFailedOn(reasons, 3) : undefined;
    if (taken) return new JobKeyTaken(String(taken.job_id), String(taken.request_hash));
    if (conditionFailed(reasons, 1)) {
      return conditionFailedOn(reasons, 1) ? new JobLimitFull('the organization has its most jobs active') : new NoJobOrganization();
    }
    return null;
  });
}

/** The items of a new job, all pending (25 a request, the most BatchWriteItem takes; what it leaves is sent again). */
export async function putJobItems(jobId: string, inputs: readonly unknown[]): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let start = 0; start < inputs.length; start += 25) {
    batches.push(
      inputs
        .slice(start, start + 25)
        .map((input, offset) => ({ ...jobItemKey(jobId, start + offset), entity: 'job_item', status: 'pending', input })),
    );
  }
  let next = 0;
  const worker = async () => {
    for (let batch = batches[next++]; batch; batch = batches[next++]) {
      let requests = batch.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0; attempt += 1) {
        if (attempt >= 8)
          throw new Error(`BatchWriteItem left ${requests.length} items of job ${jobId} unwritten after ${attempt} attempts`);
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
        const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
        requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, batches.length) }, worker));
}

/**
 * The creation's last write: every message of the job is on the queue. One UpdateItem,
 * conditional on the job still saying `sending`: false when a recovery marked it first (it sent
 * the messages again; the copies are harmless). Not conditional on the job being active: its
 * items may all have run, or a cancel ended it, before this is written, and that changes nothing.
 */
export async function markJobMessagesSent(jobId: string, now: Date): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(jobId),
        UpdateExpression: 'SET messages = :sent, messages_sent_at = :now',
        ConditionExpression: 'messages = :sending',
        ExpressionAttributeValues: { ':sent': 'sent', ':sending': 'sending', ':now': now.toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

// ---------------------------------------------------------------- reads

export async function getJob(jobId: string): Promise<JobRecord | null> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: jobKey(jobId), ConsistentRead: true }));
  return item ? jobOf(item) : null;
}

export async function getJobItem(jobId: string, index: number): Promise<JobItemRecord | null> {
  const { Item: item } = await db().send(new GetCommand({ TableName: tableName(), Key: jobItemKey(jobId, index), ConsistentRead: true }));
  return item ? itemOf(item) : null;
}

/**
 * A page of a job's items by index, after `afterIndex`, keeping those whose stored status is one
 * of `statuses` (all when undefined). Follows the Query's pages until the page is full: a filter
 * is applied after DynamoDB's own limit.
 */
export async function listJobItemsPage(
  jobId: string,
  limit: number,
  afterIndex: number | undefined,
  statuses: readonly StoredItemStatus[] | undefined,
): Promise<{ items: JobItemRecord[]; hasMore: boolean }> {
  const { PK, skPrefix } = jobItemsPrefix(jobId);
  const found: JobItemRecord[] = [];
  let startKey: Record<string, unknown> | undefined = afterIndex === undefined ? undefined : jobItemKey(jobId, afterIndex);
  do {
    const filter = statuses ? { list: statuses.map((_, i) => `:s${i}`).join(', ') } : undefined;
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ...(filter ? { FilterExpression: `#status IN (${filter.list})`, ExpressionAttributeNames: { '#status': 'status' } } : {}),
        ExpressionAttributeValues: {
          ':pk': PK,
          ':prefix': skPrefix,
          ...Object.fromEntries((statuses ?? []).map((status, i) => [`:s${i}`, status])),
        },
        ConsistentRead: true,
        Limit: limit + 1 - found.length,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    found.push(...(result.Items ?? []).map(itemOf));
    startKey = result.LastEvaluatedKey;
  } while (startKey && found.length <= limit);
  return { items: found.slice(0, limit), hasMore: found.length > limit || startKey !== undefined };
}

// ---------------------------------------------------------------- an item's life

/** Why a claim was refused: the job as it stands (null: gone), or the item no longer pending. */
export type ClaimRefused = { job: JobRecord | null } | { itemNotPending: true };

/**
 * Claims a pending item for a worker until `leaseUntilMs`, in one transaction with the job's
 * counters (queued → running) and its status (running). Refused (null is success) when the item
 * is not pending, or the job is ended, being cancelled or refused by a 402.
 */
export async function claimJobItem(jobId: string, index: number, leaseUntilMs: number, now: Date): Promise<ClaimRefused | null> {
  try {
    await transact(
      [
        {
          Update: {
            TableName: tableName(),
            Key: jobItemKey(jobId, index),
            UpdateExpression: 'SET #status = :running, lease_until_ms = :lease, claimed_at = :now',
            ConditionExpression: '#status = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':running': 'running', ':pending': 'pending', ':lease': leaseUntilMs, ':now': now.toISOString() },
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: jobKey(jobId),
            UpdateExpression: 'SET #status = :running, started_at = if_not_exists(started_at, :now) ADD queued :minus, running :one',
            ConditionExpression:
              '#status IN (:queued, :running) AND cancel_requested <> :true AND attribute_not_exists(refusal) AND queued > :zero',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':running': 'running',
              ':queued': 'queued',
              ':now': now.toISOString(),
              ':minus': -1,
              ':one': 1,
              ':zero': 0,
              ':true': true,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
      (reasons) => {
        if (conditionFailed(reasons, 0)) return new ClaimRefusedError({ itemNotPending: true });
        if (conditionFailed(reasons, 1)) {
          const job = conditionFailedOn(reasons, 1);
          return new ClaimRefusedError({ job: job ? jobOf(job) : null });
        }
        return null;
      },
    );
    return null;
  } catch (error) {
    if (error instanceof ClaimRefusedError) return error.refused;
    throw error;
  }
}

class ClaimRefusedError extends Error {
  constructor(readonly refused: ClaimRefused) {
    super('the claim was refused');
  }
}

export interface ItemOutcome {
  status: 'succeeded' | 'failed';
  output?: unknown;
  error?: ItemError;
  charged: number;
  /** The 402 that refused this item: recorded on the job, so that the items after it fail with it uncharged. */
  refusal?: ItemError;
}

/** What writing an item's result did: written (the job goes on), written and the job ended, or not written. */
export type Finished =
  | { result: 'finished' }
  /** This was the job's last item: the job ended in the same transaction. `job` is the job as it stood before. */
  | { result: 'ended'; job: JobRecord }
  /** The item had left `from` (another delivery wrote it first): nothing written. */
  | { result: 'moved' }
  /** A pending item of a job being cancelled: the cancel counted it; nothing written. */
  | { result: 'cancelled' };

/**
 * Writes an item's result once: conditional on its status still being `from` (running for a run,
 * pending for an item failed without running), in one transaction with the job's counters. The
 * transaction also asks that something else remain queued or running; when that fails, this is the
 * job's last item, and the result is written by the transaction that also ends the job (status,
 * `completed_at`, the organization's active-job counter down): exactly once, and no read of the job
 * after every item to find out.
 */
export async function finishJobItem(
  job: { id: string; organization_id: string },
  index: number,
  from: 'running' | 'pending',
  outcome: ItemOutcome,
  now: Date,
): Promise<Finished> {
  const counter = from === 'running' ? 'running' : 'queued';
  const itemValues: Record<string, unknown> = {
    ':from': from,
    ':to': outcome.status,
    ':now': now.toISOString(),
    ':charged': outcome.charged,
  };
  const setItem = ['#status = :to', 'finished_at = :now', 'charged = :charged'];
  const itemNames: Record<string, string> = { '#status': 'status' };
  if (outcome.output !== undefined) {
    setItem.push('output_gzip = :output');
    itemValues[':output'] = gzipSync(JSON.stringify(outcome.output));
  }
  if (outcome.error) {
    setItem.push('#error = :error');
    itemValues[':error'] = outcome.error;
    itemNames['#error'] = 'error';
  }
  const itemUpdate: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: jobItemKey(job.id, index),
      UpdateExpression: `SET ${setItem.join(', ')} REMOVE lease_until_ms`,
      ConditionExpression: '#status = :from',
      ExpressionAttributeNames: itemNames,
      ExpressionAttributeValues: itemValues,
    },
  };
  // What remains besides this item: queued > q or running > r (the counts before this write).
  const others = from === 'running' ? { ':q': 0, ':r': 1 } : { ':q': 1, ':r': 0 };
  // A pending item is the cancel's to count once a cancel is asked.
  const notCancelled = from === 'pending' ? ' AND cancel_requested = :false' : '';
  const counters = `ADD ${counter} :minus, ${outcome.status} :one, charged :charged`;
  const refusal = outcome.refusal ? ', refusal = if_not_exists(refusal, :refusal)' : '';
  const counterValues = {
    ':minus': -1,
    ':one': 1,
    ':charged': outcome.charged,
    ...(outcome.refusal ? { ':refusal': outcome.refusal } : {}),
  };
  for (let attempt = 0; attempt < 5; attempt += 1) {
    let last: JobRecord;
    try {
      await transact(
        [
          itemUpdate,
          {
            Update: {
              TableName: tableName(),
              Key: jobKey(job.id),
              UpdateExpression: `${counters}${refusal ? ` SET ${refusal.slice(2)}` : ''}`,
              ConditionExpression: `(queued > :q OR running > :r)${notCancelled}`,
              ExpressionAttributeValues: { ...counterValues, ...others, ...(from === 'pending' ? { ':false': false } : {}) },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
        (reasons) => {
          if (conditionFailed(reasons, 0)) return new ItemMoved();
          const found = conditionFailedOn(reasons, 1);
          return found === undefined ? null : new LastItem(found ? jobOf(found) : null);
        },
      );
      return { result: 'finished' };
    } catch (error) {
      if (error instanceof ItemMoved) return { result: 'moved' };
      if (!(error instanceof LastItem)) throw error;
      if (!error.job) throw new Error(`job ${job.id} is gone while its item ${index} was being written`);
      last = error.job;
    }
    if (from === 'pending' && last.cancel_requested) return { result: 'cancelled' };
    // The last item: its result, the job's end and the organization's counter, together.
    const end = last.cancel_requested ? 'cancelled' : 'completed';
    try {
      await transact(
        [
          itemUpdate,
          {
            Update: {
              TableName: tableName(),
              Key: jobKey(job.id),
              UpdateExpression: `${counters} SET #status = :end, completed_at = :now${refusal}${last.webhook_url ? ', webhook_status = :pending' : ''}`,
              ConditionExpression:
                '#status IN (:queued, :running) AND queued = :lastq AND running = :lastr AND cancel_requested = :cancelling',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ...counterValues,
                ':end': end,
                ':now': now.toISOString(),
                ':queued': 'queued',
                ':running': 'running',
                ':lastq': others[':q'],
                ':lastr': others[':r'],
                ':cancelling': last.cancel_requested,
                ...(last.webhook_url ? { ':pending': 'pending' } : {}),
              },
            },
          },
          ...jobEnded(job),
        ],
        (reasons) => (conditionFailed(reasons, 0) ? new ItemMoved() : conditionFailed(reasons, 1) ? new LastItem(null) : null),
      );
      return { result: 'ended', job: last };
    } catch (error) {
      if (error instanceof ItemMoved) return { result: 'moved' };
      // The job changed between the two writes (a cancel, another item): try again from the first.
      if (!(error instanceof LastItem)) throw error;
    }
  }
  throw new Error(`the result of item ${index} of job ${job.id} could not be written: the job kept changing`);
}

class ItemMoved extends Error {}

/** The job's counters say this is its last item (`job` as it stood, null if gone). */
class LastItem extends Error {
  constructor(readonly job: JobRecord | null) {
    super('the last item of its job');
  }
}

/**
 * Ends a running item's lease now: its worker met an error it cannot place (the table throttled,
 * an unknown failure), so the message's next delivery may take the item over at once instead of
 * waiting out the lease. Conditional on the item still running; best effort.
 */
export async function releaseJobItem(jobId: string, index: number, nowMs: number): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobItemKey(jobId, index),
      UpdateExpression: 'SET lease_until_ms = :released',
      ConditionExpression: '#status = :running',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':released': nowMs, ':running': 'running' },
    }),
  );
}

/**
 * Shows a pending item of a cancelled job as cancelled (the cancel counted it already: no
 * counter moves). Conditional, so it never touches an item a worker claimed.
 */
export async function markItemCancelled(jobId: string, index: number, now: Date): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobItemKey(jobId, index),
        UpdateExpression: 'SET #status = :cancelled, finished_at = :now',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':cancelled': 'cancelled', ':pending': 'pending', ':now': now.toISOString() },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

// ---------------------------------------------------------------- the end of a job

/** What ends with a job, beside it: the organization's active-job counter down, its active marker gone. */
const jobEnded = (job: { id: string; organization_id: string }): TransactItem[] => [
  {
    Update: {
      TableName: tableName(),
      Key: orgKey(job.organization_id),
      UpdateExpression: 'ADD active_jobs :minus',
      ExpressionAttributeValues: { ':minus': -1 },
    },
  },
  { Delete: { TableName: tableName(), Key: activeJobKey(job.id) } },
];

/** The indexes of a job's items not finished (pending or running). */
export async function unfinishedItemIndexes(jobId: string): Promise<number[]> {
  const { PK, skPrefix } = jobItemsPrefix(jobId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    FilterExpression: '#status IN (:pending, :running)',
    ProjectionExpression: 'SK',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': PK, ':prefix': skPrefix, ':pending': 'pending', ':running': 'running' },
    ConsistentRead: true,
  });
  return items.map((item) => jobItemIndexOf(String(item.SK)));
}

/**
 * The jobs queued or running, by id (one partition: `npm start` re-queues their items at start,
 * the recovery looks for stalled ones among them), with when each was created.
 */
export async function listActiveJobs(): Promise<{ jobId: string; orgId: string; createdAt: string }[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': ACTIVE_JOBS_PK },
    ConsistentRead: true,
  });
  return items.map((item) => ({ jobId: String(item.job_id), orgId: String(item.organization_id), createdAt: String(item.created_at) }));
}

/**
 * What is stored of a job's items: how many were written, and the indexes of those still
 * pending (never claimed). One Query of the job's partition, keys and statuses only.
 */
export async function jobItemStates(jobId: string): Promise<{ written: number; pending: number[] }> {
  const { PK, skPrefix } = jobItemsPrefix(jobId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ProjectionExpression: 'SK, #status',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': PK, ':prefix': skPrefix },
    ConsistentRead: true,
  });
  return {
    written: items.length,
    pending: items.filter((item) => item.status === 'pending').map((item) => jobItemIndexOf(String(item.SK))),
  };
}

// ---------------------------------------------------------------- a stalled creation

/** A job active, created by `cutoff` and whose messages were never marked sent: see `claimStalledJob`. */
const STALLED =
  '#status IN (:queued, :running) AND cancel_requested <> :true AND created_at <= :cutoff AND ' +
  '(messages = :sending OR (attribute_not_exists(messages) AND #status = :queued AND attribute_not_exists(started_at)))';

/**
 * Takes a stalled job for one recovery until `leaseUntilMs`: conditional on the job being active,
 * not being cancelled, created by `cutoff`, its messages never marked sent (or, for a job created
 * before `messages` existed, still queued with no item ever claimed), and no other recovery
 * holding it. The job as it now stands, or null when the condition refused it (healthy, ended,
 * or another recovery's): two recoveries at once never both send.
 */
export async function claimStalledJob(jobId: string, cutoff: Date, leaseUntilMs: number, nowMs: number): Promise<JobRecord | null> {
  try {
    const { Attributes: item } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(jobId),
        UpdateExpression: 'SET recovery_lease_until_ms = :lease',
        ConditionExpression: `${STALLED} AND (attribute_not_exists(recovery_lease_until_ms) OR recovery_lease_until_ms <= :now)`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':queued': 'queued',
          ':running': 'running',
          ':true': true,
          ':cutoff': cutoff.toISOString(),
          ':sending': 'sending',
          ':lease': leaseUntilMs,
          ':now': nowMs,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return item ? jobOf(item) : null;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return null;
    throw error;
  }
}

/**
 * A recovery sent the job's messages again: marked sent (and recovered), its lease released.
 * Conditional on nobody having marked it sent meanwhile (a late creation): false then.
 */
export async function markJobRecovered(jobId: string, now: Date): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(jobId),
        UpdateExpression: 'SET messages = :sent, messages_sent_at = :now, recovered_at = :now REMOVE recovery_lease_until_ms',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(messages) OR messages = :sending)',
        ExpressionAttributeValues: { ':sent': 'sent', ':sending': 'sending', ':now': now.toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * Ends a job whose items are all finished, exactly once: its status (completed, or cancelled
 * when a cancel was asked while items ran), and the organization's active-job counter down, in
 * one transaction conditional on the job being active with nothing queued or running. Returns
 * false when it was not (another worker ended it, or items remain).
 */
export async function endJob(job: JobRecord, now: Date): Promise<boolean> {
  try {
    await transact(
      [
        {
          Update: {
            TableName: tableName(),
            Key: jobKey(job.id),
            UpdateExpression: `SET #status = :end, completed_at = :now${job.webhook_url ? ', webhook_status = :pending' : ''}`,
            ConditionExpression: '#status IN (:queued, :running) AND queued = :zero AND running = :zero',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':end': job.cancel_requested ? 'cancelled' : 'completed',
              ':now': now.toISOString(),
              ':queued': 'queued',
              ':running': 'running',
              ':zero': 0,
              ...(job.webhook_url ? { ':pending': 'pending' } : {}),
            },
          },
        },
        ...jobEnded(job),
      ],
      (reasons) => (conditionFailed(reasons, 0) ? new NotEnded() : null),
    );
    return true;
  } catch (error) {
    if (error instanceof NotEnded) return false;
    throw error;
  }
}

class NotEnded extends Error {}

/**
 * Cancels an active job: every item not yet claimed counts as cancelled at once (its stored
 * status stays pending until a worker or the listing sees the job, and no worker can claim it).
 * With nothing running the job ends now (`ended`, the organization's counter down in the same
 * transaction); otherwise it ends as cancelled when its last running item finishes (`requested`).
 * `inactive`: the job had ended already.
 */
export async function cancelJob(job: JobRecord, now: Date): Promise<'ended' | 'requested' | 'inactive'> {
  const active = '#status IN (:queued, :running) AND cancel_requested <> :true';
  const names = { '#status': 'status' };
  const base = { ':queued': 'queued', ':running': 'running', ':zero': 0, ':true': true };
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      await transact(
        [
          {
            Update: {
              TableName: tableName(),
              Key: jobKey(job.id),
              UpdateExpression:
                'SET #status = :cancelled, completed_at = :now, cancelled = cancelled + queued, queued = :zero, cancel_requested = :true' +
                (job.webhook_url ? ', webhook_status = :pending' : ''),
              ConditionExpression: `${active} AND running = :zero`,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: {
                ...base,
                ':cancelled': 'cancelled',
                ':now': now.toISOString(),
                ...(job.webhook_url ? { ':pending': 'pending' } : {}),
              },
            },
          },
          ...jobEnded(job),
        ],
        (reasons) => (conditionFailed(reasons, 0) ? new NotEnded() : null),
      );
      return 'ended';
    } catch (error) {
      if (!(error instanceof NotEnded)) throw error;
    }
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: jobKey(job.id),
          UpdateExpression: 'SET cancelled = cancelled + queued, queued = :zero, cancel_requested = :true',
          ConditionExpression: `${active} AND running > :zero`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: base,
        }),
      );
      return 'requested';
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
    const now_ = await getJob(job.id);
    if (!now_ || !['queued', 'running'].includes(now_.status) || now_.cancel_requested) return 'inactive';
    // The last running item finished between the two writes: try again.
  }
  return 'inactive';
}

/** The webhook's delivery as the job shows it. */
export async function recordWebhook(jobId: string, status: WebhookStatus, attempts: number): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(jobId),
      UpdateExpression: 'SET webhook_status = :status, webhook_attempts = :attempts',
      ExpressionAttributeValues: { ':status': status, ':attempts': attempts },
    }),
  );
}
