/**
 * `npm start`: the whole service on this machine. DynamoDB Local (in memory, or on disk under
 * DATA_DIR), the table, a dev signing key, the demo workspace, and the real handlers behind a
 * small API Gateway stand-in on http://127.0.0.1:${PORT:-3000}. Ctrl-C stops all of it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../lib/db/create-table.ts';
import { startChargeSweeper } from '../lib/local/charge-sweeper.ts';
import { LOCAL_CREDENTIALS, type RunningDynamo, startDynamoDbLocal } from '../lib/local/dynamodb-local.ts';
import { DEMO, seedDemoWorkspace } from '../lib/local/seed.ts';
import { createLocalServer, loadHandlers } from '../lib/local/server.ts';
import { jwksOf, LOCAL_AUDIENCE, LOCAL_ISSUER, loadOrCreateSigningKey, signToken } from '../lib/local/signing-key.ts';
import { useLocalTable } from './local-env.ts';

const LOCAL_DIR = resolve('.local');
const TABLE_NAME = 'workspace-service-local';
const TOKEN_TTL_SECONDS = 24 * 3600;

async function main() {
  const port = Number(process.env.PORT ?? 3000);
  const dataDir = process.env.DATA_DIR ? resolve(process.env.DATA_DIR) : undefined;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  mkdirSync(LOCAL_DIR, { recursive: true });

  let dynamo: RunningDynamo | undefined;
  let server: Server | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    server?.close();
    await dynamo?.stop();
    rmSync(resolve(LOCAL_DIR, 'dev.json'), { force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  // `npm start` does not pass SIGTERM on through its shell: if the parent goes away, we are
  // orphaned, and stop rather than leave DynamoDB Local running.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void stop(0), 500).unref();

  dynamo = await startDynamoDbLocal(dataDir ? { dataDir } : {});
  const baseUrl = `http://127.0.0.1:${port}`;
  useLocalTable(dynamo.endpoint, TABLE_NAME);
  process.env.JWT_ISSUER = LOCAL_ISSUER;
  process.env.JWT_AUDIENCE = LOCAL_AUDIENCE;
  process.env.JWT_JWKS_URI = `${baseUrl}/.well-known/jwks.json`;
  process.env.SOCIAL_PROVIDER ??= 'sample';

  const admin = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  await ensureTable(admin, TABLE_NAME);
  admin.destroy();
  const demo = await seedDemoWorkspace();

  const key = loadOrCreateSigningKey(resolve(LOCAL_DIR, 'signing-key.json'));
  const listening = createLocalServer(await loadHandlers(), { jwks: jwksOf(key) });
  await new Promise<void>((done, fail) => {
    listening.once('error', fail);
    listening.listen(port, '127.0.0.1', done);
  });
  server = listening;
  // The deployed stack's scheduled sweeper, on an interval: refunds runs that can no longer finish.
  startChargeSweeper();

  const tokens = Object.fromEntries(
    Object.entries(DEMO.users).map(([role, sub]) => [
      role,
      signToken(key, { sub, issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, ttlSeconds: TOKEN_TTL_SECONDS }),
    ]),
  );
  const devInfo = {
    baseUrl,
    dynamodbEndpoint: dynamo.endpoint,
    tableName: TABLE_NAME,
    region: 'us-east-1',
    signingKeyFile: resolve(LOCAL_DIR, 'signing-key.json'),
    issuer: LOCAL_ISSUER,
    audience: LOCAL_AUDIENCE,
    organizationId: DEMO.orgId,
    users: DEMO.users,
    tokens,
    ...(demo ? { deleted: demo.deleted, live: demo.live } : {}),
  };
  writeFileSync(resolve(LOCAL_DIR, 'dev.json'), `${JSON.stringify(devInfo, null, 2)}\n`);

  console.log(`Workspace Service running at ${baseUrl}`);
  console.log(`DynamoDB Local at ${dynamo.endpoint} (${dataDir ? `data in ${dataDir}` : 'in memory'}), table ${TABLE_NAME}`);
  console.log(demo ? `Seeded demo workspace ${DEMO.orgId}` : `Demo workspace ${DEMO.orgId} already present in ${dataDir}`);
  console.log(`Demo tokens (valid ${TOKEN_TTL_SECONDS / 3600} h; ids, tokens and deleted resources in .local/dev.json):`);
  for (const [role, token] of Object.entries(tokens))
    console.log(`  ${role.padEnd(6)} ${DEMO.users[role as keyof typeof DEMO.users]}: ${token}`);
  console.log(
    `Try:\n  curl -s -H "Authorization: Bearer $(node -p "require('./.local/dev.json').tokens.owner")" ${baseUrl}/organizations/${DEMO.orgId}/billing/events`,
  );
  console.log('Ctrl-C stops the server and DynamoDB Local.');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
