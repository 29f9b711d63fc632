/**
 * The table's change stream function: the event source mapping of the table's stream invokes it
 * with a batch of records (infra/table-stream.ts); locally, lib/local/stream-poller.ts feeds it
 * DynamoDB Local's stream the same way. Not a route: no HTTP, no caller. It hands each batch to
 * the stream's consumers and answers Lambda's partial batch response (ReportBatchItemFailures).
 * A new consumer (alerts, …) is one more entry in STREAM_CONSUMERS: its filters join the event
 * source mapping's, and it gets the records they match.
 */
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { crossingsConsumer } from '../lib/alerts/crossings.ts';
import { grantsLedgerConsumer } from '../lib/billing/ledger.ts';
import { rechargeConsumer } from '../lib/billing/recharge.ts';
import { logger } from '../lib/log.ts';
import { healthConsumer } from '../lib/social/health/consumer.ts';
import { dispatchBatch, type StreamConsumer } from '../lib/stream/dispatch.ts';
import { usageConsumer } from '../lib/usage/aggregate.ts';

export const STREAM_CONSUMERS: readonly StreamConsumer[] = [
  usageConsumer,
  crossingsConsumer,
  grantsLedgerConsumer,
  rechargeConsumer,
  healthConsumer,
];

export const handler = async (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
  logger.resetKeys();
  if (context) logger.addContext(context);
  return dispatchBatch(event, STREAM_CONSUMERS);
};
