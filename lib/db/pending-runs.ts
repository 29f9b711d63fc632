/**
 * Pending runs: the record that a charged run is still in flight (docs/charges.md). The charge
 * transaction puts it; delivering the result deletes it (settle); a refund deletes it in the
 * refund's own transaction; those transactions are composed by lib/billing/paid-run.ts. Whatever
 * is left once the run can no longer finish is a charge that would be lost: the sweeper
 * (lib/billing/sweeper.ts) finds it through the sweep index and refunds it.
 *
 * Every write is conditional on `owner`, the attempt that holds the run: an Idempotency-Key
 * retry that takes a dead run over becomes its owner, and the dead attempt, should it come back,
 * can then neither settle nor refund it.
 */
import { type DeleteCommandInput, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, type TransactItem, tableName } from './client.ts';
import { dueBefore, pendingRunIndexKey, pendingRunKey, pendingRunsPrefix, SWEEP_SHARDS, sweepPartition } from './keys.ts';
import { SWEEP_INDEX, type TableKey } from './table.ts';

/** A charge that went through: what a refund needs to undo it exactly. */
export interface Charge {
  orgId: string;
  userId: string;
  operation: string;
  cost: number;
  /** The month (YYYY-MM) whose spend counters the charge went into. */
  month: string;
  /** The day (YYYY-MM-DD) whose spend it counts in; absent for a charge made before daily limits, which counted in none. */
  day?: string | undefined;
  /** The charge id: the `social_operation.charged` event's id. */
  eventId: string;
  /** The capped job (`max_credits`) whose budget the charge counted in: its refund gives the cost back to it. */
  jobId?: string | undefined;
}

/** A charge with the attempt that holds its run: what settling or refunding the run needs. */
export interface HeldCharge extends Charge {
  owner: string;
  /** Epoch ms after which the run can no longer finish: from then on the sweeper refunds it. */
  sweepAfterMs: number;
  /** The Idempotency-Key record that claims the run: released by a refund, completed by a settle. */
  idempotencyKey?: TableKey;
  /** The request that charged (named in the refund event's metadata, whoever refunds). */
  requestId?: string;
}

/** A pending run as stored. */
export interface PendingRun extends HeldCharge {
  chargedAt: string;
}

/** The pending-run record, put by the charge transaction (a charge id is never reused). */
export function pendingRunPut(run: PendingRun): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...pendingRunKey(run.orgId, run.eventId),
        ...pendingRunIndexKey(run.eventId, run.sweepAfterMs),
        entity: 'pending_run',
        organization_id: run.orgId,
        user_id: run.userId,
        operation: run.operation,
        cost: run.cost,
        month: run.month,
        ...(run.day === undefined ? {} : { day: run.day }),
        charge_id: run.eventId,
        ...(run.jobId === undefined ? {} : { job_id: run.jobId }),
        charged_at: run.chargedAt,
        owner: run.owner,
        sweep_after_ms: run.sweepAfterMs,
        ...(run.idempotencyKey ? { idempotency_pk: run.idempotencyKey.PK, idempotency_sk: run.idempotencyKey.SK } : {}),
        ...(run.requestId ? { request_id: run.requestId } : {}),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/**
 * Deletes the record if `run.owner` still holds it and, for the sweeper (`dueBy`), if it is still
 * due then: a run handed to a retry in the meantime has a new owner and a later due time.
 */
export function pendingRunDeleteInput(run: HeldCharge, dueBy?: number): DeleteCommandInput & { Key: TableKey } {
  return {
    TableName: tableName(),
    Key: pendingRunKey(run.orgId, run.eventId),
    ConditionExpression: dueBy === undefined ? '#owner = :owner' : '#owner = :owner AND sweep_after_ms <= :due',
    ExpressionAttributeNames: { '#owner': 'owner' },
    ExpressionAttributeValues: { ':owner': run.owner, ...(dueBy === undefined ? {} : { ':due': dueBy }) },
  };
}

/** The same delete as a transaction item. */
export const pendingRunDelete = (run: HeldCharge, dueBy?: number): TransactItem => ({ Delete: pendingRunDeleteInput(run, dueBy) });

/** Hands a run from a dead attempt to the one taking it over, with the new attempt's due time. */
export function pendingRunTransfer(run: Pick<Charge, 'orgId' | 'eventId'>, from: string, to: string, sweepAfterMs: number): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: pendingRunKey(run.orgId, run.eventId),
      UpdateExpression: 'SET #owner = :to, sweep_after_ms = :sweep, GSI1SK = :sortKey',
      ConditionExpression: '#owner = :from',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: {
        ':from': from,
        ':to': to,
        ':sweep': sweepAfterMs,
        ':sortKey': pendingRunIndexKey(run.eventId, sweepAfterMs).GSI1SK,
      },
      // Tells a missing record (the run was settled or refunded) from one held by another attempt.
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

const runOf = (item: Record<string, unknown>): PendingRun => ({
  orgId: String(item.organization_id),
  userId: String(item.user_id),
  operation: String(item.operation),
  cost: Number(item.cost),
  month: String(item.month),
  ...(item.day === undefined ? {} : { day: String(item.day) }),
  eventId: String(item.charge_id),
  ...(item.job_id === undefined ? {} : { jobId: String(item.job_id) }),
  owner: String(item.owner),
  chargedAt: String(item.charged_at),
  sweepAfterMs: Number(item.sweep_after_ms),
  ...(item.idempotency_pk ? { idempotencyKey: { PK: String(item.idempotency_pk), SK: String(item.idempotency_sk) } } : {}),
  ...(item.request_id ? { requestId: String(item.request_id) } : {}),
});

async function queryAll(input: QueryCommandInput, limit: number): Promise<PendingRun[]> {
  const runs: PendingRun[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, ExclusiveStartKey: start, Limit: Math.min(limit - runs.length, 500) }));
    runs.push(...(page.Items ?? []).map(runOf));
    start = page.LastEvaluatedKey;
  } while (start && runs.length < limit);
  return runs;
}

const byDueTime = (a: PendingRun, b: PendingRun) => a.sweepAfterMs - b.sweepAfterMs || a.eventId.localeCompare(b.eventId);

const shardQuery = (shard: number, nowMs: number | undefined): QueryCommandInput => ({
  TableName: tableName(),
  IndexName: SWEEP_INDEX,
  KeyConditionExpression: nowMs === undefined ? 'GSI1PK = :shard' : 'GSI1PK = :shard AND GSI1SK < :due',
  ExpressionAttributeValues: { ':shard': sweepPartition(shard), ...(nowMs === undefined ? {} : { ':due': dueBefore(nowMs) }) },
});

/**
 * Runs due before `nowMs`, the longest overdue first, at most `limit`: one Query per shard of the
 * sweep index, in parallel. The index is eventually consistent: a run just settled may still be
 * listed, and its refund's condition then finds it gone.
 */
export async function listOverduePendingRuns(nowMs: number, limit: number): Promise<PendingRun[]> {
  const shards = await Promise.all(Array.from({ length: SWEEP_SHARDS }, (_, shard) => queryAll(shardQuery(shard, nowMs), limit)));
  return shards.flat().sort(byDueTime).slice(0, limit);
}

/** Every pending run, of one organization (consistent, from its partition) or of all (the sweep index). */
export async function listPendingRuns(orgId?: string, limit = 10_000): Promise<PendingRun[]> {
  if (orgId === undefined) {
    const shards = await Promise.all(Array.from({ length: SWEEP_SHARDS }, (_, shard) => queryAll(shardQuery(shard, undefined), limit)));
    return shards.flat().sort(byDueTime).slice(0, limit);
  }
  const prefix = pendingRunsPrefix(orgId);
  const runs = await queryAll(
    {
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.skPrefix },
      ConsistentRead: true,
    },
    limit,
  );
  return runs.sort(byDueTime);
}
