/**
 * Bulk jobs and their items as stored (docs/jobs.md): the decoders, the reads, the builders of
 * every write and the single sends. A job item holds the job's counters, `queued` (items nobody
 * has claimed), `running` (claimed, at the provider), `succeeded`, `failed`, `cancelled`,
 * `charged`; the organization item's `active_jobs` counts its jobs queued or running.
 *
 * Nothing here decides: which writes go into one transaction, on which conditions, and what a
 * refused one means (when a job ends, what a cancel does, how a 402 spreads to the items after
 * it) is lib/jobs/lifecycle.ts's to say. A write of the job is described in its own terms
 * (`JobChange`: what changes, `JobCondition`: what must hold) and `jobUpdate` turns it into
 * DynamoDB's; an item's moves are built by name (`itemClaim`, `itemResult`, …), each conditional
 * on the item's own status only.
 */
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll, db, queryAll, type TransactItem, tableName } from './client.ts';
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
  /** The most the job's items may be charged in all (`max_credits`), or null: no cap. */
  max_credits: number | null;
  /**
   * With a cap: the credits its items' charges hold against it, standing or in flight (each
   * charge adds its cost in its own transaction, each refund takes it off in its own). Null without one.
   */
  budget_spent: number | null;
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
  /** The provider that produced its output; null before it succeeded (or for items run before providers were named). */
  provider: string | null;
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
  max_credits: item.max_credits == null ? null : Number(item.max_credits),
  budget_spent: item.budget_spent == null ? null : Number(item.budget_spent),
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

/** An item's output, gzip-compressed (jobItemUpdate); items written before that kept it as a map (`output`). */
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
  provider: typeof item.provider === 'string' ? item.provider : null,
  lease_until_ms: item.lease_until_ms == null ? null : Number(item.lease_until_ms),
});

// ---------------------------------------------------------------- creation

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

/** A new job, conditional on its id being new. Unset fields are absent, not null: conditions ask `attribute_not_exists(refusal)`. */
export const newJobPut = (job: JobRecord): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: { ...jobKey(job.id), entity: 'job', ...Object.fromEntries(Object.entries(job).filter(([, value]) => value !== null)) },
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});

/**
 * The organization's `active_jobs` up by one, conditional on the organization existing and the
 * counter being below `maxActive` (so that concurrent creations never pass it). Refused, it
 * returns the organization item as it was: none when the organization is gone.
 */
export const activeJobsIncrement = (orgId: string, maxActive: number): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: orgKey(orgId),
    UpdateExpression: 'ADD active_jobs :one',
    ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(active_jobs) OR active_jobs < :max)',
    ExpressionAttributeValues: { ':one': 1, ':max': maxActive },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  },
});

export const activeJobsDecrement = (orgId: string): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: orgKey(orgId),
    UpdateExpression: 'ADD active_jobs :minus',
    ExpressionAttributeValues: { ':minus': -1 },
  },
});

/** The job's marker in the one partition of active jobs (listActiveJobs). */
export const activeMarkerPut = (job: JobRecord): TransactItem => ({
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
});

export const activeMarkerDelete = (jobId: string): TransactItem => ({ Delete: { TableName: tableName(), Key: activeJobKey(jobId) } });

/**
 * The Idempotency-Key's record, naming the job, conditional on there being none; a record past
 * its expiry that TTL has not removed yet counts as none. Refused, it returns the record found.
 */
export const jobKeyPut = (claim: JobKeyClaim, jobId: string, nowMs: number): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...claim.key,
      entity: 'job_key',
      job_id: jobId,
      request_hash: claim.requestHash,
      expires_at: Math.floor(nowMs / 1000) + JOB_KEY_TTL_SECONDS,
    },
    ConditionExpression: 'attribute_not_exists(PK) OR expires_at <= :now',
    ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  },
});

/** The items of a new job, all pending: 25 a BatchWriteItem (the most it takes), 8 requests at once. */
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
    for (let batch = batches[next++]; batch; batch = batches[next++]) await batchWriteAll(batch, `items of job ${jobId}`);
  };
  await Promise.all(Array.from({ length: Math.min(8, batches.length) }, worker));
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

// ---------------------------------------------------------------- writes, in the job's terms

/** An UpdateItem, as a transaction's item (`{ Update }`) or a single send (`updateIf`) takes it. */
export type JobWrite = NonNullable<TransactItem['Update']>;

/** A count compared with a figure: equal to it, or above it. */
export type Count = readonly ['=' | '>', number];

/** What a write asks of the job item as stored: every fact given must hold. */
export interface JobCondition {
  exists?: true;
  /** `queued` or `running`: not ended. */
  active?: true;
  status?: JobStatus;
  /** Whether a cancel was asked (`cancel_requested`). */
  cancelRequested?: boolean;
  /** false: no refusal recorded. */
  refused?: false;
  queued?: Count;
  running?: Count;
  /** false: no item was ever claimed (`started_at` unset). */
  started?: false;
  /** Created at or before this instant (ISO). */
  createdBy?: string;
  /** Its messages' state; `absent` on a job created before the field existed. */
  messages?: MessagesState | 'absent';
  /** No recovery holds it at this instant (epoch ms). */
  recoveryFreeAt?: number;
  /** One of these at least. */
  anyOf?: readonly JobCondition[];
}

export type JobCounter = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'charged';

/** What a write changes on the job item. */
export interface JobChange {
  /** Counters moved by these amounts. */
  add?: Partial<Record<JobCounter, number>>;
  /** Every queued item counted cancelled at once: `cancelled` + `queued`, `queued` 0. */
  queuedToCancelled?: true;
  status?: JobStatus;
  /** Kept when already set. */
  startedAt?: string;
  completedAt?: string;
  cancelRequested?: true;
  /** Kept when one is recorded already: the first stays. */
  refusal?: ItemError;
  webhookStatus?: WebhookStatus;
  /** `messages: sent`, at this instant. */
  messagesSentAt?: string;
  recoveredAt?: string;
  /** A recovery's hold (epoch ms), or null to end it. */
  recoveryLeaseUntilMs?: number | null;
}

/** The values of one write's expressions, each under a label saying what it is (`:now`, `:queued`), once. */
class Values {
  readonly values: Record<string, unknown> = {};
  /** Whether `#status` (a reserved word) was used. */
  status = false;

  get statusName(): string {
    this.status = true;
    return '#status';
  }

  /** `:label`, or `:label2`, `:label3`… when the label holds another value already. */
  of(label: string, value: unknown): string {
    for (let n = 1; ; n += 1) {
      const key = n === 1 ? `:${label}` : `:${label}${n}`;
      if (!(key in this.values)) this.values[key] = value;
      if (isDeepStrictEqual(this.values[key], value)) return key;
    }
  }

  /** A count, labelled by its figure: `:zero`, `:one`, `:minus` (−1), `:n2`, `:minus2`. */
  count(value: number): string {
    const label = value === 0 ? 'zero' : value === 1 ? 'one' : value === -1 ? 'minus' : value < 0 ? `minus${-value}` : `n${value}`;
    return this.of(label, value);
  }
}

function conditionOf(condition: JobCondition, v: Values): string {
  const facts: string[] = [];
  if (condition.exists) facts.push('attribute_exists(PK)');
  if (condition.active) facts.push(`${v.statusName} IN (${v.of('queued', 'queued')}, ${v.of('running', 'running')})`);
  if (condition.status) facts.push(`${v.statusName} = ${v.of(condition.status, condition.status)}`);
  if (condition.cancelRequested !== undefined)
    facts.push(`cancel_requested ${condition.cancelRequested ? '=' : '<>'} ${v.of('true', true)}`);
  if (condition.refused === false) facts.push('attribute_not_exists(refusal)');
  for (const counter of ['queued', 'running'] as const) {
    const count = condition[counter];
    if (count) facts.push(`${counter} ${count[0]} ${v.count(count[1])}`);
  }
  if (condition.started === false) facts.push('attribute_not_exists(started_at)');
  if (condition.createdBy) facts.push(`created_at <= ${v.of('cutoff', condition.createdBy)}`);
  if (condition.messages === 'absent') facts.push('attribute_not_exists(messages)');
  else if (condition.messages) facts.push(`messages = ${v.of(condition.messages, condition.messages)}`);
  if (condition.recoveryFreeAt !== undefined) {
    const free = v.of('now_ms', condition.recoveryFreeAt);
    facts.push(`(attribute_not_exists(recovery_lease_until_ms) OR recovery_lease_until_ms <= ${free})`);
  }
  if (condition.anyOf) {
    const alternatives = condition.anyOf.map((one) => conditionOf(one, v)).map((one) => (one.includes(' AND ') ? `(${one})` : one));
    facts.push(`(${alternatives.join(' OR ')})`);
  }
  return facts.join(' AND ');
}

/** An update of the job, conditional on `condition`; `returnOnFailure`: refused, it returns the job as it was. */
export function jobUpdate(jobId: string, change: JobChange, condition: JobCondition = {}, returnOnFailure = false): JobWrite {
  const v = new Values();
  const set: string[] = [];
  const add: string[] = [];
  const remove: string[] = [];
  if (change.status) set.push(`${v.statusName} = ${v.of(change.status, change.status)}`);
  if (change.startedAt) set.push(`started_at = if_not_exists(started_at, ${v.of('now', change.startedAt)})`);
  if (change.completedAt) set.push(`completed_at = ${v.of('now', change.completedAt)}`);
  if (change.queuedToCancelled) set.push(`cancelled = cancelled + queued, queued = ${v.count(0)}`);
  if (change.cancelRequested) set.push(`cancel_requested = ${v.of('true', true)}`);
  if (change.refusal) set.push(`refusal = if_not_exists(refusal, ${v.of('refusal', change.refusal)})`);
  if (change.webhookStatus) set.push(`webhook_status = ${v.of(`webhook_${change.webhookStatus}`, change.webhookStatus)}`);
  if (change.messagesSentAt) set.push(`messages = ${v.of('sent', 'sent')}`, `messages_sent_at = ${v.of('now', change.messagesSentAt)}`);
  if (change.recoveredAt) set.push(`recovered_at = ${v.of('now', change.recoveredAt)}`);
  if (change.recoveryLeaseUntilMs === null) remove.push('recovery_lease_until_ms');
  else if (change.recoveryLeaseUntilMs !== undefined) set.push(`recovery_lease_until_ms = ${v.of('lease', change.recoveryLeaseUntilMs)}`);
  for (const [counter, amount] of Object.entries(change.add ?? {}))
    add.push(`${counter} ${counter === 'charged' ? v.of('charged', amount) : v.count(amount)}`);
  const conditionExpression = conditionOf(condition, v);
  const clauses = [
    set.length > 0 ? `SET ${set.join(', ')}` : '',
    add.length > 0 ? `ADD ${add.join(', ')}` : '',
    remove.length > 0 ? `REMOVE ${remove.join(', ')}` : '',
  ];
  return {
    TableName: tableName(),
    Key: jobKey(jobId),
    UpdateExpression: clauses.filter(Boolean).join(' '),
    ...(conditionExpression ? { ConditionExpression: conditionExpression } : {}),
    ...(v.status ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
    ...(Object.keys(v.values).length > 0 ? { ExpressionAttributeValues: v.values } : {}),
    ...(returnOnFailure ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
  };
}

// ---------------------------------------------------------------- an item's moves, each conditional on its status

const itemWrite = (jobId: string, index: number, update: Omit<JobWrite, 'TableName' | 'Key'>): JobWrite => ({
  TableName: tableName(),
  Key: jobItemKey(jobId, index),
  ...update,
  ExpressionAttributeNames: { '#status': 'status', ...update.ExpressionAttributeNames },
});

/** A pending item taken by a worker until `leaseUntilMs`. */
export const itemClaim = (jobId: string, index: number, leaseUntilMs: number, now: Date): JobWrite =>
  itemWrite(jobId, index, {
    UpdateExpression: 'SET #status = :running, lease_until_ms = :lease, claimed_at = :now',
    ConditionExpression: '#status = :pending',
    ExpressionAttributeValues: { ':running': 'running', ':pending': 'pending', ':lease': leaseUntilMs, ':now': now.toISOString() },
  });

/** What an item's run came to. */
export interface ItemResult {
  status: 'succeeded' | 'failed';
  output?: unknown;
  error?: ItemError;
  charged: number;
  /** The provider that produced its output (`Social-Provider` of a single run). */
  provider?: string | undefined;
}

/**
 * An item's result, written on it if its status is still `from`, its lease ended. Its output is
 * kept gzip-compressed (`output_gzip`), as the result cache keeps its own: an item stops at
 * DynamoDB's 400 KB, and compressed JSON leaves outputs several times that size room.
 */
export function itemResult(jobId: string, index: number, from: 'pending' | 'running', result: ItemResult, now: Date): JobWrite {
  const set = ['#status = :to', 'finished_at = :now', 'charged = :charged'];
  const values: Record<string, unknown> = { ':from': from, ':to': result.status, ':now': now.toISOString(), ':charged': result.charged };
  if (result.output !== undefined) {
    set.push('output_gzip = :output');
    values[':output'] = gzipSync(JSON.stringify(result.output));
  }
  if (result.provider !== undefined) {
    set.push('provider = :provider');
    values[':provider'] = result.provider;
  }
  if (result.error) {
    set.push('#error = :error');
    values[':error'] = result.error;
  }
  return itemWrite(jobId, index, {
    UpdateExpression: `SET ${set.join(', ')} REMOVE lease_until_ms`,
    ConditionExpression: '#status = :from',
    ...(result.error ? { ExpressionAttributeNames: { '#error': 'error' } } : {}),
    ExpressionAttributeValues: values,
  });
}

/** A pending item shown cancelled (no counter moves: the cancel counted it). */
export const itemCancelled = (jobId: string, index: number, now: Date): JobWrite =>
  itemWrite(jobId, index, {
    UpdateExpression: 'SET #status = :cancelled, finished_at = :now',
    ConditionExpression: '#status = :pending',
    ExpressionAttributeValues: { ':cancelled': 'cancelled', ':pending': 'pending', ':now': now.toISOString() },
  });

/** A running item's lease ended at `nowMs`: the next delivery of its message may take it over. */
export const itemReleased = (jobId: string, index: number, nowMs: number): JobWrite =>
  itemWrite(jobId, index, {
    UpdateExpression: 'SET lease_until_ms = :released',
    ConditionExpression: '#status = :running',
    ExpressionAttributeValues: { ':released': nowMs, ':running': 'running' },
  });

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
