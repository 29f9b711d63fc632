/**
 * `npm run bench:hot`: concurrent paid runs (sample provider) against ONE organization on
 * DynamoDB Local, at each level of BENCH_HOT_LEVELS (default "1,10,25,50,100,200" runs at
 * once, a fresh organization per level): throughput, latency, transaction conflicts retried,
 * failures (must be 0) and the final balance (must be exact). docs/scaling.md reads it.
 * BENCH_HOT_CONFLICTS=local runs on DynamoDB Local as it is (it never reports a transaction
 * conflict); by default DynamoDB's conflicts are modelled (scripts/bench/conflict-model.ts).
 * Writes bench-output/hot-org-<model|local>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startBenchStack, UNDER_LOAD } from './bench/local.ts';

const OUTPUT = join(import.meta.dirname, '..', 'bench-output');
const levels = (process.env.BENCH_HOT_LEVELS ?? '1,10,25,50,100,200').split(',').map(Number);
const users = Number(process.env.BENCH_HOT_USERS ?? 20);
const conflicts = process.env.BENCH_HOT_CONFLICTS === 'local' ? 'local' : 'model';

async function main() {
  const loadAtStart = loadavg();
  const stack = await startBenchStack(UNDER_LOAD);
  let failed = false;
  try {
    const { runHotOrganization } = await import('./bench/hot-org.ts');
    const { handler } = await import('../functions/run-social-operation.ts');
    // One warm-up run: JWKS fetch, connections, JIT.
    await runHotOrganization({ runs: 4, users: 2, conflicts, tokenFor: stack.tokenFor }, handler as never);
    const results = [];
    const rows = [
      [
        'runs at once',
        'wall ms',
        'runs/s',
        'p50 ms',
        'p99 ms',
        'conflicts',
        'per run',
        'max attempts',
        'tx p50 ms',
        'drain',
        'failed',
        'balance',
      ],
    ];
    for (const runs of levels) {
      const result = await runHotOrganization({ runs, users, conflicts, tokenFor: stack.tokenFor }, handler as never);
      results.push(result);
      failed ||=
        result.failed > 0 ||
        !result.balance.exact ||
        result.spend.counted !== result.spend.expected ||
        result.spend.members !== result.spend.expected ||
        result.chargeEvents !== runs - result.failed;
      rows.push([
        String(runs),
        result.wallMs.toFixed(0),
        result.throughput.toFixed(1),
        result.latency.p50.toFixed(0),
        result.latency.p99.toFixed(0),
        String(result.conflicts),
        (result.conflicts / runs).toFixed(2),
        String(result.maxAttempts),
        result.transactionMs.p50.toFixed(1),
        `${result.drainFactor.toFixed(1)}×`,
        result.failed === 0 ? '0' : `${result.failed} ${JSON.stringify(result.failures)}`,
        result.balance.exact ? `exact (${result.balance.final})` : `WRONG: ${result.balance.final}, expected ${result.balance.expected}`,
      ]);
    }
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    const how = conflicts === 'model' ? "DynamoDB's transaction conflicts modelled" : 'DynamoDB Local as it is (no conflicts)';
    console.log(`Paid runs (x_profile, sample provider) at once against one organization, ${users} members, DynamoDB Local, ${how}:`);
    console.log(rows.map((row) => row.map((cell, column) => cell.padStart(widths[column]!)).join('  ')).join('\n'));
    for (const result of results)
      console.log(
        `${result.runs} at once: items held ${JSON.stringify(result.heldItems)}, lanes ${JSON.stringify(result.lanes)}, commands a run ${JSON.stringify(result.commandsPerRun)}`,
      );
    const load = { start: loadAtStart, end: loadavg() };
    console.log(
      `load average (1, 5, 15 min): ${load.start.map((x) => x.toFixed(2)).join(' ')} at start, ${load.end.map((x) => x.toFixed(2)).join(' ')} at end`,
    );
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(
      join(OUTPUT, `hot-org-${conflicts}.json`),
      `${JSON.stringify({ startedAt: new Date().toISOString(), node: process.version, load, conflicts, users, results }, null, 2)}\n`,
    );
  } finally {
    await stack.stop();
  }
  if (failed) {
    console.error('FAILED: a run failed, or the balance, spend counter or charge events do not add up');
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
