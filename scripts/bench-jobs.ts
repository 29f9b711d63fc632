/**
 * `npm run bench:jobs`: bulk jobs end to end on this machine, as `npm start` runs them (DynamoDB
 * Local, the sample provider, the embedded queue and the worker's own code), in two parts:
 *
 * 1. one organization's job of BENCH_JOBS_ITEMS inputs (default 1,000), created through the
 *    route's handler and run by BENCH_JOBS_CONCURRENCY receivers (default the worker's, 8): wall
 *    time from the 202 to the job's end, items per second, DynamoDB commands and sequential round
 *    trips per item, the queue's latency (send to first receive), and the money checked exact
 *    (balance = grants − the job's charges, every item charged once);
 * 2. fairness: one organization's 1,000-item job, then four others' 5-item jobs a moment later:
 *    when each job ends (the small ones must not wait for the big one).
 *
 * BENCH_JOBS_MAX_CREDITS gives the big job a `max_credits` (at or above its cost it refuses nothing:
 * what holding the cap costs, one more item in each charge transaction on the job's record).
 *
 * Exits 1 when the 1,000-item job takes more than 30 s or the money is off. Writes
 * bench-output/jobs.json; docs/performance.md and docs/scaling.md read it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { JobMessage } from '../lib/jobs/queue.ts';
import { startBenchStack, UNDER_LOAD } from './bench/local.ts';

const OUTPUT = join(import.meta.dirname, '..', 'bench-output');
const ITEMS = Number(process.env.BENCH_JOBS_ITEMS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_JOBS_CONCURRENCY ?? 8);
const LIMIT_MS = 30_000;
/** BENCH_JOBS_MAX_CREDITS: the big job's `max_credits` (a cap at or above its cost refuses nothing, and measures what holding it costs). */
const MAX_CREDITS = process.env.BENCH_JOBS_MAX_CREDITS === undefined ? undefined : Number(process.env.BENCH_JOBS_MAX_CREDITS);

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

async function main() {
  const loadAtStart = loadavg();
  const stack = await startBenchStack({
    ...UNDER_LOAD,
    JOBS_WORKER_CONCURRENCY: String(CONCURRENCY),
  });
  let failed = false;
  try {
    const { handler: createJob } = await import('../functions/create-social-job.ts');
    const { buildHttpEvent, localContext } = await import('../lib/local/apigw-event.ts');
    const { createOrganization, getOrganization } = await import('../lib/db/organizations.ts');
    const { addMembership } = await import('../lib/db/memberships.ts');
    const { getJob } = await import('../lib/db/jobs.ts');
    const { embeddedQueue, installEmbeddedQueues } = await import('../lib/local/embedded-queue.ts');
    const { handleJobMessage } = await import('../lib/jobs/worker.ts');
    const { db } = await import('../lib/db/client.ts');
    const { recordRequests } = await import('../lib/db/round-trips.ts');
    const { findOperation } = await import('../lib/social/operations.ts');
    const cost = findOperation('x_profile').cost;

    installEmbeddedQueues();
    const queue = embeddedQueue<JobMessage>('jobs');
    const waits: number[] = [];
    queue.onFirstReceive = (waitedMs) => waits.push(waitedMs);
    const recorder = recordRequests(db());
    let commands = 0;
    let waves = 0;
    let itemMessages = 0;
    const stop = queue.consume(
      async (message) => {
        const { result, log } = await recorder.record(() => handleJobMessage(message));
        if (message.kind === 'item') {
          itemMessages += 1;
          commands += log.sent.length;
          waves += log.sequential;
        }
        return result;
      },
      { concurrency: CONCURRENCY, visibilityTimeoutMs: 60_000 },
    );

    const organization = async (credits: number) => {
      const orgId = `org_bench_${Math.random().toString(16).slice(2, 10)}`;
      const userId = `user_bench_${Math.random().toString(16).slice(2, 10)}`;
      await createOrganization({ id: orgId, credits });
      await addMembership({ orgId, userId, role: 'editor' });
      return { orgId, userId };
    };
    const submit = async (orgId: string, userId: string, items: number, maxCredits?: number) => {
      const inputs = Array.from({ length: items }, (_, i) => ({ handle: `creator${i}` }));
      const event = buildHttpEvent({
        method: 'POST',
        path: '/social/x_profile/jobs',
        routeKey: 'POST /social/{operation}/jobs',
        rawQueryString: `organization_id=${orgId}`,
        headers: { authorization: `Bearer ${stack.tokenFor(userId)}`, 'content-type': 'application/json' },
        pathParameters: { operation: 'x_profile' },
        body: JSON.stringify({ inputs, ...(maxCredits === undefined ? {} : { max_credits: maxCredits }) }),
      });
      const started = performance.now();
      const result = (await createJob(event, localContext('bench'))) as { statusCode: number; body: string };
      if (result.statusCode !== 202) throw new Error(`job creation answered ${result.statusCode}: ${result.body}`);
      return { id: (JSON.parse(result.body) as { id: string }).id, started, createMs: performance.now() - started };
    };
    const ended = async (jobId: string, started: number) => {
      for (;;) {
        const job = await getJob(jobId);
        if (job && (job.status === 'completed' || job.status === 'cancelled')) return { job, ms: performance.now() - started };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    // A warm-up job: JWKS fetch, connections, and above all the JIT of DynamoDB Local's JVM, whose
    // first few thousand transactions are markedly slower (reported, not judged).
    const WARM_ITEMS = Number(process.env.BENCH_JOBS_WARMUP ?? 300);
    const warm = await organization(WARM_ITEMS * cost);
    const warmJob = await submit(warm.orgId, warm.userId, WARM_ITEMS);
    const warmEnd = await ended(warmJob.id, warmJob.started);
    const warmUp = { items: WARM_ITEMS, wallMs: Math.round(warmEnd.ms), itemsPerSecond: Math.round((WARM_ITEMS / warmEnd.ms) * 1000) };
    commands = 0;
    waves = 0;
    itemMessages = 0;
    waits.length = 0;

    // 1. One big job.
    const big = await organization(ITEMS * cost + 10);
    const submitted = await submit(big.orgId, big.userId, ITEMS, MAX_CREDITS);
    const done = await ended(submitted.id, submitted.started);
    const balance = (await getOrganization(big.orgId))?.credits;
    const moneyExact = done.job.succeeded === ITEMS && done.job.charged === ITEMS * cost && balance === 10;
    const single = {
      items: ITEMS,
      concurrency: CONCURRENCY,
      maxCredits: MAX_CREDITS ?? null,
      createMs: Math.round(submitted.createMs),
      wallMs: Math.round(done.ms),
      itemsPerSecond: Math.round((ITEMS / done.ms) * 1000),
      commandsPerItem: Number((commands / itemMessages).toFixed(2)),
      roundTripsPerItem: Number((waves / itemMessages).toFixed(2)),
      queueWaitMs: { p50: Math.round(percentile(waits, 50)), p99: Math.round(percentile(waits, 99)), max: Math.round(Math.max(...waits)) },
      redelivered: queue.stats.redelivered,
      succeeded: done.job.succeeded,
      failed: done.job.failed,
      charged: done.job.charged,
      balanceExact: moneyExact,
    };
    failed ||= !moneyExact || done.ms > LIMIT_MS;

    // 2. Fairness: a big job, then four small ones from other organizations.
    const tenants = await Promise.all([organization(ITEMS * cost), ...Array.from({ length: 4 }, () => organization(100))]);
    const [first, ...others] = tenants;
    if (!first) throw new Error('no organization');
    const bigJob = await submit(first.orgId, first.userId, ITEMS);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const small = await Promise.all(others.map((tenant) => submit(tenant.orgId, tenant.userId, 5)));
    const smallEnds = await Promise.all(small.map((job) => ended(job.id, job.started)));
    const bigEnd = await ended(bigJob.id, bigJob.started);
    const fairness = {
      bigJobMs: Math.round(bigEnd.ms),
      smallJobsMs: smallEnds.map((end) => Math.round(end.ms)),
      smallEndedBeforeBig: smallEnds.every((end, i) => (small[i]?.started ?? 0) + end.ms < bigJob.started + bigEnd.ms),
    };
    failed ||= !fairness.smallEndedBeforeBig;

    await stop();
    recorder.stop();
    const loadAtEnd = loadavg();
    const report = { warmUp, single, fairness, loadAverage: { start: loadAtStart[0], end: loadAtEnd[0] }, failed };
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, 'jobs.json'), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`warm-up (a cold DynamoDB Local): ${warmUp.items} items in ${warmUp.wallMs} ms, ${warmUp.itemsPerSecond} items/s`);
    console.log(`one job of ${ITEMS} items, ${CONCURRENCY} receivers (sample provider, DynamoDB Local):`);
    console.log(`  created in ${single.createMs} ms (202), ended ${single.wallMs} ms after: ${single.itemsPerSecond} items/s`);
    console.log(`  per item: ${single.commandsPerItem} DynamoDB commands in ${single.roundTripsPerItem} sequential round trips`);
    console.log(
      `  queue wait (send to first receive): p50 ${single.queueWaitMs.p50} ms, p99 ${single.queueWaitMs.p99} ms, max ${single.queueWaitMs.max} ms`,
    );
    console.log(
      `  ${single.succeeded} succeeded, ${single.failed} failed, ${single.charged} credits charged; balance exact: ${single.balanceExact}`,
    );
    console.log(
      `fairness: a ${ITEMS}-item job ended in ${fairness.bigJobMs} ms; four 5-item jobs sent 200 ms after it ended in ${fairness.smallJobsMs.join(', ')} ms`,
    );
    console.log(`load average ${loadAtStart[0]?.toFixed(2)} → ${loadAtEnd[0]?.toFixed(2)}; bench-output/jobs.json`);
    if (done.ms > LIMIT_MS) console.log(`FAILED: the ${ITEMS}-item job took more than ${LIMIT_MS / 1000} s`);
    if (!moneyExact) console.log('FAILED: the money is off');
    if (!fairness.smallEndedBeforeBig) console.log('FAILED: a small job waited for the big one');
  } finally {
    await stack.stop();
  }
  process.exit(failed ? 1 : 0);
}

await main();
