/**
 * The table stream's poller and function in a process of their own, as `npm start` runs them, for
 * the test that kills it (test/usage/stream-faults.test.ts): DynamoDB Local's stream of
 * TABLE_NAME, checkpoints in CHECKPOINT_FILE, the on-failure destination in FAILURES_FILE. It
 * prints `committed` after each transaction the function's DynamoDB client sends, then waits
 * COMMIT_PAUSE_MS (a fault injected at the SDK level: it widens the instants at which a kill lands
 * between two transactions of one batch), and the function's JSON log lines.
 */
import { handler, STREAM_CONSUMERS } from '../../functions/table-stream.ts';
import { db } from '../../lib/db/client.ts';
import { LOCAL_CREDENTIALS } from '../../lib/local/dynamodb-local.ts';
import { fileCheckpoints, fileSink, startStreamPoller } from '../../lib/local/stream-poller.ts';

const pauseMs = Number(process.env.COMMIT_PAUSE_MS ?? 0);
db().middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    if (context.commandName === 'TransactWriteItemsCommand') {
      process.stdout.write('committed\n');
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    return result;
  },
  { step: 'initialize', name: 'announceCommits' },
);

startStreamPoller({
  endpoint: String(process.env.DYNAMODB_ENDPOINT),
  tableName: String(process.env.TABLE_NAME),
  credentials: LOCAL_CREDENTIALS,
  handler: (event) => handler(event),
  filters: STREAM_CONSUMERS.flatMap((consumer) => consumer.filters),
  checkpoints: fileCheckpoints(String(process.env.CHECKPOINT_FILE)),
  onFailure: fileSink(String(process.env.FAILURES_FILE)),
  pollIntervalMs: 50,
  log: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write('polling\n');
