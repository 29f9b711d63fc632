// Lambda runs Node 22; on the Node 20 of dev machines the SDK warns on every process start.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { LOCAL_CREDENTIALS } from '../lib/local/dynamodb-local.ts';

/** Points this process's AWS SDK and config at a DynamoDB Local table. */
export function useLocalTable(endpoint: string, tableName: string): void {
  process.env.TABLE_NAME = tableName;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
}
