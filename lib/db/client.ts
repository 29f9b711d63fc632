import { AsyncLocalStorage } from 'node:async_hooks';
import { type AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput, type TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { traced } from '../observability/tracer.ts';

let client: DynamoDBDocumentClient | undefined;

/** One document client per cold start (connection reuse); created on first use. */
export function db(): DynamoDBDocumentClient {
  if (!client) {
    const { region, dynamodbEndpoint } = config();
    // Each DynamoDB call is an X-Ray subsegment when the Tracer is bundled (lib/observability/tracer.ts).
    const base = traced(
      new DynamoDBClient({
        region,
        ...(dynamodbEndpoint ? { endpoint: dynamodbEndpoint } : {}),
        // A request path must fail fast rather than hang a Lambda on a stuck socket.
        maxAttempts: 3,
      }),
    );
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true },
    });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const barrier = writeBarrier.getStore();
        if (barrier && !READ_COMMANDS.has(String(context.commandName))) await barrier();
        return next(args);
      },
      { step: 'initialize', name: 'writeBarrier' },
    );
  }
  return client;
}

const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand', 'ScanCommand']);
const writeBarrier = new AsyncLocalStorage<() => Promise<void>>();

/**
 * Runs `work` so that every write it sends to the table first awaits `barrier`, while its
 * reads go out at once. The HTTP chain passes the rate-limit check as the barrier: a request
 * over its limit can read (alongside the counter, in the same round trip) but never write, and
 * no handler can forget to ask.
 */
export const withWriteBarrier = <T>(barrier: () => Promise<void>, work: () => Promise<T>): Promise<T> => writeBarrier.run(barrier, work);

export const tableName = (): string => config().tableName;

/** Every item a Query matches, following its pages (for partitions read whole: a user's memberships, a month's counters). */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** One item of a TransactWriteItems request (Put, Update, Delete or ConditionCheck). */
export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** Why one item of a cancelled transaction failed: its code, and its old item when asked for. */
export interface CancellationReason {
  Code?: string;
  Item?: Record<string, AttributeValue>;
}

/**
 * The cancellation reasons of a failed TransactWriteItems, one per item in request order, or null
 * if `error` is not a cancellation. Matched by name so that a cancellation from any copy of the
 * SDK (or an injected one in a test) is recognised.
 */
export function cancellationReasons(error: unknown): CancellationReason[] | null {
  if ((error as Error | null)?.name !== 'TransactionCanceledException') return null;
  return (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
}

/** The cancellation code of each transaction item, or null if `error` is not a cancellation. */
export const cancellationCodes = (error: unknown): (string | undefined)[] | null =>
  cancellationReasons(error)?.map((reason) => reason.Code) ?? null;
