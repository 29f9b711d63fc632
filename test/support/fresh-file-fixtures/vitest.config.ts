/**
 * test/fresh-file.test.ts runs Vitest with this: the two fixtures in one worker, one after the
 * other, with the integration tier's reuse of processes and its first setup file.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../../..', import.meta.url).pathname,
    include: ['test/support/fresh-file-fixtures/*.fixture.ts'],
    pool: 'forks',
    maxWorkers: 1,
    isolate: false,
    setupFiles: ['test/support/fresh-file.ts'],
  },
});
