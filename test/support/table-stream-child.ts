/**
 * The table stream's poller and function in a process of their own, as `npm start` runs them, for
 * the tests that kill it (test/usage/stream-faults.test.ts, test/alerts/stream-kill.test.ts):
 * DynamoDB Local's stream of TABLE_NAME, checkpoints in CHECKPOINT_FILE, the on-failure
 * destination in FAILURES_FILE, this process's own embedded queues as under `npm start`. It prints
 * `committed` after each transaction the function's DynamoDB client sends, and `wrote <PK>` after
 * each other write to an item whose PK starts with ANNOUNCE_WRITES_TO (when set), then waits
 * COMMIT_PAUSE_MS (a fault injected at the SDK level: it widens the instants at which a kill lands
 * between two writes of one batch), and the function's JSON log lines. With WEBHOOK_DELIVERY=1 it
 * also delivers what it queues (retries WEBHOOK_BACKOFF_MS apart), as `npm start` does.
 */
import { handler, STREAM_CONSUMERS } from '../../functions/table-stream.ts';
import { db } from '../../lib/db/client.ts';
import { LOCAL_CREDENTIALS } from '../../lib/local/dynamodb-local.ts';
import { installEmbeddedQueues } from '../../lib/local/embedded-queue.ts';
import { fileCheckpoints, fileSink, startStreamPoller } from '../../lib/local/stream-poller.ts';
import { startWebhookDelivery } from '../../lib/local/webhook-delivery.ts';

const pauseMs = Number(process.env.COMMIT_PAUSE_MS ?? 0);
const announced = process.env.ANNOUNCE_WRITES_TO;
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);
/** The PK of a single-item write, as the document client or the low-level client spells it. */
const pkOf = (input: Record<string, any>): string | undefined => {
  const pk = (input.Key ?? input.Item)?.PK;
  return typeof pk === 'string' ? pk : pk?.S;
};

db().middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    const pk = pkOf(args.input as Record<string, any>);
    if (context.commandName === 'TransactWriteItemsCommand') process.stdout.write('committed\n');
    else if (announced && WRITES.has(context.commandName ?? '') && pk?.startsWith(announced)) process.stdout.write(`wrote ${pk}\n`);
    else return result;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    return result;
  },
  { step: 'initialize', name: 'announceCommits' },
);

installEmbeddedQueues();
if (process.env.WEBHOOK_DELIVERY === '1') startWebhookDelivery(undefined, { backoffMs: Number(process.env.WEBHOOK_BACKOFF_MS ?? 20) });
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
