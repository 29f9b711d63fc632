/**
 * `npm run bench`: in-process latency of the handlers against DynamoDB Local, through their whole
 * middy chain (JWT verification included), with the DynamoDB commands each request sends.
 * Figures are for comparing changes on one machine, not absolute promises.
 */

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../lib/db/create-table.ts';
import { LOCAL_CREDENTIALS, startDynamoDbLocal } from '../lib/local/dynamodb-local.ts';
import { generateSigningKey, jwksOf, LOCAL_AUDIENCE, LOCAL_ISSUER, signToken } from '../lib/local/signing-key.ts';
import { useLocalTable } from './local-env.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function main() {
  const dynamo = await startDynamoDbLocal();
  const key = generateSigningKey();
  const jwks = JSON.stringify(jwksOf(key));
  const jwksServer = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(jwks));
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const address = jwksServer.address();
  try {
    useLocalTable(dynamo.endpoint, 'bench');
    Object.assign(process.env, {
      JWT_ISSUER: LOCAL_ISSUER,
      JWT_AUDIENCE: LOCAL_AUDIENCE,
      JWT_JWKS_URI: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/.well-known/jwks.json`,
      RATE_LIMIT_REQUESTS: String(ITERATIONS * 10),
      CURSOR_SIGNING_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'silent',
    });
    const admin = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
    await ensureTable(admin, 'bench');
    admin.destroy();

    const { createOrganization, applyBillingEvent } = await import('../lib/db/organizations.ts');
    const { addMembership } = await import('../lib/db/memberships.ts');
    const { newBillingEvent } = await import('../lib/db/billing-events.ts');
    const { db } = await import('../lib/db/client.ts');
    const { buildHttpEvent, localContext } = await import('../lib/local/apigw-event.ts');
    const { handler } = await import('../functions/list-billing-events.ts');

    await createOrganization({ id: 'org_bench', credits: 0 });
    await addMembership({ orgId: 'org_bench', userId: 'bench_owner', role: 'owner' });
    for (let i = 0; i < 200; i += 1) {
      await applyBillingEvent(
        'org_bench',
        newBillingEvent({ type: 'credits.granted', title: 't', description: 'd', amount: 1, now: new Date(Date.now() - i * 3_600_000) }),
      );
    }
    const token = signToken(key, { sub: 'bench_owner', issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE });

    const commands: string[] = [];
    db().middlewareStack.add(
      (next, context) => async (args) => {
        commands.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'bench-counter' },
    );

    const request = () =>
      handler(
        buildHttpEvent({
          method: 'GET',
          path: '/organizations/org_bench/billing/events',
          routeKey: 'GET /organizations/{organization_id}/billing/events',
          rawQueryString: 'days=30&limit=100',
          headers: { authorization: `Bearer ${token}` },
          pathParameters: { organization_id: 'org_bench' },
        }),
        localContext('bench') as never,
      );
    for (let i = 0; i < 20; i += 1) await request(); // warm-up: JWKS fetch, connections, JIT
    commands.length = 0;
    const timings: number[] = [];
    for (let i = 0; i < ITERATIONS; i += 1) {
      const start = performance.now();
      const result = (await request()) as { statusCode: number };
      timings.push(performance.now() - start);
      if (result.statusCode !== 200) throw new Error(`unexpected status ${result.statusCode}`);
    }
    timings.sort((a, b) => a - b);
    console.log(
      `GET /organizations/{id}/billing/events?limit=100 (100 events returned), ${ITERATIONS} sequential requests on DynamoDB Local`,
    );
    console.log(
      `  p50 ${percentile(timings, 50).toFixed(1)} ms   p95 ${percentile(timings, 95).toFixed(1)} ms   p99 ${percentile(timings, 99).toFixed(1)} ms`,
    );
    console.log(`  DynamoDB commands per request: ${(commands.length / ITERATIONS).toFixed(2)} (${[...new Set(commands)].join(', ')})`);
  } finally {
    jwksServer.close();
    await dynamo.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
