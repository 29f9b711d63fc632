/**
 * `npm run bench:webhooks`: how late slow webhook receivers of some organizations make another
 * organization's work, on the local stack as `npm start` runs it (DynamoDB Local, the sample
 * provider, the embedded queues, the job worker and the webhook delivery with their defaults:
 * 8 job workers, 32 delivery slots, 4 per organization, a 10 s attempt deadline).
 *
 * Three scenarios, each then timing BENCH_WEBHOOKS_RUNS (5) 1-item jobs of a fresh organization
 * with a prompt receiver, one after the other: when the job ends, when its webhook arrives (both
 * from its creation):
 * - `none`: no slow receiver;
 * - `issue`: 8 receivers (two organizations' 4 jobs each) that answer 200 at once, then their body
 *   one byte every 2 s (issue 36's receiver);
 * - `held`: 16 receivers (four organizations' 4 jobs each) that send their status line one byte
 *   every 2 s, so every attempt is held to its deadline and retried.
 * Writes bench-output/webhooks.json; docs/scaling.md reads it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { type SlowReceiver, slowReceiver, type Trickle } from '../test/support/slow-receivers.ts';
import { startBenchStack, UNDER_LOAD } from './bench/local.ts';

const OUTPUT = join(import.meta.dirname, '..', 'bench-output');
const RUNS = Number(process.env.BENCH_WEBHOOKS_RUNS ?? 5);

async function main() {
  const loadAtStart = loadavg();
  const stack = await startBenchStack({
    ...UNDER_LOAD,
    JOBS_WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  const servers: (Server | SlowReceiver)[] = [];
  try {
    const { handler: createJob } = await import('../functions/create-social-job.ts');
    const { buildHttpEvent, localContext } = await import('../lib/local/apigw-event.ts');
    const { createOrganization } = await import('../lib/db/organizations.ts');
    const { addMembership } = await import('../lib/db/memberships.ts');
    const { getJob } = await import('../lib/db/jobs.ts');
    const { installEmbeddedQueues } = await import('../lib/local/embedded-queue.ts');
    const { startJobWorker } = await import('../lib/local/job-worker.ts');
    const { startWebhookDelivery } = await import('../lib/local/webhook-delivery.ts');
    installEmbeddedQueues();
    const stops = [startJobWorker(), startWebhookDelivery()];

    const organization = async () => {
      const orgId = `org_bench_${Math.random().toString(16).slice(2, 10)}`;
      const userId = `user_bench_${Math.random().toString(16).slice(2, 10)}`;
      await createOrganization({ id: orgId, credits: 1_000 });
      await addMembership({ orgId, userId, role: 'editor' });
      return { orgId, userId };
    };
    const submit = async (org: { orgId: string; userId: string }, webhookUrl: string) => {
      const event = buildHttpEvent({
        method: 'POST',
        path: '/social/x_profile/jobs',
        routeKey: 'POST /social/{operation}/jobs',
        rawQueryString: `organization_id=${org.orgId}`,
        headers: { authorization: `Bearer ${stack.tokenFor(org.userId)}`, 'content-type': 'application/json' },
        pathParameters: { operation: 'x_profile' },
        body: JSON.stringify({ inputs: [{ handle: 'nasa' }], webhook_url: webhookUrl }),
      });
      const result = (await createJob(event, localContext('bench'))) as { statusCode: number; body: string };
      if (result.statusCode !== 202) throw new Error(`job creation answered ${result.statusCode}: ${result.body}`);
      return (JSON.parse(result.body) as { id: string }).id;
    };
    /** A receiver answering 200 at once, noting when each request arrived. */
    const prompt = async () => {
      const arrivals: number[] = [];
      const server = createServer((request, response) => {
        request.resume().on('end', () => {
          arrivals.push(Date.now());
          response.writeHead(200).end();
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrivals };
    };
    /** One organization's 1-item job with a prompt receiver: ms from creation to its end, and to its webhook. */
    const timeOne = async () => {
      const receiver = await prompt();
      const org = await organization();
      const created = Date.now();
      const jobId = await submit(org, receiver.url);
      for (const give = created + 60_000; receiver.arrivals.length === 0 && Date.now() < give; )
        await new Promise((r) => setTimeout(r, 10));
      const job = await getJob(jobId);
      return { endedMs: Date.parse(job?.completed_at ?? '') - created, webhookMs: (receiver.arrivals[0] ?? Number.NaN) - created };
    };
    const scenario = async (slow: { organizations: number; jobsEach: number; trickle: Trickle } | null) => {
      if (slow) {
        const receiver = await slowReceiver(slow.trickle);
        servers.push(receiver);
        for (let o = 0; o < slow.organizations; o += 1) {
          const org = await organization();
          for (let j = 0; j < slow.jobsEach; j += 1) await submit(org, receiver.url);
        }
        // Every slow receiver has its request (and is holding it, or has answered).
        const want = slow.organizations * slow.jobsEach;
        for (const give = Date.now() + 30_000; receiver.connections.filter((c) => c.requestAt).length < want && Date.now() < give; )
          await new Promise((r) => setTimeout(r, 20));
      }
      const runs: { endedMs: number; webhookMs: number }[] = [];
      for (let run = 0; run < RUNS; run += 1) runs.push(await timeOne());
      const max = (key: 'endedMs' | 'webhookMs') => Math.max(...runs.map((r) => r[key]));
      return { runs, maxEndedMs: max('endedMs'), maxWebhookMs: max('webhookMs') };
    };

    await timeOne(); // warm-up: JWKS, connections, DynamoDB Local's JIT
    const none = await scenario(null);
    const issue = await scenario({ organizations: 2, jobsEach: 4, trickle: { phase: 'body', status: 200, intervalMs: 2_000, bytes: 45 } });
    const held = await scenario({ organizations: 4, jobsEach: 4, trickle: { phase: 'headers', intervalMs: 2_000, bytes: 45 } });
    const loadAtEnd = loadavg();
    const report = { runs: RUNS, none, issue, held, loadAverage: { start: loadAtStart[0], end: loadAtEnd[0] } };
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, 'webhooks.json'), `${JSON.stringify(report, null, 2)}\n`);
    const line = (name: string, result: typeof none) =>
      console.log(
        `${name.padEnd(48)} job ended ${result.runs.map((r) => r.endedMs).join(', ')} ms; webhook ${result.runs.map((r) => r.webhookMs).join(', ')} ms`,
      );
    console.log(`another organization's 1-item job, ${RUNS} runs each (ms from its creation):`);
    line('no slow receiver', none);
    line('8 receivers: 200, then a body byte every 2 s', issue);
    line('16 receivers: the status line a byte every 2 s', held);
    console.log(`load average ${loadAtStart[0]?.toFixed(2)} → ${loadAtEnd[0]?.toFixed(2)}; bench-output/webhooks.json`);
    for (const server of servers) 'closeAllConnections' in server ? server.closeAllConnections() : await server.close();
    await Promise.race([Promise.all(stops.map((stop) => stop())), new Promise((r) => setTimeout(r, 15_000))]);
  } finally {
    await stack.stop();
  }
  process.exit(0);
}

await main();
