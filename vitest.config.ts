import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local and one JWKS server for the whole run; each test file gets its own table.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup-env.ts'],
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
  },
});
