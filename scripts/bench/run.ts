/**
 * The benchmark of every route: each scenario's requests through the route's whole handler
 * (its middy chain, JWT verification included) against the configured table, and in the same
 * run its floor (scripts/bench/floor.ts). Route and floor alternate in small rounds, so that
 * whatever else loads the machine loads both alike.
 *
 * The caller sets up the environment (table, JWKS, SOCIAL_PROVIDER=sample, a rate limit the
 * run cannot reach) before calling runBench: scripts/bench.ts does, and so does its test.
 */
import { db } from '../../lib/db/client.ts';
import { type CommandLog, recordRequests } from '../../lib/db/round-trips.ts';
import type { HttpEvent, HttpResult } from '../../lib/http/types.ts';
import { localContext } from '../../lib/local/apigw-event.ts';
import { routes } from '../../lib/routes.ts';
import { bareClient, type FloorPlan, floorPlan, sendFloor, signatureOf } from './floor.ts';
import { freshIdsFor, trackMadeUpIds } from './made-up-ids.ts';
import { forEachIndex } from './pool.ts';
import { type BenchContext, missingScenarios, type PreparedScenario, SCENARIOS, type Scenario } from './scenarios.ts';
import { type Latency, latencyOf, median } from './stats.ts';

export interface BenchOptions {
  iterations: number;
  concurrencies: readonly number[];
  /** Untimed requests (route and floor) before each scenario's first timed one: JWKS fetch, connections, JIT. */
  warmup: number;
  /** Whole runs; the summary gives the median of each figure over them. */
  repeats: number;
  /** A valid token for `userId`; with `email`, carrying it verified (the claims `email` and `email_verified: true`). */
  tokenFor(userId: string, email?: string): string;
  scenarios?: readonly Scenario[];
  /** Record what the floor sends too (the test compares it with what the route sent). */
  recordFloor?: boolean;
  /** Only these routes (`RunSocialOperation`, or `Mcp tools/list` for one variant), to profile them; every route still needs a scenario. */
  only?: readonly string[];
  /** Progress lines (stderr by default). */
  progress?: (line: string) => void;
}

/** One scenario at one concurrency, in one run. */
export interface Measurement {
  route: Latency;
  floor: Latency;
  /** route p50 / floor p50 (null when the route sends no DynamoDB command). */
  ratio: number | null;
  /** Mean DynamoDB commands per request. */
  commands: number;
  /** Mean sequential round trips per request. */
  roundTrips: number;
  /** The commands of most requests, wave by wave (`UpdateItem+GetItem | TransactWriteItems`). */
  signature: string;
  /** How many requests sent another sequence than `signature` (a retry after a conflict, say). */
  otherSignatures: number;
  /** Route requests per second over the timed rounds. */
  throughput: number;
  /** With recordFloor: the floor's commands, wave by wave, of each request whose floor differed from the route. */
  floorMismatches?: { route: string; floor: string }[];
}

export interface ScenarioResult {
  route: string;
  variant?: string;
  label: string;
  /** Per concurrency: the median over repeats of each figure, and every repeat's measurement. */
  byConcurrency: Record<string, { summary: Measurement; runs: Measurement[] }>;
}

export interface BenchResults {
  startedAt: string;
  node: string;
  options: { iterations: number; concurrencies: readonly number[]; warmup: number; repeats: number };
  /** os.loadavg() at start and end (the machine may be shared). */
  load: { start: number[]; end: number[] };
  scenarios: ScenarioResult[];
}

type Handler = (event: HttpEvent, context: unknown) => Promise<HttpResult>;

const ROUND = 4;

export async function runBench(options: BenchOptions): Promise<Omit<BenchResults, 'load' | 'startedAt' | 'node'>> {
  const all = options.scenarios ?? SCENARIOS;
  const chosen = (scenario: Scenario) =>
    !options.only || options.only.includes(scenario.route) || options.only.includes(`${scenario.route} ${scenario.variant}`);
  const scenarios = all.filter(chosen);
  const missing = missingScenarios(all);
  if (missing.length > 0) throw new Error(`no bench scenario for route(s) ${missing.join(', ')}: add one to scripts/bench/scenarios.ts`);
  const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));

  const floor = bareClient(process.env.DYNAMODB_ENDPOINT, process.env.AWS_REGION ?? 'us-east-1');
  const floorRecorder = options.recordFloor ? recordRequests(floor) : undefined;
  const routeRecorder = recordRequests(db());
  const stopTracking = trackMadeUpIds();
  const perRun = options.warmup + options.iterations * options.concurrencies.length;
  // As many users as requests can be in flight at once (a short run prepares less).
  const slots = Math.max(1, Math.min(Math.max(...options.concurrencies), options.iterations));
  // One token per user (valid for the run): RSA signing per request would load the machine for nothing.
  const tokens = new Map<string, string>();
  const tokenFor = (userId: string, email?: string) => {
    const key = email === undefined ? userId : `${userId}\n${email}`;
    return tokens.get(key) ?? tokens.set(key, options.tokenFor(userId, email)).get(key)!;
  };
  const context: BenchContext = { tokenFor, floor, slots };

  try {
    const prepared: { scenario: Scenario; handler: Handler; state: PreparedScenario }[] = [];
    for (const scenario of scenarios) {
      progress(`preparing ${scenario.label}`);
      const route = routes.find((candidate) => candidate.name === scenario.route)!;
      const { handler } = (await import(new URL(`../../${route.entry}`, import.meta.url).href)) as { handler: Handler };
      prepared.push({ scenario, handler, state: await scenario.prepare(context, perRun * options.repeats) });
    }

    const runs = new Map<string, Measurement[]>();
    for (let repeat = 0; repeat < options.repeats; repeat += 1) {
      for (const { scenario, handler, state } of prepared) {
        let next = repeat * perRun;
        const phase = async (concurrency: number, count: number) => {
          const measured = await measure(handler, state, next, count, concurrency);
          next += count;
          return measured;
        };
        await phase(1, options.warmup);
        for (const concurrency of options.concurrencies) {
          progress(`run ${repeat + 1}/${options.repeats}: ${scenario.label} at concurrency ${concurrency}`);
          const key = `${scenario.label}@${concurrency}`;
          runs.set(key, [...(runs.get(key) ?? []), await phase(concurrency, options.iterations)]);
        }
      }
    }
    return {
      options: { iterations: options.iterations, concurrencies: options.concurrencies, warmup: options.warmup, repeats: options.repeats },
      scenarios: scenarios.map((scenario) => ({
        route: scenario.route,
        ...(scenario.variant ? { variant: scenario.variant } : {}),
        label: scenario.label,
        byConcurrency: Object.fromEntries(
          options.concurrencies.map((concurrency) => {
            const measured = runs.get(`${scenario.label}@${concurrency}`)!;
            return [String(concurrency), { summary: summarize(measured), runs: measured }];
          }),
        ),
      })),
    };
  } finally {
    stopTracking();
    routeRecorder.stop();
    floorRecorder?.stop();
    floor.destroy();
  }

  /** Requests start … start+count-1 of a scenario at `concurrency`, each followed (per round) by its floor. */
  async function measure(
    handler: Handler,
    state: PreparedScenario,
    start: number,
    count: number,
    concurrency: number,
  ): Promise<Measurement> {
    const routeMs: number[] = [];
    const floorMs: number[] = [];
    const logs: CommandLog[] = [];
    const floorLogs: CommandLog[] = [];
    const plans: FloorPlan[] = [];
    const round = ROUND * concurrency;
    let timed = 0;
    for (let from = 0; from < count; from += round) {
      const size = Math.min(round, count - from);
      const events = Array.from({ length: size }, (_, k) => state.event(start + from + k));
      const contexts = Array.from({ length: size }, () => localContext('bench'));
      const results: HttpResult[] = [];
      const began = performance.now();
      await forEachIndex(size, concurrency, async (k) => {
        const t0 = performance.now();
        const { result, log } = await routeRecorder.record(() => handler(events[k]!, contexts[k]));
        routeMs[from + k] = performance.now() - t0;
        results[k] = result;
        logs[from + k] = log;
      });
      timed += performance.now() - began;
      for (let k = 0; k < size; k += 1) {
        const wrong = state.check(results[k]!);
        if (wrong) throw new Error(`request ${start + from + k}: ${wrong}`);
        const log = logs[from + k]!;
        plans[from + k] = floorPlan(log, { ...freshIdsFor(log), ...(state.floorReplacements?.(start + from + k) ?? {}) });
      }
      await forEachIndex(size, concurrency, async (k) => {
        const plan = plans[from + k]!;
        const t0 = performance.now();
        if (floorRecorder) {
          floorLogs[from + k] = (await floorRecorder.record(() => sendFloor(floor, plan))).log;
        } else {
          await sendFloor(floor, plan);
        }
        floorMs[from + k] = performance.now() - t0;
      });
    }
    const signatures = logs.map((log) => signatureOf(log));
    const signature = mostCommon(signatures);
    const hasCommands = logs.some((log) => log.sent.length > 0);
    const routeLatency = latencyOf(routeMs);
    const floorLatency = latencyOf(floorMs);
    return {
      route: routeLatency,
      floor: floorLatency,
      ratio: hasCommands ? routeLatency.p50 / floorLatency.p50 : null,
      commands: logs.reduce((sum, log) => sum + log.sent.length, 0) / logs.length,
      roundTrips: logs.reduce((sum, log) => sum + log.sequential, 0) / logs.length,
      signature,
      otherSignatures: signatures.filter((one) => one !== signature).length,
      throughput: count / (timed / 1000),
      ...(floorRecorder
        ? {
            floorMismatches: floorLogs
              .map((log, i) => ({ route: signatures[i]!, floor: signatureOf(log) }))
              .filter((pair) => pair.route !== pair.floor),
          }
        : {}),
    };
  }
}

function mostCommon(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

/** The median over repeats of every figure (the signature and mismatches of the first run). */
function summarize(runs: readonly Measurement[]): Measurement {
  const first = runs[0]!;
  const mid = (pick: (run: Measurement) => number) => median(runs.map(pick));
  const latency = (pick: (run: Measurement) => Latency): Latency => ({
    p50: mid((run) => pick(run).p50),
    p95: mid((run) => pick(run).p95),
    p99: mid((run) => pick(run).p99),
    mean: mid((run) => pick(run).mean),
  });
  return {
    ...first,
    route: latency((run) => run.route),
    floor: latency((run) => run.floor),
    ratio: first.ratio === null ? null : mid((run) => run.ratio!),
    commands: mid((run) => run.commands),
    roundTrips: mid((run) => run.roundTrips),
    otherSignatures: mid((run) => run.otherSignatures),
    throughput: mid((run) => run.throughput),
  };
}
