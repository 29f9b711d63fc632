import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Refusal } from '../errors.ts';
import { acquirePidLock, isAlive, LockHeldError, type PidLock } from './pid-lock.ts';

/**
 * A checkout's `.local/`: the state of the one local stack running from it. `stack.lock` names
 * the running `npm start` (taken before anything starts, so a second one stops at once);
 * `dev.json` describes it to people, the README's examples and the admin CLI. A stack removes
 * only what is its own, so stopping one can never pull the state from under another.
 */
export interface LocalState {
  readonly devFile: string;
  /** Writes dev.json, with this process's pid in it. */
  publish(info: Record<string, unknown>): void;
  /** Removes dev.json (if it is still this process's) and the lock. */
  release(): void;
}

export const DEV_FILE = 'dev.json';

export function claimLocalState(localDir: string, details: { baseUrl: string }): LocalState {
  const devFile = join(localDir, DEV_FILE);
  let lock: PidLock;
  try {
    lock = acquirePidLock(join(localDir, 'stack.lock'), details);
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    const { pid, baseUrl } = error.owner;
    throw new Error(
      `Another local stack is running from this checkout (pid ${pid}${baseUrl ? `, ${baseUrl}` : ''}; see ${devFile}).\n` +
        `Stop it first (Ctrl-C in its terminal, or \`kill ${pid}\`): one local stack per checkout, since the admin CLI and the README's examples read ${devFile}.`,
    );
  }
  return {
    devFile,
    publish: (info) => writeFileSync(devFile, `${JSON.stringify({ ...info, pid: process.pid }, null, 2)}\n`),
    release: () => {
      if (readDevInfo(devFile)?.pid === process.pid) rmSync(devFile, { force: true });
      lock.release();
    },
  };
}

function readDevInfo(file: string): { pid?: unknown } | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown };
  } catch {
    return null;
  }
}

/**
 * For tools that write to the local stack (the admin CLI): refuses a dev.json whose server is
 * gone, instead of writing to whatever still answers on its DynamoDB port, or failing with a
 * connection error. A dev.json without a pid was not written by `npm start` (a test's
 * fixture): nothing to check.
 */
export function assertLocalStackRunning(dev: object, devFile = '.local/dev.json'): void {
  const { pid } = dev as { pid?: unknown };
  if (typeof pid !== 'number' || isAlive(pid)) return;
  throw new Refusal(
    `The local stack described by ${devFile} is not running any more (its server, pid ${pid}, is gone).\n` +
      'Start it again with `npm start` (with the same DATA_DIR to keep its data), or pass --table.',
  );
}
