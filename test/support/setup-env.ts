/**
 * Runs in each test file's worker before the file is imported: points the service at its own
 * fresh table in the shared DynamoDB Local, at the test JWKS and at the sample provider: the one
 * place the tests' environment is set. A file that needs other settings (a small rate limit, the
 * http provider) sets process.env and then imports the service dynamically, saying why.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { createTable } from '../../lib/db/create-table.ts';
import { LOCAL_CREDENTIALS } from '../../lib/local/dynamodb-local.ts';
import { useEmbeddedQueues } from './local-queues.ts';
import { TEST_AUDIENCE, TEST_CLIENT_ID, TEST_ISSUER } from './tokens.ts';

const tableName = `test-${randomUUID()}`;
Object.assign(process.env, {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
  JWT_ISSUER: TEST_ISSUER,
  JWT_AUDIENCE: TEST_AUDIENCE,
  JWT_CLIENT_IDS: TEST_CLIENT_ID,
  JWT_JWKS_URI: inject('jwksUri'),
  CURSOR_SIGNING_KEY: randomUUID() + randomUUID(),
  // Its own key, never the cursor key (lib/oauth/sealing-key.ts); a file that rotates it sets its own.
  OAUTH_SEALING_KEY: JSON.stringify({ kid: 'test', key: randomUUID() + randomUUID() }),
  // The MCP consent token's key: its own too (lib/mcp/consent-token.ts).
  MCP_CONSENT_KEY: JSON.stringify({ kid: 'test', key: randomUUID() + randomUUID() }),
  // The test key signs API keys too, as the dev key does for `npm start`.
  API_KEY_SIGNING_KEY_PEM: inject('signingKey').privateKeyPem,
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  // The deterministic provider, for every file; a file that tests another sets its own before
  // importing the service (test/social/http-provider.test.ts).
  SOCIAL_PROVIDER: 'sample',
  // Breakers that never trip on a file's deliberate failures; the failover tests set their own
  // (test/social/failover.test.ts), and the instances' shared view is read before every check there only.
  HEALTH_BREAKER_MIN_FAILURES: '1000000',
  // Generous, so that a busy machine's DynamoDB Local cannot fail a test by timing out; the
  // bound itself is tested with a short one (test/hung-database.test.ts).
  DYNAMODB_CALL_TIMEOUT_MS: '30000',
  // Webhook receivers are real servers on 127.0.0.1, as under `npm start` (deployed: refused).
  JOBS_WEBHOOK_ALLOW_LOOPBACK: 'true',
  // OAuth clients register (and their documents are fetched) from 127.0.0.1 by the dozen in a
  // file; the limit per address itself is tested with a small one (test/oauth/address-limit.test.ts).
  OAUTH_CLIENT_RATE_LIMIT: '1000000',
});

// The queues are this process's own embedded ones, as under `npm start` (deployed: SQS).
await useEmbeddedQueues();

// One client per worker for the files' tables (the SDK's packages are the worker's anyway), and no
// DescribeTable first: the name is new. Without the table's stream: a file that reads it turns it
// on (test/support/table-stream.ts).
const TABLES_CLIENT = Symbol.for('workspace-service.test.tables-client');
const worker = globalThis as typeof globalThis & { [TABLES_CLIENT]?: DynamoDBClient };
worker[TABLES_CLIENT] ??= new DynamoDBClient({ endpoint: inject('dynamodbEndpoint'), region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
await createTable(worker[TABLES_CLIENT], tableName, { stream: false });
