/**
 * `npm run bench`: every route of lib/routes.ts, in-process through its whole middy chain (JWT
 * verification included) against DynamoDB Local, side by side with its floor: the same
 * DynamoDB commands sent straight through a bare DocumentClient in the same run (docs/performance.md).
 *
 * BENCH_ITERATIONS (default 300) timed requests per route and concurrency, BENCH_REPEATS
 * (default 1) whole runs whose medians are reported, BENCH_CONCURRENCIES (default "1,16"),
 * BENCH_ONLY (route names, comma-separated: just those, to profile them with node --cpu-prof).
 * Writes bench-output/bench-results.json and bench-output/bench.svg (git-ignored).
 * Figures compare changes on one machine; they are not promises about Lambda.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startBenchStack } from './bench/local.ts';

const OUTPUT = join(import.meta.dirname, '..', 'bench-output');
const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const repeats = Number(process.env.BENCH_REPEATS ?? 1);
const concurrencies = (process.env.BENCH_CONCURRENCIES ?? '1,16').split(',').map(Number);
const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : undefined;

async function main() {
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg();
  // Every request of the run counts against one user's window: no route may answer 429 here.
  // The notification endpoints' scenarios point at a loopback address, as under npm start.
  // So do its client registrations, all from 127.0.0.1.
  const stack = await startBenchStack({
    RATE_LIMIT_REQUESTS: String(1_000_000),
    OAUTH_CLIENT_RATE_LIMIT: String(1_000_000),
    JOBS_WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  try {
    // A job's messages and a test event's delivery go to this process's own queues, as under npm
    // start; nothing consumes them: the bench times requests (npm run bench:jobs and
    // bench:webhooks time the work behind them). Loaded after the stack set LOG_LEVEL: the logger reads it then.
    const { installEmbeddedQueues } = await import('../lib/local/embedded-queue.ts');
    installEmbeddedQueues();
    const { runBench } = await import('./bench/run.ts');
    const { formatTable, renderChart } = await import('./bench/report.ts');
    const measured = await runBench({
      iterations,
      repeats,
      concurrencies,
      warmup: 30,
      tokenFor: stack.tokenFor,
      ...(only ? { only } : {}),
    });
    const results = { startedAt, node: process.version, load: { start: loadAtStart, end: loadavg() }, ...measured };
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, 'bench-results.json'), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(join(OUTPUT, 'bench.svg'), renderChart(results));
    const load = (figures: number[]) => figures.map((figure) => figure.toFixed(2)).join(' ');
    console.log(formatTable(results));
    console.log(`load average (1, 5, 15 min): ${load(results.load.start)} at start, ${load(results.load.end)} at end`);
    console.log(`written: ${join('bench-output', 'bench-results.json')}, ${join('bench-output', 'bench.svg')}`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
