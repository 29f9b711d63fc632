import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';

let client: DynamoDBDocumentClient | undefined;

/** One document client per cold start (connection reuse); created on first use. */
export function db(): DynamoDBDocumentClient {
  if (!client) {
    const { region, dynamodbEndpoint } = config();
    const base = new DynamoDBClient({
      region,
      ...(dynamodbEndpoint ? { endpoint: dynamodbEndpoint } : {}),
      // A request path must fail fast rather than hang a Lambda on a stuck socket.
      maxAttempts: 3,
    });
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }
  return client;
}

export const tableName = (): string => config().tableName;
