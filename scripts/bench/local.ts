/**
 * The bench's own stack: a DynamoDB Local, a fresh table, a JWKS endpoint on 127.0.0.1 and a
 * signing key the verifier trusts, the local payments server and SES stand-in, with the
 * environment every route needs. Used by
 * `npm run bench` and `npm run bench:hot` (their tests use the test suite's own stack).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../lib/db/create-table.ts';
import { LOCAL_CREDENTIALS, startDynamoDbLocal } from '../../lib/local/dynamodb-local.ts';
import { type PaymentsServer, startPaymentsServer } from '../../lib/local/payments-server.ts';
import { startLocalSes } from '../../lib/local/ses-outbox.ts';
import { generateSigningKey, jwksOf, LOCAL_AUDIENCE, LOCAL_ISSUER, signToken } from '../../lib/local/signing-key.ts';
import { useLocalTable } from '../local-env.ts';

export interface BenchStack {
  /** A token for `userId`; with `email`, carrying it as a verified address (what accepting an invitation by its link needs). */
  tokenFor(userId: string, email?: string): string;
  /** The local payments server the service is pointed at (its webhook URL unset until a bench sets it). */
  payments: PaymentsServer;
  /** CPU time DynamoDB Local (its JVM) has used so far, in ms (NaN where /proc is not there). */
  dynamoCpuMs(): number;
  stop(): Promise<void>;
}

/** CPU time (user + system) a process has used, from Linux's /proc; NaN elsewhere. */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime, in clock ticks of 10 ms (fields 14 and 15 of proc(5)).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * The settings of the benches that load the stack with many runs at once (hot organization, jobs,
 * webhooks, usage, alerts, console), on top of startBenchStack's: no rate limit; a 30 s budget per
 * DynamoDB call, since DynamoDB Local serves a burst's commands one after the other, seconds for
 * the last ones (production's 4 s bound is not what they measure); logs silent unless
 * BENCH_LOG_LEVEL says otherwise. `npm run bench` keeps production's settings.
 */
export const UNDER_LOAD: Readonly<Record<string, string>> = {
  RATE_LIMIT_REQUESTS: String(1_000_000),
  DYNAMODB_CALL_TIMEOUT_MS: '30000',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
};

export async function startBenchStack(environment: Record<string, string>): Promise<BenchStack> {
  const dynamo = await startDynamoDbLocal();
  // Checkouts are made on the local payments server, as `npm start` makes them (docs/funding.md).
  const payments = await startPaymentsServer();
  // Invitations' email goes through SES's client to the local stand-in, as under `npm start`.
  const outboxDir = mkdtempSync(join(tmpdir(), 'bench-outbox-'));
  const ses = await startLocalSes(outboxDir);
  const key = generateSigningKey();
  const jwks = JSON.stringify(jwksOf(key));
  const jwksServer = createServer((_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(jwks));
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const address = jwksServer.address();
  const stop = async () => {
    jwksServer.close();
    await payments.close();
    await ses.close();
    rmSync(outboxDir, { recursive: true, force: true });
    await dynamo.stop();
  };
  try {
    useLocalTable(dynamo.endpoint, 'bench');
    Object.assign(process.env, {
      JWT_ISSUER: LOCAL_ISSUER,
      JWT_AUDIENCE: LOCAL_AUDIENCE,
      JWT_JWKS_URI: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/.well-known/jwks.json`,
      LOG_LEVEL: 'silent',
      SOCIAL_PROVIDER: 'sample',
      CURSOR_SIGNING_KEY: randomBytes(32).toString('hex'),
      OAUTH_SEALING_KEY: JSON.stringify({ kid: 'bench', key: randomBytes(32).toString('hex') }),
      MCP_CONSENT_KEY: JSON.stringify({ kid: 'bench', key: randomBytes(32).toString('hex') }),
      STRIPE_SECRET_KEY: payments.secretKey,
      STRIPE_API_BASE: payments.url,
      STRIPE_WEBHOOK_SECRET: payments.webhookSecret,
      API_KEY_SIGNING_KEY_PEM: key.privateKeyPem,
      SES_ENDPOINT: ses.endpoint,
      INVITATION_FROM_ADDRESS: 'invitations@workspace.localhost',
      ...environment,
    });
    const admin = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
    await ensureTable(admin, 'bench');
    admin.destroy();
  } catch (error) {
    await stop();
    throw error;
  }
  // One token per user for the bench's life (an hour): a client signs once and reuses it, and an
  // RS256 signature per request (about 5 ms of CPU) would be the bench's load, not the service's.
  const tokens = new Map<string, string>();
  const tokenFor = (userId: string, email?: string) => {
    const cacheKey = email === undefined ? userId : `${userId}\n${email}`;
    let token = tokens.get(cacheKey);
    if (token === undefined) {
      const extra = email === undefined ? undefined : { email, email_verified: true };
      token = signToken(key, { sub: userId, issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE, extra });
      tokens.set(cacheKey, token);
    }
    return token;
  };
  return { tokenFor, payments, dynamoCpuMs: () => processCpuMs(dynamo.pid), stop };
}
