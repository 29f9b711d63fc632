/**
 * `npm start`'s (and the tests') stand-in for the deployed event source mapping of the table's
 * stream (infra/table-stream.ts): DynamoDB Local's own stream, read with the DynamoDB Streams API
 * (DescribeStream, GetShardIterator, GetRecords), handed to the same function the mapping invokes
 * (functions/table-stream.ts), with the mapping's behaviour:
 *
 * - every shard read in order, a parent shard to its end before its children, an iterator per
 *   shard, a fresh one from the checkpoint when one expires or reads trimmed records;
 * - the mapping's filter (the consumers' patterns): records no consumer wants are passed over;
 * - batches of at most `batchSize` records; the partial batch response honoured (the batch
 *   resumes at the failed record, everything before it done);
 * - on a failure, the rest of the batch bisected down to the failing record, which is retried
 *   `maxRetryAttempts` times, then its batch's description goes to the on-failure destination
 *   (Lambda's document for a stream batch) and the shard moves on past it;
 * - a checkpoint per shard, kept durably (a file, written whole and renamed) after each batch, so
 *   that a poller killed at any instant resumes from the last batch it finished: what it was doing
 *   comes again, which the consumers are built for (exactly once by their own markers).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { type FilterPattern, matchesAny } from '../stream/filter.ts';

/** What the mapping sends to its on-failure destination for a stream batch it gave up on (Lambda's shape). */
export interface OnFailureRecord {
  requestContext: { requestId: string; functionArn: string; condition: 'RetryAttemptsExhausted'; approximateInvokeCount: number };
  responseContext: { statusCode: number; executedVersion: string; functionError?: string };
  version: '1.0';
  timestamp: string;
  DDBStreamBatchInfo: {
    shardId: string;
    startSequenceNumber: string;
    endSequenceNumber: string;
    approximateArrivalOfFirstRecord: string;
    approximateArrivalOfLastRecord: string;
    batchSize: number;
    streamArn: string;
  };
}

/** Where each shard stands: the sequence number of the last record done, by shard, for one stream. */
export interface CheckpointStore {
  load(streamArn: string): Record<string, string>;
  save(streamArn: string, positions: Record<string, string>): void;
}

/** Checkpoints in one JSON file; a file for another stream (a table made anew) is ignored. */
export function fileCheckpoints(path: string): CheckpointStore {
  return {
    load(streamArn) {
      try {
        const saved = JSON.parse(readFileSync(path, 'utf8')) as { streamArn?: string; shards?: Record<string, string> };
        return saved.streamArn === streamArn ? { ...saved.shards } : {};
      } catch {
        return {};
      }
    },
    save(streamArn, positions) {
      mkdirSync(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify({ streamArn, shards: positions })}\n`);
      renameSync(temporary, path);
    },
  };
}

/** Checkpoints that live as long as the poller (a test that never restarts it). */
export function memoryCheckpoints(): CheckpointStore {
  const streams = new Map<string, Record<string, string>>();
  return { load: (arn) => ({ ...streams.get(arn) }), save: (arn, positions) => void streams.set(arn, { ...positions }) };
}

/** The on-failure destination as a file of JSON lines: `npm start`'s, beside its checkpoint. */
export const fileSink =
  (path: string) =>
  async (record: OnFailureRecord): Promise<void> => {
    mkdirSync(dirname(path), { recursive: true });
    await appendFile(path, `${JSON.stringify(record)}\n`);
  };

export interface StreamPollerOptions {
  /** DynamoDB Local's endpoint and the table whose stream to read. */
  endpoint: string;
  tableName: string;
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** The function, as the mapping invokes it. */
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined>;
  /** The mapping's filter: records matching none of these are passed over. */
  filters: readonly FilterPattern[];
  checkpoints: CheckpointStore;
  onFailure: (record: OnFailureRecord) => Promise<void> | void;
  /** Records per invocation, at most (the mapping's BatchSize). */
  batchSize?: number;
  /** How often an idle shard is read again (the mapping reads each shard about 4 times a second). */
  pollIntervalMs?: number;
  /** Retries of a failing record before its batch goes to the on-failure destination. */
  maxRetryAttempts?: number;
  /** Split a failing batch in two before retrying (the mapping's BisectBatchOnFunctionError). */
  bisectOnError?: boolean;
  /** Pause before each retry. */
  retryDelayMs?: number;
  log?: (line: string) => void;
}

export interface StreamPoller {
  /** Resolves once every shard has been read to its end after this call (everything written before it was handed over). */
  catchUp(): Promise<void>;
  /** What the poller is waiting on now and for how long (a catch-up that never comes says it). */
  waitingOn(): string;
  stop(): Promise<void>;
}

export interface ShardState {
  id: string;
  parent: string | undefined;
  iterator: string | undefined;
  /** The shard has no more records: its children may start. */
  ended: boolean;
}

/**
 * The shards to read now, as the mapping reads them: each not yet ended whose parent has ended
 * (or is gone from the stream, trimmed after 24 hours), so that an item's records, which move
 * from a closed shard to its children, are handed over in order. Pure.
 */
export const readableShards = (shards: ReadonlyMap<string, ShardState>): ShardState[] =>
  [...shards.values()].filter((shard) => !shard.ended && (!shard.parent || !shards.has(shard.parent) || shards.get(shard.parent)?.ended));

const LOCAL_ARN_PREFIX = 'arn:aws:lambda:local:000000000000:function:';

/** A record as Lambda hands it to the function: images as attribute values, the time in epoch seconds. */
function lambdaRecordOf(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const { ApproximateCreationDateTime, ...dynamodb } = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(ApproximateCreationDateTime ? { ApproximateCreationDateTime: Math.floor(ApproximateCreationDateTime.getTime() / 1000) } : {}),
      ...dynamodb,
    },
  } as DynamoDBRecord;
}

const sequenceOf = (record: DynamoDBRecord): string => String(record.dynamodb?.SequenceNumber);
const arrivalOf = (record: DynamoDBRecord | undefined): string =>
  new Date((Number(record?.dynamodb?.ApproximateCreationDateTime) || 0) * 1000).toISOString();
/** Longer than DynamoDB Local takes to answer on a machine loaded to its limit (seconds at worst). */
const REQUEST_TIMEOUT_MS = 10_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startStreamPoller(options: StreamPollerOptions): StreamPoller {
  const batchSize = options.batchSize ?? 100;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const maxRetryAttempts = options.maxRetryAttempts ?? 3;
  const bisect = options.bisectOnError ?? true;
  const retryDelayMs = options.retryDelayMs ?? 200;
  const log = options.log ?? (() => undefined);
  const clientConfig = {
    endpoint: options.endpoint,
    region: options.region ?? 'us-east-1',
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // A response that never comes (a socket lost under load) fails the call, which the SDK and
    // then the loop try again, rather than stalling the shard, and every catch-up, for good.
    requestHandler: { requestTimeout: REQUEST_TIMEOUT_MS },
  };
  const tables = new DynamoDBClient(clientConfig);
  const streams = new DynamoDBStreamsClient(clientConfig);
  const shards = new Map<string, ShardState>();
  let streamArn = '';
  let positions: Record<string, string> = {};
  let stopped = false;
  let refreshedAt = 0;
  /** Catch-up requests: each resolves after a whole round, begun after it, found every shard at its end. */
  let waiters: { round: number; resolve: () => void }[] = [];
  let round = 0;
  let phase = { what: 'starting', since: Date.now() };
  /** Runs `step`, known meanwhile as `what` (waitingOn()). */
  const during = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    const before = phase;
    phase = { what, since: Date.now() };
    try {
      return await step();
    } finally {
      phase = before;
    }
  };

  const describeShards = async () => {
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await during('DescribeStream', () =>
        streams.send(
          new DescribeStreamCommand({
            StreamArn: streamArn,
            ...(exclusiveStartShardId ? { ExclusiveStartShardId: exclusiveStartShardId } : {}),
          }),
        ),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (!shard.ShardId || shards.has(shard.ShardId)) continue;
        shards.set(shard.ShardId, { id: shard.ShardId, parent: shard.ParentShardId, iterator: undefined, ended: false });
      }
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
    refreshedAt = Date.now();
  };

  const iteratorOf = async (shard: ShardState): Promise<string | undefined> => {
    const after = positions[shard.id];
    try {
      const { ShardIterator } = await during(`GetShardIterator of shard ${shard.id}`, () =>
        streams.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shard.id,
            ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
          }),
        ),
      );
      return ShardIterator;
    } catch (error) {
      if ((error as Error).name !== 'TrimmedDataAccessException') throw error;
      log(`table stream: shard ${shard.id} was trimmed past its checkpoint ${after}: reading from its oldest record`);
      delete positions[shard.id];
      return iteratorOf(shard);
    }
  };

  const checkpoint = (shardId: string, sequenceNumber: string) => {
    positions = { ...positions, [shardId]: sequenceNumber };
    options.checkpoints.save(streamArn, positions);
  };

  /** Lambda's invocation of one batch: its failed record's index, or -1 when all were done. */
  const invoke = async (batch: DynamoDBRecord[]): Promise<{ failedAt: number; functionError: boolean }> => {
    try {
      const response = await during(`the function, with ${batch.length} record(s)`, () => options.handler({ Records: batch }));
      const failed = response?.batchItemFailures ?? [];
      if (failed.length === 0) return { failedAt: -1, functionError: false };
      // The earliest reported record is where the batch resumes; one the batch does not hold fails it whole.
      const indexes = failed.map((failure) => batch.findIndex((record) => sequenceOf(record) === failure.itemIdentifier));
      return { failedAt: indexes.includes(-1) ? 0 : Math.min(...indexes), functionError: false };
    } catch (error) {
      log(`table stream: the function failed: ${(error as Error).message}`);
      return { failedAt: 0, functionError: true };
    }
  };

  /** Hands `records` over as the mapping would, until each is done or given up on. */
  const deliver = async (shard: ShardState, records: DynamoDBRecord[]) => {
    const queue: DynamoDBRecord[][] = [];
    for (let start = 0; start < records.length; start += batchSize) queue.push(records.slice(start, start + batchSize));
    let attempts = 0;
    while (queue.length > 0 && !stopped) {
      const batch = queue.shift() ?? [];
      const { failedAt, functionError } = await invoke(batch);
      if (failedAt === -1) {
        attempts = 0;
        checkpoint(shard.id, sequenceOf(batch[batch.length - 1] as DynamoDBRecord));
        continue;
      }
      if (failedAt > 0) checkpoint(shard.id, sequenceOf(batch[failedAt - 1] as DynamoDBRecord));
      const rest = batch.slice(failedAt);
      if (bisect && rest.length > 1) {
        const half = Math.ceil(rest.length / 2);
        queue.unshift(rest.slice(0, half), rest.slice(half));
        continue;
      }
      attempts += 1;
      if (attempts <= maxRetryAttempts) {
        queue.unshift(rest);
        await pause(retryDelayMs);
        continue;
      }
      const first = rest[0];
      const last = rest[rest.length - 1];
      log(
        `table stream: ${rest.length} record(s) from ${sequenceOf(first as DynamoDBRecord)} failed ${attempts} times: sent to the on-failure destination`,
      );
      await options.onFailure({
        requestContext: {
          requestId: randomUUID(),
          functionArn: `${LOCAL_ARN_PREFIX}table-stream`,
          condition: 'RetryAttemptsExhausted',
          approximateInvokeCount: attempts,
        },
        responseContext: { statusCode: 200, executedVersion: '$LATEST', ...(functionError ? { functionError: 'Unhandled' } : {}) },
        version: '1.0',
        timestamp: new Date().toISOString(),
        DDBStreamBatchInfo: {
          shardId: shard.id,
          startSequenceNumber: sequenceOf(first as DynamoDBRecord),
          endSequenceNumber: sequenceOf(last as DynamoDBRecord),
          approximateArrivalOfFirstRecord: arrivalOf(first),
          approximateArrivalOfLastRecord: arrivalOf(last),
          batchSize: rest.length,
          streamArn,
        },
      });
      attempts = 0;
      checkpoint(shard.id, sequenceOf(last as DynamoDBRecord));
    }
  };

  /** One GetRecords on a shard and its delivery; whether it held any record. */
  const readShard = async (shard: ShardState): Promise<boolean> => {
    shard.iterator ??= await iteratorOf(shard);
    if (!shard.iterator) {
      shard.ended = true;
      return false;
    }
    let page: GetRecordsCommandOutput;
    try {
      const iterator = shard.iterator;
      page = await during(`GetRecords of shard ${shard.id}`, () =>
        streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 })),
      );
    } catch (error) {
      const name = (error as Error).name;
      if (name !== 'ExpiredIteratorException' && name !== 'TrimmedDataAccessException') throw error;
      // Either way the iterator is no good any more, however often it is tried: a fresh one from the
      // checkpoint next round. DynamoDB Local refuses as trimmed an iterator taken at the horizon of
      // a shard still empty once another table's stream has records (its sequence numbers are one
      // counter for all tables): every catch-up of a test file waited on it for good.
      if (name === 'TrimmedDataAccessException') log(`table stream: shard ${shard.id}: its iterator reads trimmed records: a fresh one`);
      shard.iterator = undefined;
      return true;
    }
    const records = (page.Records ?? []).map((record) => lambdaRecordOf(record, streamArn));
    const wanted = records.filter((record) => matchesAny(options.filters, record));
    if (wanted.length > 0) await deliver(shard, wanted);
    // Records no consumer wants are passed over like those done.
    const last = records[records.length - 1];
    if (last && !stopped && positions[shard.id] !== sequenceOf(last)) checkpoint(shard.id, sequenceOf(last));
    shard.iterator = page.NextShardIterator;
    if (!shard.iterator) shard.ended = true;
    return records.length > 0;
  };

  /** The table's stream and where each of its shards was left, once: until then, each round asks. */
  const findStream = async () => {
    const { Table } = await during('DescribeTable', () => tables.send(new DescribeTableCommand({ TableName: options.tableName })));
    if (!Table?.LatestStreamArn) throw new Error(`table ${options.tableName} has no stream`);
    streamArn = Table.LatestStreamArn;
    positions = options.checkpoints.load(streamArn);
  };

  /** The pause between idle rounds, which a catch-up (or stop) ends early: see catchUp. */
  let wakeIdle: (() => void) | undefined;
  const idle = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => wakeIdle?.(), waiters.length > 0 ? 0 : pollIntervalMs);
      wakeIdle = () => {
        clearTimeout(timer);
        wakeIdle = undefined;
        resolve();
      };
    });

  const loop = async () => {
    while (!stopped) {
      round += 1;
      const thisRound = round;
      let busy = false;
      try {
        // In the loop, not before it: a stream not there yet, or a DescribeTable that failed,
        // would otherwise stop the poller for good, and every catch-up after it would wait
        // forever (a whole file of alert tests timed out so, once, at load 5).
        if (!streamArn) await findStream();
        if (Date.now() - refreshedAt > 5_000 || [...shards.values()].every((shard) => shard.ended)) await describeShards();
        for (const shard of readableShards(shards)) {
          if (stopped) break;
          busy = (await readShard(shard)) || busy;
        }
      } catch (error) {
        if (stopped) break;
        // DynamoDB Local gone or refusing: said once a round, and tried again after a pause, as
        // the mapping does; no catch-up waiter is answered meanwhile.
        log(`table stream: ${(error as Error).message}`);
        await during('a pause after an error', () => pause(pollIntervalMs * 4));
        continue;
      }
      if (!busy) {
        const done = waiters.filter((waiter) => waiter.round < thisRound);
        waiters = waiters.filter((waiter) => waiter.round >= thisRound);
        for (const waiter of done) waiter.resolve();
        await during('the poll interval', idle);
      }
    }
  };

  const running = loop().catch((error: unknown) => log(`table stream: stopped: ${(error as Error).message}`));

  return {
    catchUp: () =>
      new Promise<void>((resolve) => {
        waiters.push({ round, resolve });
        // Someone waits: the next round starts now rather than after the idle pause.
        wakeIdle?.();
      }),
    waitingOn: () =>
      `${stopped ? 'stopped; ' : ''}round ${round}, ${waiters.length} catch-up(s) waiting, ${[...shards.values()].filter((shard) => !shard.ended).length} open shard(s); ` +
      `${phase.what} for ${Date.now() - phase.since} ms`,
    async stop() {
      stopped = true;
      wakeIdle?.();
      await running;
      for (const waiter of waiters) waiter.resolve();
      tables.destroy();
      streams.destroy();
    },
  };
}
