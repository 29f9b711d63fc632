/**
 * Charges that cannot be lost, end to end (docs/charges.md): `npm start` on a DATA_DIR, paid
 * runs stuck in a provider that hangs, the whole server killed with SIGKILL while they are in
 * flight, a restart on the same data, and the operator's sweep (`admin charges sweep`) run twice
 * at once: the balance is back where it was, with exactly one refund event per lost charge.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { pendingRunsPrefix } from '../lib/db/keys.ts';
import { freePort, LOCAL_CREDENTIALS } from '../lib/local/dynamodb-local.ts';
import { REPO, runScript, TSX } from './support/processes.ts';
import { STUB_KEY, startScrapeCreatorsStub } from './support/scrapecreators-stub.ts';

interface DevInfo {
  baseUrl: string;
  dynamodbEndpoint: string;
  tableName: string;
  organizationId: string;
  tokens: Record<'owner' | 'editor' | 'viewer', string>;
}

interface Server {
  child: ChildProcess;
  dev: DevInfo;
  output: () => string;
  exited: Promise<void>;
}

/** `npm start` in its own process group (so that what it started can be found once it is killed), up and serving. */
async function start(cwd: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', TSX, `${REPO}scripts/start.ts`], {
    cwd,
    env: { ...process.env, TABLE_NAME: '', DYNAMODB_ENDPOINT: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!output.includes('Ctrl-C stops')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const dev = JSON.parse(readFileSync(join(cwd, '.local', 'dev.json'), 'utf8')) as DevInfo;
  return { child, dev, output: () => output, exited };
}

/** Waits until nothing answers at `url` any more (the killed DynamoDB Local has let go of its files). */
async function gone(url: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} still answers after the SIGKILL`);
}

/** The demo organization's balance and pending runs, read straight from the server's table. */
async function table(dev: DevInfo): Promise<{ credits: number; pending: number }> {
  const client = new DynamoDBClient({ endpoint: dev.dynamodbEndpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  const prefix = pendingRunsPrefix(dev.organizationId);
  try {
    const [org, pending] = await Promise.all([
      client.send(new GetItemCommand({ TableName: dev.tableName, Key: { PK: { S: prefix.PK }, SK: { S: 'ORG' } }, ConsistentRead: true })),
      client.send(
        new QueryCommand({
          TableName: dev.tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': { S: prefix.PK }, ':prefix': { S: prefix.skPrefix } },
          ConsistentRead: true,
        }),
      ),
    ]);
    return { credits: Number(org.Item?.credits?.N), pending: pending.Count ?? 0 };
  } finally {
    client.destroy();
  }
}

describe('charges of runs in flight when the server is killed', () => {
  it('are refunded by the sweep after a restart on the same data, each exactly once, even with two sweeps at once', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'charges-crash-'));
    const stub = await startScrapeCreatorsStub();
    const env = {
      DATA_DIR: join(cwd, 'data'),
      SOCIAL_PROVIDER: 'http',
      SCRAPECREATORS_BASE_URL: stub.baseUrl,
      SCRAPECREATORS_API_KEY: STUB_KEY,
      // The restarted server's own sweeper stays out of the way: the test sweeps as the operator.
      SWEEP_INTERVAL_SECONDS: '0',
    };
    const admin = (...args: string[]) => runScript('scripts/admin.ts', args, { cwd });
    const servers: Server[] = [];
    try {
      // Prepare: a server with three paid runs stuck in the provider (one with an Idempotency-Key).
      const first = await start(cwd, { ...env, PORT: String(await freePort()) });
      servers.push(first);
      const { dev } = first;
      const { credits: before } = await table(dev);
      for (let i = 0; i < 3; i += 1) stub.next({ kind: 'hang' });
      const runs = [undefined, undefined, 'crash-key-1'].map((key) =>
        fetch(`${dev.baseUrl}/social/tiktok_profile?organization_id=${dev.organizationId}`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${dev.tokens.owner}`,
            'Content-Type': 'application/json',
            ...(key ? { 'Idempotency-Key': key } : {}),
          },
          body: JSON.stringify({ handle: 'nasa' }),
        }).catch((error: unknown) => error),
      );
      // The provider has each call: each run was charged.
      const deadline = Date.now() + 30_000;
      while (stub.requests.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stub.requests).toHaveLength(3);

      // Act 1: kill the server mid-call. The database outlives it, as DynamoDB outlives a Lambda:
      // DynamoDB Local, orphaned, is then stopped cleanly (SIGTERM to the rest of the server's
      // process group; a SIGKILL would lose its last acknowledged writes, unlike DynamoDB).
      first.child.kill('SIGKILL');
      await first.exited;
      try {
        process.kill(-first.child.pid!, 'SIGTERM');
      } catch (error) {
        // Nothing left of the group: whatever the server started died with it.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
      await gone(dev.dynamodbEndpoint);
      for (const answer of await Promise.all(runs)) expect(answer).toBeInstanceOf(Error);

      // Act 2: restart on the same data; sweep twice at once as of a time when the runs can no
      // longer finish.
      const second = await start(cwd, { ...env, PORT: String(await freePort()) });
      servers.push(second);
      const afterCrash = await table(second.dev);
      const later = new Date(Date.now() + 3600_000).toISOString();
      const sweeps = await Promise.all([admin('charges', 'sweep', '--at', later), admin('charges', 'sweep', '--at', later)]);

      // Assess
      expect(afterCrash).toEqual({ credits: before - 3, pending: 3 });
      for (const sweep of sweeps) expect(sweep.code).toBe(0);
      const refunded = sweeps.map((sweep) => JSON.parse(sweep.stdout) as { refunded: number });
      expect(refunded.reduce((sum, sweep) => sum + sweep.refunded, 0)).toBe(3);
      expect(await table(second.dev)).toEqual({ credits: before, pending: 0 });
      const events = await fetch(`${second.dev.baseUrl}/organizations/${dev.organizationId}/billing/events?days=1`, {
        headers: { Authorization: `Bearer ${second.dev.tokens.owner}` },
      });
      type Event = { id: string; type: string; title: string; description: string };
      const all = ((await events.json()) as { events: Event[] }).events;
      const lost = all.filter((event) => event.type === 'social_operation.charged' && event.title === 'tiktok_profile');
      const refunds = all.filter(
        (event) => event.type === 'social_operation.refunded' && event.description.includes('refunded by the sweeper'),
      );
      expect(lost).toHaveLength(3);
      expect(refunds.map((event) => /charge (evt_\S+) refunded/.exec(event.description)?.[1]).sort()).toEqual(
        lost.map((charge) => charge.id).sort(),
      );
    } finally {
      for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
      await Promise.all(servers.map((server) => server.exited));
      await stub.close();
    }
  }, 120_000);
});
