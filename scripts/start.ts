/**
 * `npm start`: the whole service on this machine. DynamoDB Local (in memory, or on disk under
 * DATA_DIR), the table, a dev signing key, the demo workspace, and the real handlers behind a
 * small API Gateway stand-in on http://127.0.0.1:${PORT:-3000}. Ctrl-C stops all of it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { jwtConfig } from '../lib/config.ts';
import { ensureTable } from '../lib/db/create-table.ts';
import { LOCAL_CREDENTIALS, type RunningDynamo, startDynamoDbLocal } from '../lib/local/dynamodb-local.ts';
import { DEMO, seedDemoWorkspace } from '../lib/local/seed.ts';
import { createLocalServer, loadHandlers } from '../lib/local/server.ts';
import { jwksOf, LOCAL_AUDIENCE, LOCAL_CLIENT_ID, LOCAL_ISSUER, loadOrCreateSigningKey, signToken } from '../lib/local/signing-key.ts';
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

  const baseUrl = `http://127.0.0.1:${port}`;
  process.env.JWT_ISSUER = LOCAL_ISSUER;
  process.env.JWT_JWKS_URI = `${baseUrl}/.well-known/jwks.json`;
  // Which tokens the local verifier accepts is configuration, as deployed: ID-style tokens with
  // an `aud` in JWT_AUDIENCE, access tokens with a `client_id` in JWT_CLIENT_IDS (set either to
  // "" to turn that kind off). The demo tokens are made to match. Checked before anything starts.
  process.env.JWT_AUDIENCE ??= LOCAL_AUDIENCE;
  process.env.JWT_CLIENT_IDS ??= LOCAL_CLIENT_ID;
  const accepted = jwtConfig();
  process.env.SOCIAL_PROVIDER ??= 'sample';

  dynamo = await startDynamoDbLocal(dataDir ? { dataDir } : {});
  useLocalTable(dynamo.endpoint, TABLE_NAME);

  const admin = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  await ensureTable(admin, TABLE_NAME);
  admin.destroy();
  const demo = await seedDemoWorkspace();

  const key = loadOrCreateSigningKey(resolve(LOCAL_DIR, 'signing-key.json'));
  // Derived from the local signing key: stable across restarts (cursors stay valid), never shared.
  process.env.CURSOR_SIGNING_KEY ??= createHash('sha256').update(`billing-event cursors\n${key.privateKeyPem}`).digest('hex');
  const listening = createLocalServer(await loadHandlers(), { jwks: jwksOf(key) });
  await new Promise<void>((done, fail) => {
    listening.once('error', fail);
    listening.listen(port, '127.0.0.1', done);
  });
  server = listening;

  const [audience] = accepted.audiences;
  const [clientId] = accepted.clientIds;
  const demoTokens = (claims: { audience?: string; clientId?: string }) =>
    Object.fromEntries(
      Object.entries(DEMO.users).map(([role, sub]) => [
        role,
        signToken(key, { sub, issuer: LOCAL_ISSUER, ttlSeconds: TOKEN_TTL_SECONDS, ...claims }),
      ]),
    );
  // `tokens` carry `aud` when an audience is accepted, else they are access tokens.
  const tokens = audience ? demoTokens({ audience }) : demoTokens({ clientId: clientId! });
  const accessTokens = clientId ? demoTokens({ clientId }) : undefined;
  const devInfo = {
    baseUrl,
    dynamodbEndpoint: dynamo.endpoint,
    tableName: TABLE_NAME,
    region: 'us-east-1',
    signingKeyFile: resolve(LOCAL_DIR, 'signing-key.json'),
    issuer: LOCAL_ISSUER,
    // The first of each, which the demo tokens (and the admin CLI's `token`) carry.
    ...(audience ? { audience } : {}),
    ...(clientId ? { clientId } : {}),
    organizationId: DEMO.orgId,
    users: DEMO.users,
    tokens,
    ...(accessTokens ? { accessTokens } : {}),
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
  if (accessTokens) console.log('Access tokens (client_id, token_use: access) of the same users: accessTokens in .local/dev.json');
  const origins = process.env.CORS_ALLOWED_ORIGINS;
  console.log(origins ? `CORS allowed origins: ${origins}` : 'CORS off (set CORS_ALLOWED_ORIGINS to allow browser origins)');
  console.log('Ctrl-C stops the server and DynamoDB Local.');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
