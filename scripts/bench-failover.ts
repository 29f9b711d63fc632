/**
 * `npm run bench:failover`: a paid run's latency with failover against without, and the DynamoDB
 * commands it sends, through the run handler on DynamoDB Local with the deployed configuration of
 * three providers (`http,tikhub,facebook_scraper3`) on their stubs at 127.0.0.1 (answering at
 * once: what is measured is ours). `x_profile` is served by ScrapeCreators, then TikHub: its
 * primary answers, or fails each way the failover handles (500, 429, a body that is not JSON, no
 * answer until PROVIDER_TIMEOUT_MS, 400 here), and TikHub answers. No breaker opens here (the
 * table stream's consumer that moves them does not run), so every run pays its failover: the
 * worst case, before the breaker skips the primary. BENCH_FAILOVER_RUNS runs a scenario (40),
 * one at a time. Writes bench-output/failover.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { latencyOf } from './bench/stats.ts';

const OUTPUT = join(import.meta.dirname, '..', 'bench-output');
const RUNS = Number(process.env.BENCH_FAILOVER_RUNS ?? 40);
const TIMEOUT_MS = 400;

async function main() {
  const loadAtStart = loadavg();
  // Before anything creates the service's logger, which reads its level once.
  process.env.LOG_LEVEL = 'silent';
  const { startBenchStack } = await import('./bench/local.ts');
  const { startDeployedProviders } = await import('../test/support/deployed-providers.ts');
  const { vendorError } = await import('../test/support/scrapecreators-stub.ts');
  const providers = await startDeployedProviders();
  const { sc } = providers;
  const stack = await startBenchStack({
    ...providers.environment,
    PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS),
    RATE_LIMIT_REQUESTS: String(1_000_000),
    LOG_LEVEL: 'silent',
  });
  try {
    const { db } = await import('../lib/db/client.ts');
    const { recordRequests } = await import('../lib/db/round-trips.ts');
    const { createOrganization } = await import('../lib/db/organizations.ts');
    const { addMembership } = await import('../lib/db/memberships.ts');
    const { buildHttpEvent, localContext } = await import('../lib/local/apigw-event.ts');
    const { handler } = await import('../functions/run-social-operation.ts');
    const { forgetHealth } = await import('../lib/social/health/view.ts');
    const { resetHealthSettings } = await import('../lib/social/health/settings.ts');
    /** Breakers as deployed (5 failures trip), or kept closed so that every run pays its failover. */
    const breakers = (on: boolean) => {
      process.env.HEALTH_BREAKER_MIN_FAILURES = on ? '5' : String(1_000_000_000);
      resetHealthSettings();
      forgetHealth();
    };
    const run = handler as unknown as (
      event: unknown,
      context: unknown,
    ) => Promise<{ statusCode: number; headers?: Record<string, string> }>;

    const orgId = `org_failover_${Date.now()}`;
    await createOrganization({ id: orgId, credits: 100_000 });
    await addMembership({ orgId, userId: 'user_failover', role: 'editor' });
    const token = stack.tokenFor('user_failover');
    const eventFor = (operation: string, body: unknown) =>
      buildHttpEvent({
        method: 'POST',
        path: `/social/${operation}`,
        routeKey: 'POST /social/{operation}',
        rawQueryString: `organization_id=${orgId}`,
        pathParameters: { operation },
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const recorder = recordRequests(db());

    const down = { kind: 'status', status: 500, body: vendorError(500, 'server_error', 'down') } as const;
    const scenarios: {
      name: string;
      operation: string;
      body: unknown;
      primary?: Parameters<typeof sc.always>[0];
      /** The breaker on, tripped by the untimed runs: the primary skipped. */
      breakerOpen?: boolean;
    }[] = [
      { name: 'x_profile, ScrapeCreators answers', operation: 'x_profile', body: { handle: 'nasa' }, primary: { kind: 'fixture' } },
      {
        name: 'x_profile, ScrapeCreators 500 → TikHub',
        operation: 'x_profile',
        body: { handle: 'nasa' },
        primary: { kind: 'status', status: 500, body: vendorError(500, 'server_error', 'down') },
      },
      {
        name: 'x_profile, ScrapeCreators 429 → TikHub',
        operation: 'x_profile',
        body: { handle: 'nasa' },
        primary: { kind: 'status', status: 429, body: vendorError(429, 'rate_limited', 'slow down') },
      },
      {
        name: 'x_profile, ScrapeCreators not JSON → TikHub',
        operation: 'x_profile',
        body: { handle: 'nasa' },
        primary: { kind: 'status', status: 200, body: '<html>' },
      },
      {
        name: `x_profile, ScrapeCreators silent ${TIMEOUT_MS} ms → TikHub`,
        operation: 'x_profile',
        body: { handle: 'nasa' },
        primary: { kind: 'hang' },
      },
      {
        name: 'x_profile, ScrapeCreators 500, its breaker open: skipped',
        operation: 'x_profile',
        body: { handle: 'nasa' },
        primary: down,
        breakerOpen: true,
      },
      { name: 'x_trends, TikHub alone', operation: 'x_trends', body: { region: 'US' } },
      { name: 'facebook_search, Facebook Scraper3 alone', operation: 'facebook_search', body: { query: 'artemis' } },
    ];

    /** Sets the scenario up, and runs it `untimed` times: its failures trip the breaker where it is on. */
    const prepare = async (scenario: (typeof scenarios)[number], untimed: number) => {
      sc.always(scenario.primary ?? { kind: 'fixture' });
      breakers(scenario.breakerOpen === true);
      for (let i = 0; i < untimed; i += 1) await run(event(scenario), localContext('failover'));
    };
    // A fresh event a run: the body parser replaces the event's body with what it parsed.
    const event = (scenario: (typeof scenarios)[number]) => eventFor(scenario.operation, scenario.body);
    // Every scenario's code warmed first (the JWKS fetch, connections, JIT), so the first one timed pays none of it.
    for (const scenario of scenarios) await prepare(scenario, 20);

    const results = [];
    for (const scenario of scenarios) {
      await prepare(scenario, 6);
      const latencies: number[] = [];
      const providers = new Map<string, number>();
      const commands = new Map<string, number>();
      let failed = 0;
      for (let i = 0; i < RUNS; i += 1) {
        const request = event(scenario);
        const began = performance.now();
        const { result, log } = await recorder.record(() => run(request, localContext('failover')));
        latencies.push(performance.now() - began);
        if (result.statusCode !== 200) failed += 1;
        const provider = result.headers?.['Social-Provider'] ?? result.headers?.['social-provider'] ?? '(none)';
        providers.set(provider, (providers.get(provider) ?? 0) + 1);
        const shape = log.sent.map((command) => command.name.replace(/Command$/, '')).join('+');
        commands.set(`${shape} (${log.sequential} sequential)`, (commands.get(`${shape} (${log.sequential} sequential)`) ?? 0) + 1);
      }
      results.push({
        scenario: scenario.name,
        runs: RUNS,
        failed,
        latency: latencyOf(latencies),
        providers: Object.fromEntries(providers),
        commands: Object.fromEntries(commands),
      });
    }
    sc.always({ kind: 'fixture' });
    recorder.stop();

    const loadAtEnd = loadavg();
    console.log(`load average ${loadAtStart[0]?.toFixed(2)} → ${loadAtEnd[0]?.toFixed(2)}; ${RUNS} runs a scenario, one at a time`);
    console.log(['scenario', 'p50 ms', 'p95 ms', 'failed', 'served by', 'DynamoDB commands a run'].join(' | '));
    for (const result of results) {
      console.log(
        [
          result.scenario,
          result.latency.p50.toFixed(0),
          result.latency.p95.toFixed(0),
          String(result.failed),
          Object.entries(result.providers)
            .map(([name, count]) => `${name} ${count}`)
            .join(', '),
          Object.entries(result.commands)
            .map(([shape, count]) => (count === RUNS ? shape : `${shape} ×${count}`))
            .join('; '),
        ].join(' | '),
      );
    }
    mkdirSync(OUTPUT, { recursive: true });
    writeFileSync(join(OUTPUT, 'failover.json'), `${JSON.stringify({ loadAtStart, loadAtEnd, results }, null, 2)}\n`);
    if (results.some((result) => result.failed > 0)) process.exitCode = 1;
  } finally {
    await stack.stop();
    await providers.close();
  }
}

await main();
