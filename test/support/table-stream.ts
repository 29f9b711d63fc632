/**
 * The table's stream function fed from this file's table in DynamoDB Local by the local poller,
 * as `npm start` runs it: for tests that read usage. `catchUp()` waits until everything written
 * before it has been handed over.
 *
 * A file's table has no stream until the file asks for one here (test/support/setup-env.ts):
 * what is written before the first call is in no stream.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { handler, STREAM_CONSUMERS } from '../../functions/table-stream.ts';
import { enableStream } from '../../lib/db/create-table.ts';
import { LOCAL_CREDENTIALS } from '../../lib/local/dynamodb-local.ts';
import {
  type CheckpointStore,
  memoryCheckpoints,
  type OnFailureRecord,
  type StreamPollerOptions,
  startStreamPoller,
} from '../../lib/local/stream-poller.ts';

/** Turns this file's table's stream on (once): for a file whose stream another process reads. */
export async function turnOnTableStream(): Promise<void> {
  const client = new DynamoDBClient({
    endpoint: String(process.env.DYNAMODB_ENDPOINT),
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await enableStream(client, String(process.env.TABLE_NAME));
  } finally {
    client.destroy();
  }
}

export async function startTableStream(options: Partial<StreamPollerOptions> & { checkpoints?: CheckpointStore } = {}) {
  await turnOnTableStream();
  const failures: OnFailureRecord[] = [];
  const poller = startStreamPoller({
    endpoint: String(process.env.DYNAMODB_ENDPOINT),
    tableName: String(process.env.TABLE_NAME),
    credentials: LOCAL_CREDENTIALS,
    handler: (event) => handler(event),
    filters: STREAM_CONSUMERS.flatMap((consumer) => consumer.filters),
    checkpoints: memoryCheckpoints(),
    onFailure: (record) => void failures.push(record),
    pollIntervalMs: 50,
    retryDelayMs: 10,
    ...options,
  });
  return { ...poller, failures };
}
