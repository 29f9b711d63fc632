/**
 * The table's change stream, handed to its consumers. One function reads the stream (deployed:
 * the event source mapping of infra/table-stream.ts; locally: lib/local/stream-poller.ts, which
 * behaves like it) and hands each batch here; each consumer gets, in stream order, the records its
 * filters match, and says which record it could not handle. The answer is Lambda's partial batch
 * response: the earliest failed record is where the batch resumes, every record after it included.
 *
 * So a consumer must be idempotent: any record may come again (a retry after another consumer's
 * failure, a redelivery after a crash, a batch bisected on error), and counting it twice is its
 * own bug to prevent (usage keeps a marker per event: lib/usage/aggregate.ts).
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logError } from '../log.ts';
import { type FilterPattern, matchesAny } from './filter.ts';

/** One change of one item, its images as plain values. */
export interface ChangeRecord {
  /** The record's position in its shard: the partial batch response names it. */
  sequenceNumber: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** The item after the change (INSERT, MODIFY). */
  newImage: Record<string, unknown> | undefined;
  /** The item before it (MODIFY, REMOVE). */
  oldImage: Record<string, unknown> | undefined;
}

export interface StreamConsumer {
  /** For logs. */
  name: string;
  /** The records it wants (Lambda filter patterns: any of them). */
  filters: readonly FilterPattern[];
  /**
   * Handles `records` (in stream order, each matching its filters). Returns the sequence number of
   * the first record it could not handle (that record and every later one come again), or
   * undefined when all are done. Throwing counts as failing at its first record.
   */
  handle(records: readonly ChangeRecord[]): Promise<string | undefined>;
}

const image = (value: Record<string, AttributeValue> | undefined) =>
  value ? unmarshall(value as Parameters<typeof unmarshall>[0]) : undefined;

export function changeRecordOf(record: DynamoDBRecord): ChangeRecord {
  return {
    sequenceNumber: String(record.dynamodb?.SequenceNumber),
    eventName: record.eventName ?? 'MODIFY',
    newImage: image(record.dynamodb?.NewImage),
    oldImage: image(record.dynamodb?.OldImage),
  };
}

/** Sequence numbers are decimal strings of up to 40 digits: compared as numbers, not as text. */
export const compareSequenceNumbers = (a: string, b: string): number => {
  const difference = BigInt(a) - BigInt(b);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
};

/** Hands one batch to every consumer (each its own records, at once) and answers the earliest failure. */
export async function dispatchBatch(event: DynamoDBStreamEvent, consumers: readonly StreamConsumer[]): Promise<DynamoDBBatchResponse> {
  const failures = await Promise.all(
    consumers.map(async (consumer) => {
      const wanted = event.Records.filter((record) => matchesAny(consumer.filters, record)).map(changeRecordOf);
      if (wanted.length === 0) return undefined;
      try {
        return await consumer.handle(wanted);
      } catch (error) {
        logError(`stream consumer ${consumer.name} failed; its records come again`, error, { records: wanted.length });
        return wanted[0]?.sequenceNumber;
      }
    }),
  );
  const earliest = failures.filter((failure): failure is string => failure !== undefined).sort(compareSequenceNumbers)[0];
  return { batchItemFailures: earliest === undefined ? [] : [{ itemIdentifier: earliest }] };
}
