/**
 * The unit tier's environment (vitest.config.ts): the settings the service's modules read at
 * import, and no database. The endpoint refuses every connection, so a test placed in this tier
 * that reaches for DynamoDB fails at once with ECONNREFUSED instead of waiting.
 */
import { randomUUID } from 'node:crypto';

Object.assign(process.env, {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
  TABLE_NAME: 'unit-tests-have-no-table',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  DYNAMODB_CALL_TIMEOUT_MS: '1000',
  JWT_ISSUER: 'https://issuer.unit.invalid/',
  JWT_AUDIENCE: 'workspace-service-unit',
  JWT_JWKS_URI: 'http://127.0.0.1:9/.well-known/jwks.json',
  CURSOR_SIGNING_KEY: randomUUID() + randomUUID(),
  // Its own key, never the cursor key (lib/oauth/sealing-key.ts); a file that rotates it sets its own.
  OAUTH_SEALING_KEY: JSON.stringify({ kid: 'test', key: randomUUID() + randomUUID() }),
  // The MCP consent token's key: its own too (lib/mcp/consent-token.ts).
  MCP_CONSENT_KEY: JSON.stringify({ kid: 'test', key: randomUUID() + randomUUID() }),
  LOG_LEVEL: 'silent',
  SOCIAL_PROVIDER: 'sample',
});
