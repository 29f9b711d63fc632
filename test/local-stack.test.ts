import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../lib/local/dynamodb-local.ts';
import { REPO, TSX } from './support/processes.ts';

interface DevInfo {
  baseUrl: string;
  dynamodbEndpoint: string;
  organizationId: string;
  tokens: Record<'owner' | 'editor' | 'viewer', string>;
  deleted: Record<string, string[]>;
}

/**
 * `npm start` end to end: the real script in its own process and working directory, reached
 * over HTTP like a client would, then stopped with SIGTERM.
 */
describe('local stack (npm start)', () => {
  it('serves the seeded demo workspace and stops everything it started on SIGTERM', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'local-stack-'));
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', TSX, `${REPO}scripts/start.ts`], {
      cwd,
      env: { ...process.env, PORT: String(port), TABLE_NAME: '', DYNAMODB_ENDPOINT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      while (!output.includes('Ctrl-C stops')) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      const dev = JSON.parse(readFileSync(join(cwd, '.local', 'dev.json'), 'utf8')) as DevInfo;
      expect(dev.baseUrl).toBe(`http://127.0.0.1:${port}`);
      expect(output).toContain(`Workspace Service running at http://127.0.0.1:${port}`);
      expect(output).toContain(dev.tokens.owner);
      expect(output).toContain(`API reference at ${dev.baseUrl}/docs`);
      const described = await fetch(`${dev.baseUrl}/openapi.json`, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(described.status).toBe(200);
      expect(((await described.json()) as { openapi: string }).openapi).toMatch(/^3\.1\./);
      expect(Object.values(dev.deleted).flat().length).toBeGreaterThan(0);

      const events = await fetch(`${dev.baseUrl}/organizations/${dev.organizationId}/billing/events`, {
        headers: { Authorization: `Bearer ${dev.tokens.owner}` },
      });
      expect(events.status).toBe(200);
      expect(events.headers.get('endless-api-version')).toBe('1');
      const body = (await events.json()) as { events: { type: string }[] };
      expect(body.events.length).toBeGreaterThanOrEqual(5);
      expect(new Set(body.events.map((event) => event.type))).toEqual(
        new Set(['credits.granted', 'social_operation.charged', 'social_operation.refunded']),
      );

      const asViewer = await fetch(`${dev.baseUrl}/organizations/${dev.organizationId}/billing/events`, {
        headers: { Authorization: `Bearer ${dev.tokens.viewer}` },
      });
      expect(asViewer.status).toBe(403);

      const unknown = await fetch(`${dev.baseUrl}/no/such/route`, { method: 'DELETE' });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ code: 'route_not_found', message: 'no route for DELETE /no/such/route' });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    const dev = existsSync(join(cwd, '.local', 'dev.json'));
    expect(dev).toBe(false);
    // DynamoDB Local is gone with it: nothing answers on its port any more.
    const endpoint = output.match(/DynamoDB Local at (http:\/\/127\.0\.0\.1:\d+)/)?.[1];
    expect(endpoint).toBeDefined();
    await expect(fetch(endpoint!)).rejects.toThrow();
  }, 90_000);
});
