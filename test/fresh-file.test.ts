/**
 * The integration tier reuses its worker processes from file to file (vitest.config.ts): each
 * file must still start as in a process of its own (test/support/fresh-file.ts), or a file would
 * read the previous one's table through a cached config, or its environment. Vitest is run here
 * on two fixture files, in one worker, through that setup file.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import config from '../vitest.config.ts';
import { REPO } from './support/processes.ts';

const FIXTURES = 'test/support/fresh-file-fixtures';

/** What Vitest's JSON reporter says, as far as read here. */
interface Report {
  numPassedTests: number;
  numTotalTests: number;
  testResults: { assertionResults: { failureMessages: string[] }[] }[];
}

describe('each integration file, in a reused worker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fresh-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts from test/support/fresh-file.ts, first of the tier’s setup files', () => {
    const integration = config.test?.projects?.find(
      (project) => typeof project === 'object' && 'test' in project && project.test?.name === 'integration',
    );

    expect(integration).toMatchObject({
      test: { isolate: false, setupFiles: ['test/support/fresh-file.ts', 'test/support/setup-env.ts'] },
    });
  });

  it('finds neither the environment nor the modules’ state nor the fake timers the previous file left', async () => {
    const pids = join(dir, 'pids');
    // A failed fixture exits 1: its report says why.
    const run = await promisify(execFile)(
      process.execPath,
      [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--config', `${FIXTURES}/vitest.config.ts`, '--reporter=json'],
      { cwd: REPO, env: { ...process.env, FRESH_FILE_PIDS: pids, FRESH_FILE_DELETED_BY_A_FILE: 'present' } },
    ).catch((error: { stdout: string }) => error);
    const report = JSON.parse(run.stdout) as Report;

    expect(report.testResults.flatMap((file) => file.assertionResults.flatMap((test) => test.failureMessages))).toEqual([]);
    expect(report).toMatchObject({ numPassedTests: 2, numTotalTests: 2 });
    const [first, second, ...more] = readFileSync(pids, 'utf8').trim().split('\n');
    expect(more).toEqual([]);
    expect(second).toBe(first);
  }, 60_000);
});
