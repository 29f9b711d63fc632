import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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
