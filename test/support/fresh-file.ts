/**
 * The integration tier's first setup file (vitest.config.ts). Its worker processes are reused
 * from one test file to the next (`isolate: false`), so that Node loads the AWS SDK, zod, middy
 * and Vitest's own runtime once per worker rather than once per file. Each file still starts as
 * it would in a process of its own:
 *
 * - every module of this repository is evaluated afresh when the file imports it: the service's
 *   per-instance state (the config, the DynamoDB client, the verifier, memos, the embedded queue)
 *   is the file's own, as after a cold start, and a file may still set `process.env` before it
 *   imports the service. Packages under node_modules are Node's, loaded once per worker; the
 *   service keeps no state in them of its own;
 * - `process.env` is the worker's as it started: what the previous file set or deleted is undone
 *   (Vitest's `VITEST_*` variables, which it sets per file, are left to it);
 * - timers are real and no global is stubbed. Vitest restores the spies after each file.
 *
 * What a file starts (a server, an interval, a child process) it stops itself, as before.
 * `test/fresh-file.test.ts` runs two files through this in one worker.
 */
import { vi } from 'vitest';

const WORKER_ENV = Symbol.for('workspace-service.test.worker-env');
const worker = globalThis as typeof globalThis & { [WORKER_ENV]?: Readonly<Record<string, string>> };

/** Vitest sets these for each file it runs in the worker. */
const setByVitest = (name: string): boolean => name.startsWith('VITEST_');

// The first file of this worker: its environment, before any setup or test file changed it.
worker[WORKER_ENV] ??= { ...process.env } as Record<string, string>;
const started = worker[WORKER_ENV];
for (const name of Object.keys(process.env)) if (!(name in started) && !setByVitest(name)) delete process.env[name];
for (const [name, value] of Object.entries(started)) if (!setByVitest(name)) process.env[name] = value;

vi.useRealTimers();
vi.unstubAllGlobals();
vi.resetModules();
