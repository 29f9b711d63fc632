/**
 * `npm run bench:usage-freshness`: how soon a charge shows in usage on the local stack. Paid runs
 * (sample provider) go through the real run handler at FRESHNESS_RATE runs a second (default 50)
 * for FRESHNESS_SECONDS (default 20), spread over 20 editors of one organization, while the
 * table's stream is read into its function by the local poller exactly as `npm start` runs it
 * (poll interval TABLE_STREAM_POLL_MS, default 250 ms), and an owner reads the usage route every
 * 100 ms. The k-th charge (by its billing event's `created_at`) is visible from the first read
 * that counts k runs; its freshness is that read's time less its `created_at` (stamped just
 * before the charge's transaction is sent: on a saturated DynamoDB Local that includes the wait
 * for the commit), and, as a caller sees it, less the time its run answered (0 when it was
 * visible first). Both include the read's own interval.
 *
 * Measured on a warm stack, as `npm start` serves after its first minute: FRESHNESS_WARMUP_RUNS
 * runs (default 300) at 20 a second in another organization first, their records read to the
 * end, because a fresh DynamoDB Local's JVM is up to four times slower for its first thousands
 * of requests (JIT compiling). Reports the CPU time a run costs the bench's process (the handlers,
 * the poller and its function, the reader) and DynamoDB Local over the load: what 50 runs a second
 * ask of the machine's cores (docs/performance.md). Writes bench-output/usage-freshness.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startBenchStack, UNDER_LOAD } from './bench/local.ts';
import { percentile } from './bench/stats.ts';
import { startBenchStream } from './bench/stream.ts';

const OUTPUT = join(import.meta.dirname, '..', 'bench-output');
const rate = Number(process.env.FRESHNESS_RATE ?? 50);
const seconds = Number(process.env.FRESHNESS_SECONDS ?? 20);
const READ_EVERY_MS = 100;
const EDITORS = 20;
const warmupRuns = Number(process.env.FRESHNESS_WARMUP_RUNS ?? 300);
const WARMUP_RATE = 20;

async function main() {
  const loadAtStart = loadavg();
  const stack = await startBenchStack(UNDER_LOAD);
  try {
    const [{ handler: run }, { handler: usage }, { buildHttpEvent, localContext }, org] = await Promise.all([
      import('../functions/run-social-operation.ts'),
      import('../functions/get-usage.ts'),
      import('../lib/local/apigw-event.ts'),
      import('./bench/freshness-org.ts'),
    ]);
    const { orgId, owner, editors } = await org.freshnessOrganization(EDITORS);
    const warmup = await org.freshnessOrganization(EDITORS);
    const stream = await startBenchStream();
    const invoke = (handler: typeof run | typeof usage, event: ReturnType<typeof buildHttpEvent>, name: string) =>
      (handler as (e: typeof event, c: ReturnType<typeof localContext>) => Promise<{ statusCode?: number; body?: string }>)(
        event,
        localContext(name),
      );
    const runEvent = (i: number, where = { orgId, editors }) =>
      buildHttpEvent({
        method: 'POST',
        path: '/social/x_profile',
        routeKey: 'POST /social/{operation}',
        rawQueryString: `organization_id=${where.orgId}`,
        pathParameters: { operation: 'x_profile' },
        headers: {
          authorization: `Bearer ${stack.tokenFor(where.editors[i % where.editors.length] ?? owner)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ handle: `nasa${i % 7}` }),
      });
    const warmupStartedAt = Date.now();
    const warming: Promise<unknown>[] = [];
    for (let i = 0; i < warmupRuns; i += 1) {
      const wait = warmupStartedAt + (i * 1000) / WARMUP_RATE - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      warming.push(invoke(run, runEvent(i, warmup), 'RunSocialOperation'));
    }
    await Promise.all(warming);
    await stream.catchUp();
    const dayMs = 86_400_000;
    const fromMs = Math.floor(Date.now() / dayMs) * dayMs;
    const usageEvent = buildHttpEvent({
      method: 'GET',
      path: `/organizations/${orgId}/usage`,
      routeKey: 'GET /organizations/{organization_id}/usage',
      rawQueryString: `from=${new Date(fromMs).toISOString()}&to=${new Date(fromMs + 2 * dayMs).toISOString()}`,
      pathParameters: { organization_id: orgId },
      headers: { authorization: `Bearer ${stack.tokenFor(owner)}` },
    });
    const nodeCpuAtStart = process.cpuUsage();
    const dynamoCpuAtStart = stack.dynamoCpuMs();
    const reads: { atMs: number; runs: number }[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const result = await invoke(usage, usageEvent, 'GetUsage');
        const atMs = Date.now();
        const body = JSON.parse(result.body ?? '{}') as { buckets?: { results: { runs: number }[] }[] };
        reads.push({ atMs, runs: (body.buckets ?? []).flatMap((bucket) => bucket.results).reduce((sum, each) => sum + each.runs, 0) });
        await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
      }
    })();

    // The load: one run every 1000 / rate ms, each sent on time whatever the others are doing.
    const total = rate * seconds;
    const startedAt = Date.now();
    const runs: Promise<{ status: number; ms: number }>[] = [];
    const answeredAt = new Map<string, number>();
    for (let i = 0; i < total; i += 1) {
      const due = startedAt + (i * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sentAt = performance.now();
      runs.push(
        invoke(run, runEvent(i), 'RunSocialOperation').then((result) => {
          const chargeId = (result as { headers?: Record<string, unknown> }).headers?.['Charge-Id'];
          if (typeof chargeId === 'string') answeredAt.set(chargeId, Date.now());
          if (result.statusCode !== 200 && process.env.FRESHNESS_VERBOSE) console.error(result.statusCode, result.body);
          return { status: result.statusCode ?? 0, ms: performance.now() - sentAt };
        }),
      );
    }
    const answered = await Promise.all(runs);
    const sendingMs = Date.now() - startedAt;
    const ok = answered.filter((answer) => answer.status === 200).length;
    const giveUpAt = Date.now() + 30_000;
    while ((reads.at(-1)?.runs ?? 0) < ok && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
    reading = false;
    await reader;
    const cpuMs = {
      node: (({ user, system }) => (user + system) / 1000)(process.cpuUsage(nodeCpuAtStart)),
      dynamo: stack.dynamoCpuMs() - dynamoCpuAtStart,
    };
    const loadMs = Date.now() - startedAt;
    await stream.stop();

    const charges = (await org.charges(orgId)).sort((a, b) => a.atMs - b.atMs);
    const seenAt = charges.map((_, k) => reads.find((read) => read.runs >= k + 1)?.atMs ?? Number.POSITIVE_INFINITY);
    const freshness = charges.map((charge, k) => (seenAt[k] ?? Number.POSITIVE_INFINITY) - charge.atMs);
    const sorted = [...freshness].sort((a, b) => a - b);
    const afterAnswer = charges
      .flatMap((charge, k) => {
        const answered = answeredAt.get(charge.id);
        return answered === undefined ? [] : [Math.max(0, (seenAt[k] ?? Number.POSITIVE_INFINITY) - answered)];
      })
      .sort((a, b) => a - b);
    const runMs = answered.map((answer) => answer.ms).sort((a, b) => a - b);
    const result = {
      startedAt: new Date(startedAt).toISOString(),
      node: process.version,
      load: { start: loadAtStart, end: loadavg() },
      rate: { asked: rate, achieved: Number((total / (sendingMs / 1000)).toFixed(1)) },
      runs: {
        sent: total,
        ok,
        failed: total - ok,
        statuses: Object.fromEntries(
          [...new Set(answered.map((answer) => answer.status))].map((status) => [
            status,
            answered.filter((answer) => answer.status === status).length,
          ]),
        ),
        p50Ms: Math.round(percentile(runMs, 50)),
        p95Ms: Math.round(percentile(runMs, 95)),
      },
      charges: charges.length,
      freshnessMs: {
        p50: Math.round(percentile(sorted, 50)),
        p95: Math.round(percentile(sorted, 95)),
        p99: Math.round(percentile(sorted, 99)),
        max: Math.round(sorted.at(-1) ?? Number.NaN),
        neverSeen: freshness.filter((ms) => !Number.isFinite(ms)).length,
      },
      afterAnswerMs: {
        p50: Math.round(percentile(afterAnswer, 50)),
        p95: Math.round(percentile(afterAnswer, 95)),
        p99: Math.round(percentile(afterAnswer, 99)),
        max: Math.round(afterAnswer.at(-1) ?? Number.NaN),
      },
      // CPU per run from the load's start until every run was visible (the catching up included).
      cpuPerRunMs: { node: Math.round(cpuMs.node / total), dynamodbLocal: Math.round(cpuMs.dynamo / total) },
      coresBusy: { node: Number((cpuMs.node / loadMs).toFixed(2)), dynamodbLocal: Number((cpuMs.dynamo / loadMs).toFixed(2)) },
      warmupRuns,
      readEveryMs: READ_EVERY_MS,
      pollIntervalMs: Number(process.env.TABLE_STREAM_POLL_MS ?? 250),
    };
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, 'usage-freshness.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(
      `${result.runs.sent} paid runs at ${result.rate.achieved}/s (asked ${rate}/s): statuses ${JSON.stringify(result.runs.statuses)}, run p50 ${result.runs.p50Ms} ms, p95 ${result.runs.p95Ms} ms`,
    );
    console.log(
      `charge -> visible in usage: p50 ${result.freshnessMs.p50} ms, p95 ${result.freshnessMs.p95} ms, p99 ${result.freshnessMs.p99} ms, max ${result.freshnessMs.max} ms` +
        ` (${charges.length} charges, ${result.freshnessMs.neverSeen} never seen; usage read every ${READ_EVERY_MS} ms, stream polled every ${result.pollIntervalMs} ms)`,
    );
    console.log(
      `run answered -> visible in usage: p50 ${result.afterAnswerMs.p50} ms, p95 ${result.afterAnswerMs.p95} ms, p99 ${result.afterAnswerMs.p99} ms, max ${result.afterAnswerMs.max} ms`,
    );
    console.log(
      `CPU per run: ${result.cpuPerRunMs.node} ms in Node (handlers, poller, stream function, reader), ${result.cpuPerRunMs.dynamodbLocal} ms in DynamoDB Local;` +
        ` cores busy over the load: ${result.coresBusy.node} + ${result.coresBusy.dynamodbLocal} (after ${warmupRuns} warm-up runs)`,
    );
    const load = (figures: number[]) => figures.map((figure) => figure.toFixed(2)).join(' ');
    console.log(`load average (1, 5, 15 min): ${load(result.load.start)} at start, ${load(result.load.end)} at end`);
    console.log(`written: ${join('bench-output', 'usage-freshness.json')}`);
    if (result.freshnessMs.neverSeen > 0 || ok !== total) process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
