/**
 * The table's stream function fed from this file's table in DynamoDB Local by the local poller,
 * as `npm start` runs it: for tests that read usage. `catchUp()` waits until everything written
 * before it has been handed over.
 *
 * A file's table has no stream until the file asks for one here (test/support/setup-env.ts):
 * what is written before the first call is in no stream.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { handler, STREAM_CONSUMERS } from '../../functions/table-stream.ts';
import { enableStream } from '../../lib/db/create-table.ts';
import { LOCAL_CREDENTIALS } from '../../lib/local/dynamodb-local.ts';
import {
  type CheckpointStore,
  memoryCheckpoints,
  type OnFailureRecord,
  type StreamPoller,
  type StreamPollerOptions,
  startStreamPoller,
} from '../../lib/local/stream-poller.ts';
import { REPO, TSX } from './processes.ts';

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

/** Longer than any catch-up of a passing test, shorter than the test's own timeout (20 s). */
const CATCH_UP_LIMIT_MS = 15_000;

/**
 * `poller.catchUp()`, or an error after 15 s naming the step the poller is in and the last lines
 * it said (`said`): a whole file of alert tests once timed out at 20 s each with nothing to say why.
 */
export async function catchUpOrSay(poller: StreamPoller, said: readonly string[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const lines = said.slice(-10).join('\n  ') || '(nothing)';
      reject(
        new Error(
          `the table stream did not catch up within ${CATCH_UP_LIMIT_MS} ms; the poller is at ${poller.waitingOn()}; it last said:\n  ${lines}`,
        ),
      );
    }, CATCH_UP_LIMIT_MS);
  });
  try {
    await Promise.race([poller.catchUp(), late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function startTableStream(options: Partial<StreamPollerOptions> & { checkpoints?: CheckpointStore } = {}) {
  await turnOnTableStream();
  const failures: OnFailureRecord[] = [];
  const said: string[] = [];
  const poller = startStreamPoller({
    log: (line) => void said.push(`${new Date().toISOString()} ${line}`),
    endpoint: String(process.env.DYNAMODB_ENDPOINT),
    tableName: String(process.env.TABLE_NAME),
    credentials: LOCAL_CREDENTIALS,
    handler: (event) => handler(event),
    filters: STREAM_CONSUMERS.flatMap((consumer) => consumer.filters),
    checkpoints: memoryCheckpoints(),
    onFailure: (record) => void failures.push(record),
    retryDelayMs: 10,
    ...options,
  });
  return { ...poller, catchUp: () => catchUpOrSay(poller, said), failures, said };
}

/**
 * The stream's poller and function in a child process of their own (test/support/table-stream-child.ts),
 * for a test that kills it: its checkpoints and on-failure destination in `dir`, `env` its settings
 * (COMMIT_PAUSE_MS, ANNOUNCE_WRITES_TO, WEBHOOK_DELIVERY, LOG_LEVEL). `output()`: what it printed.
 */
export function spawnTableStreamChild(dir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', TSX, `${REPO}test/support/table-stream-child.ts`], {
    cwd: REPO,
    env: { ...process.env, CHECKPOINT_FILE: join(dir, 'checkpoint.json'), FAILURES_FILE: join(dir, 'failures.jsonl'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}
