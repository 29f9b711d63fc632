/**
 * The test of the two fixture files test/fresh-file.test.ts runs in one worker: whichever runs
 * second must find nothing the first left (an environment variable set or deleted, a module's
 * state, fake timers).
 */
import { appendFileSync } from 'node:fs';
import { expect, it, vi } from 'vitest';
import { config } from '../../../lib/config.ts';

export function startsFresh(file: string): void {
  it('starts with the worker’s environment, modules of its own and real timers', () => {
    expect(process.env.FRESH_FILE_SET_BY_A_FILE).toBeUndefined();
    expect(process.env.FRESH_FILE_DELETED_BY_A_FILE).toBe('present');
    expect(vi.isFakeTimers()).toBe(false);

    process.env.FRESH_FILE_SET_BY_A_FILE = file;
    delete process.env.FRESH_FILE_DELETED_BY_A_FILE;
    vi.useFakeTimers();
    process.env.TABLE_NAME = `table-of-the-${file}-file`;
    // Read once per instance of lib/config.ts: an instance left from the other file answers its table.
    expect(config().tableName).toBe(`table-of-the-${file}-file`);

    appendFileSync(process.env.FRESH_FILE_PIDS!, `${process.pid}\n`);
  });
}
