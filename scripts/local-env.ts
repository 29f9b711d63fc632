import { LOCAL_CREDENTIALS } from '../lib/local/dynamodb-local.ts';

/** Points this process's AWS SDK and config at a DynamoDB Local table. */
export function useLocalTable(endpoint: string, tableName: string): void {
  process.env.TABLE_NAME = tableName;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
}
