import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Two tiers. `unit`: the files named `*.unit.test.ts`, which need neither DynamoDB Local, a
 * spawned stack nor Chromium (`npm run test:unit`, no Java needed). `integration`: every other
 * test file, on one DynamoDB Local and one JWKS server for the whole run, each file on its own
 * table. A new test lands in `integration` unless named otherwise: the safe default, since a
 * unit test that reaches for the table fails at once (its endpoint refuses connections).
 *
 * Both tiers reuse their worker processes from file to file (`isolate: false`). An integration
 * file still starts as in a process of its own (test/support/fresh-file.ts): this repository's
 * modules evaluated afresh, `process.env` as the worker started, real timers. So a new file needs
 * nothing to be safe there, a file that sets `process.env` and then imports the service included.
 */
const UNIT = 'test/**/*.unit.test.ts';
/**
 * The `long` tier (`npm run test:long`; CI runs it after `npm test`): scenarios that start, kill
 * and restart processes of their own (`npm start`, a DynamoDB Local, the stream consumer), run the
 * examples and the client package in processes of their own, bundle every function as deployed,
 * or hold receivers slow for seconds by design. Each costs from 5 to 30 CPU-s; together they were
 * a third of `npm test`, whose everyday run stays under 100 s (docs/local-development.md).
 */
const LONG = [
  'test/local-stack.test.ts',
  'test/hot-org-kill.test.ts',
  'test/client-example.test.ts',
  'test/client-package.test.ts',
  'test/social/database-death.test.ts',
  'test/alerts/stream-kill.test.ts',
  'test/usage/stream-faults.test.ts',
  'test/jobs/slow-receivers.test.ts',
  'test/infra/bundles.test.ts',
  'test/infra/docs-assets.test.ts',
  'test/infra/deployed-environment.test.ts',
];

/**
 * Matrix- and race-shaped files that read their depth (test/support/depth.ts): `npm test` runs
 * them at the everyday depth, a fixed sample that reaches every row and column of the matrix and
 * races with more runs in flight than a limit lets through; the `long` tier runs them again in
 * full (`TEST_DEPTH=full`), so CI still checks every cell. In full, each cost `npm test` 2 to 7 CPU-s.
 */
const DEEP = [
  'test/restore-permissions.test.ts',
  'test/billing/daily-limits.test.ts',
  'test/jobs/lifecycle-race.test.ts',
  'test/auth/token-corpus.test.ts',
  'test/social/charging.test.ts',
  'test/restore-concurrency.test.ts',
  'test/mcp/tools-parity.test.ts',
  'test/bench.test.ts',
  'test/fault-injection.test.ts',
  'test/admin-cli.test.ts',
  'test/billing/grants.test.ts',
  'test/payments/stripe-webhook.test.ts',
  'test/property.test.ts',
  'test/restore.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one file at a time on a 2-core
    // machine, while most of a file's time is spent waiting on DynamoDB Local, a child process
    // or a browser. One more worker than cores: npm test's Vitest part 134 s -> 88 s on 2 cores
    // (docs/local-development.md).
    maxWorkers: availableParallelism() + 1,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // No retries: a flaky test is a bug to fix, not to hide.
    retry: 0,
    projects: [
      {
        extends: true,
        // Pure tests share one module graph per worker (isolate: false): 11.0 s -> 8.8 s here.
        // Under `npm test` the tier runs at the lowest CPU priority beside the integration tier
        // (scripts/test.mjs), so a test's wall time is whatever that tier leaves idle: the timeout
        // guards against a hang there, not against a slow test.
        test: { name: 'unit', include: [UNIT], setupFiles: ['test/support/setup-unit.ts'], isolate: false, testTimeout: 60_000 },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [UNIT, ...LONG],
          globalSetup: ['test/support/global-setup.ts'],
          // A process per file evaluated the AWS SDK, zod and Vitest's runtime once per file: a
          // third of the workers' time. Reused, with each file's modules and environment reset
          // first (fresh-file.ts, which must stay first): the tier's CPU 228 s -> 156 s on the
          // 2-core machine (docs/local-development.md says what carries over).
          isolate: false,
          setupFiles: ['test/support/fresh-file.ts', 'test/support/setup-env.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'long',
          include: [...LONG, ...DEEP],
          env: { TEST_DEPTH: 'full' },
          globalSetup: ['test/support/global-setup.ts'],
          isolate: false,
          setupFiles: ['test/support/fresh-file.ts', 'test/support/setup-env.ts'],
        },
      },
    ],
  },
});
