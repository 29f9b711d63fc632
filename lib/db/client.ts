import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { type AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
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

/** Attempts of a transaction that loses to concurrent ones (TransactionConflict). */
export const MAX_ATTEMPTS = 8;

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));

/**
 * Runs a transaction, retrying (with jitter) when it loses to a concurrent one. `onCancelled`
 * turns the cancellation reasons into the error to throw at once (a refusal), or null.
 */
export async function transact(items: TransactItem[], onCancelled: (reasons: CancellationReason[]) => Error | null): Promise<void> {
  // One token for all attempts: an SDK-level resend of a committed transaction is a no-op.
  const token = randomUUID();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: token }));
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      const refused = reasons ? onCancelled(reasons) : null;
      if (refused) throw refused;
      const conflict = reasons?.some((reason) => reason.Code === 'TransactionConflict') ?? false;
      if (!conflict || attempt >= MAX_ATTEMPTS) throw error;
      await pause(attempt);
    }
  }
}

/** Whether item `index` of a cancelled transaction failed its condition. */
export const conditionFailed = (reasons: CancellationReason[], index: number): boolean => reasons[index]?.Code === 'ConditionalCheckFailed';
