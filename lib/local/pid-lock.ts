import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * A lock file naming the processes that hold something (a checkout's `.local/`, a DATA_DIR).
 * The holder is whoever created the file; a file whose processes are all gone is stale and
 * taken over, so a `kill -9` never leaves a lock that needs deleting by hand.
 */
export interface LockOwner {
  /** The process that took the lock. */
  pid: number;
  /** Processes it started that keep using what is locked (DynamoDB Local), if any. */
  children?: number[];
  [detail: string]: unknown;
}

export class LockHeldError extends Error {
  constructor(
    readonly file: string,
    readonly owner: LockOwner,
  ) {
    super(`${file} is held by pid ${owner.pid}`);
    this.name = 'LockHeldError';
  }
}

export interface PidLock {
  readonly file: string;
  /** Rewrites the lock's details (e.g. to add the child processes once started). */
  update(details: Omit<LockOwner, 'pid'>): void;
  /** Removes the lock if this process still holds it. */
  release(): void;
}

/**
 * A zombie (exited, not yet reaped by a parent that died) still answers `kill 0`; on Linux,
 * /proc tells it apart. Elsewhere the signal alone decides.
 */
function isZombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Whether a process with this id is running (EPERM: it is, as another user). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

export const lockIsLive = (owner: LockOwner): boolean => [owner.pid, ...(owner.children ?? [])].some(isAlive);

function readOwner(file: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as LockOwner;
    return typeof owner.pid === 'number' ? owner : null;
  } catch {
    return null;
  }
}

/** Writes `content` to `file` whole: readers see the old or the new file, never half of one. */
function writeWhole(file: string, content: string, mode: 'create' | 'replace'): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  try {
    // link() refuses an existing target, atomically: two processes cannot both create the lock.
    if (mode === 'create') linkSync(temporary, file);
    else renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Takes the lock in `file` for this process, or throws LockHeldError naming the live holder.
 * Two processes taking over the same stale lock in the same instant could both win; for
 * a developer's local stack that window is not worth a lock manager.
 */
export function acquirePidLock(file: string, details: Omit<LockOwner, 'pid'> = {}): PidLock {
  const content = (more: Omit<LockOwner, 'pid'>) => `${JSON.stringify({ ...more, pid: process.pid })}\n`;
  const holdsIt = () => readOwner(file)?.pid === process.pid;
  const lock: PidLock = {
    file,
    update: (more) => {
      if (holdsIt()) writeWhole(file, content({ ...details, ...more }), 'replace');
    },
    release: () => {
      if (holdsIt()) rmSync(file, { force: true });
    },
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeWhole(file, content(details), 'create');
      return lock;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(file);
    if (owner && lockIsLive(owner)) throw new LockHeldError(file, owner);
    // Stale (its processes are gone) or unreadable: take it over, once.
    if (attempt === 0) rmSync(file, { force: true });
  }
  throw new LockHeldError(file, readOwner(file) ?? { pid: 0 });
}
