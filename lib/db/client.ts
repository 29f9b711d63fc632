import { type AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
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
  }
  return client;
}

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
