/**
 * The table's stream function fed from this file's table in DynamoDB Local by the local poller,
 * as `npm start` runs it: for tests that read usage. `catchUp()` waits until everything written
 * before it has been handed over.
 */
import { handler, STREAM_CONSUMERS } from '../../functions/table-stream.ts';
import { LOCAL_CREDENTIALS } from '../../lib/local/dynamodb-local.ts';
import {
  type CheckpointStore,
  memoryCheckpoints,
  type OnFailureRecord,
  type StreamPollerOptions,
  startStreamPoller,
} from '../../lib/local/stream-poller.ts';

export function startTableStream(options: Partial<StreamPollerOptions> & { checkpoints?: CheckpointStore } = {}) {
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
