/**
 * examples/quickstart.ts, run as a client developer would (its own node process, the typed
 * client over HTTP) against the local stack: it lists the operations, runs one with an
 * Idempotency-Key and retries it without a second charge, and reads the billing events.
 * That it typechecks against the generated types is `npm test`'s tsc step (tsconfig includes
 * client/ and examples/).
 *
 * In the long tier (`npm run test:long`, vitest.config.ts): each example runs in a process of its own.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalStack } from './support/local-stack.ts';
import { REPO, runScript, TSX } from './support/processes.ts';

const stack = await startLocalStack();
afterAll(() => stack.stop());

describe('examples/quickstart.ts', () => {
  it('runs green against the local stack', async () => {
    const result = await runScript('examples/quickstart.ts', [], {
      env: { WORKSPACE_API_URL: stack.baseUrl, WORKSPACE_TOKEN: stack.ownerToken, WORKSPACE_ORGANIZATION_ID: stack.organizationId },
    });

    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^52 operations, e\.g\. instagram_profile: /);
    expect(lines[1]).toMatch(/^instagram_profile: Sample natgeo \d+ \(@natgeo\), \d+ followers$/);
    expect(lines[2]).toMatch(/^charged 1 credit\(s\), \d+ left; the retry charged 0 \(replayed: true\)$/);
    // The run's charge is the newest event of the day, written once despite the retry.
    expect(lines[3]).toMatch(/^\S+Z +social_operation\.charged +-1 credits +instagram_profile/);
    expect(lines.filter((line) => line.includes('social_operation.charged') && line.includes('instagram_profile'))).toHaveLength(1);
  }, 60_000);
});

describe('examples/cost-control.ts', () => {
  it('quotes, runs and runs again from the cache for free, and finds its charge', async () => {
    const result = await runScript('examples/cost-control.ts', [], {
      env: { WORKSPACE_API_URL: stack.baseUrl, WORKSPACE_TOKEN: stack.ownerToken, WORKSPACE_ORGANIZATION_ID: stack.organizationId },
    });

    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^quote: 1 credit\(s\) of \d+; would run$/);
    expect(lines[1]).toBe('run: charged 1, workspace; fwd=miss; stored');
    expect(lines[2]).toMatch(/^again: charged 0, workspace; hit, age \d+ s, same output: true$/);
    expect(lines[3]).toMatch(/^charge evt_\S+: -1 credits for tiktok_profile, request \S+$/);
  }, 60_000);
});

describe('examples/agent-fields.ts', () => {
  it('asks for three fields of the posts, then more fields of the same result from the cache for free', async () => {
    const result = await runScript('examples/agent-fields.ts', [], {
      env: { WORKSPACE_API_URL: stack.baseUrl, WORKSPACE_TOKEN: stack.ownerToken, WORKSPACE_ORGANIZATION_ID: stack.organizationId },
    });

    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^5 posts with id,text,created_at \((\d+) characters\); charged 1$/);
    expect(lines[1]).toMatch(/^more fields from the cache: charged 0, workspace; hit; most liked: \d+ \(\d+ likes\)$/);
    expect(lines[2]).toMatch(/^the whole page: (\d+) characters; charged 0$/);
    // The three fields are a fraction of the whole page.
    const [asked, whole] = [lines[0], lines[2]].map((line) => Number(/(\d+) characters/.exec(line ?? '')?.[1]));
    expect(asked).toBeLessThan((whole ?? 0) / 3);
  }, 60_000);
});

describe('examples/my-workspace.ts', () => {
  it('finds the workspace, lists its trash and restores the newest deletion', async () => {
    const result = await runScript('examples/my-workspace.ts', [], {
      env: { WORKSPACE_API_URL: stack.baseUrl, WORKSPACE_TOKEN: stack.ownerToken, WORKSPACE_ORGANIZATION_ID: stack.organizationId },
    });

    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`: ${stack.organizationId} \\(owner\\)$`));
    expect(lines.slice(1, -1).length).toBeGreaterThan(0);
    for (const line of lines.slice(1, -1))
      expect(line).toMatch(/^ {2}(asset|skill|conversation|project) \S+ ".*" deleted \S+, restorable until \S+$/);
    const [, kind, id] = /^ {2}(\w+) (\S+)/.exec(lines[1] ?? '') ?? [];
    expect(lines.at(-1)).toBe(`restored ${kind} ${id}`);
  }, 60_000);
});

describe('examples/api-key.ts', () => {
  it('creates a key with limits and addresses, runs with it alone under Max-Credits, sees its spend, moves its addresses, revokes it', async () => {
    const result = await runScript('examples/api-key.ts', [], {
      env: { WORKSPACE_API_URL: stack.baseUrl, WORKSPACE_TOKEN: stack.ownerToken, WORKSPACE_ORGANIZATION_ID: stack.organizationId },
    });

    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^key key_[0-9a-f]{32} \(editor, 20 credits a month, 5 a day, from 127\.0\.0\.1 ::1\) until \S+Z$/);
    expect(lines[1]).toBe(`as api_key ${/key_[0-9a-f]{32}/.exec(lines[0] ?? '')?.[0]}: ${stack.organizationId} (editor)`);
    expect(lines[2]).toMatch(/^run: charged 1, charge evt_\S+$/);
    expect(lines[3]).toBe('budget: 1 of 5 spent today');
    expect(lines[4]).toBe('listed: spent 1 of 20, last used just now');
    expect(lines[5]).toBe('bound to 203.0.113.0/24: 403 ip_not_allowed');
    expect(lines[6]).toBe('after revoking: 401 revoked');
  }, 60_000);
});

describe('examples/bulk-job.ts', () => {
  it('submits 50 inputs, gets the signed webhook when they are done, and lists the one that failed', async () => {
    const result = await runScript('examples/bulk-job.ts', [], {
      env: { WORKSPACE_API_URL: stack.baseUrl, WORKSPACE_TOKEN: stack.ownerToken, WORKSPACE_ORGANIZATION_ID: stack.organizationId },
    });

    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^job job_[0-9a-f]{32}: 50 items queued, at \/social\/jobs\/job_[0-9a-f]{32}$/);
    expect(lines[1]).toBe('webhook job.completed, signature valid: true');
    expect(lines[2]).toBe('completed: 49 succeeded, 1 failed, 49 credits');
    expect(lines[3]).toBe('failed #7 {"handle":"sample_not_found"}: not_found (charged 0)');
  }, 90_000);
});

describe('examples/usage.ts', () => {
  it("prints yesterday's spend by API key, names the keys, and reads the same report as CSV", async () => {
    // Yesterday's runs of the demo workspace: two by a key of the owner's making, one refunded,
    // and one by the editor's own token, charged at noon (their refund an hour later).
    const { handler: createKey } = await import('../functions/create-api-key.ts');
    const { call } = await import('./support/http.ts');
    const { chargeRun, refundRun, settleRun } = await import('../lib/billing/paid-run.ts');
    const { getOrganization } = await import('../lib/db/organizations.ts');
    const { getMembership } = await import('../lib/db/memberships.ts');
    const { DEMO } = await import('../lib/local/seed.ts');
    const created = await call(createKey, {
      method: 'POST',
      url: `/organizations/${stack.organizationId}/api-keys`,
      token: stack.ownerToken,
      body: { name: 'yesterday agent', role: 'editor' },
    });
    expect(created.status).toBe(201);
    const keyId = created.body.id as string;
    const noon = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 12 * 3_600_000);
    const charge = async (payer: string, cost: number, refund: boolean) => {
      const org = await getOrganization(stack.organizationId);
      const member = payer.startsWith('key_')
        ? { organization_id: stack.organizationId, user_id: payer, role: 'editor' as const, spending_limit: null, daily_limit: null }
        : await getMembership(stack.organizationId, payer);
      const run = await chargeRun(
        { org: org!, member: member! },
        {
          orgId: stack.organizationId,
          userId: payer,
          operation: 'x_profile',
          network: 'x',
          cost,
          now: noon,
          owner: 'example',
          sweepAfterMs: Date.now() + 60_000,
        },
      );
      if (refund) expect(await refundRun(run, 'example', { now: new Date(noon.getTime() + 3_600_000) })).toBe('refunded');
      else await settleRun(run, undefined, { untilMs: Date.now() + 5_000, nowMs: Date.now() });
    };
    await charge(keyId, 3, false);
    await charge(keyId, 2, true);
    await charge(DEMO.users.editor, 4, false);
    await stack.catchUp();

    const result = await runScript('examples/usage.ts', [], {
      env: { WORKSPACE_API_URL: stack.baseUrl, WORKSPACE_TOKEN: stack.ownerToken, WORKSPACE_ORGANIZATION_ID: stack.organizationId },
    });

    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trim().split('\n');
    // The seed's own runs of yesterday (if any fell on it) are the editor's: by members' own tokens.
    expect(lines[0]).toMatch(new RegExp(`^yesterday \\(${new Date(noon).toISOString().slice(0, 10)}\\): \\d+ credits over \\d+ runs$`));
    expect(lines).toContain(`  ${keyId} "yesterday agent": 3 credits (2 runs, 5 charged, 2 refunded)`);
    expect(lines.some((line) => /^ {2}members' own tokens: \d+ credits \(\d+ runs, \d+ charged, \d+ refunded\)$/.test(line))).toBe(true);
    expect(lines.at(-1)).toMatch(/^as CSV: start,end,api_key,runs,charged,refunded,net \(2 rows\)$/);
  }, 60_000);
});

describe('examples/webhook-receiver.ts', () => {
  /** The example in its own process, its output read as it comes (the test acts on what it prints). */
  function startReceiver(env: Record<string, string>) {
    const child = spawn(process.execPath, ['--import', TSX, `${REPO}examples/webhook-receiver.ts`, '--count', '1'], {
      cwd: REPO,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const printed = async (pattern: RegExp) => {
      const giveUpAt = Date.now() + 30_000;
      while (!pattern.test(stdout)) {
        if (Date.now() > giveUpAt || child.exitCode !== null) throw new Error(`not printed: ${pattern}\n${stdout}${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return pattern.exec(stdout) as RegExpExecArray;
    };
    return { child, exited, printed, output: () => ({ stdout, stderr }) };
  }
  const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${stack.baseUrl}/organizations/${stack.organizationId}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${stack.ownerToken}`, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  const freePort = () =>
    new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });

  it("verifies the endpoint's events with its secret: a forged request is refused, the test event printed once", async () => {
    // Prepare: an owner's endpoint at the address the receiver will listen on.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhooks`;
    const created = await api('/webhooks', { method: 'POST', body: { url, events: ['credits.balance_low'] } });
    const endpoint = (await created.json()) as { id: string; secret: string };
    expect(created.status).toBe(201);
    const receiver = startReceiver({ WEBHOOK_SECRET: endpoint.secret, WEBHOOK_RECEIVER_PORT: String(port) });

    try {
      // Act
      await receiver.printed(/^listening on /m);
      const forged = await fetch(url, {
        method: 'POST',
        headers: {
          'webhook-id': 'evt_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': `v1,${Buffer.from('not the signature').toString('base64')}`,
        },
        body: JSON.stringify({ id: 'evt_forged', type: 'credits.balance_low', data: { balance: 0 } }),
      });
      const unsigned = await fetch(url, { method: 'POST', body: '{}' });
      const tested = await api(`/webhooks/${endpoint.id}/test`, { method: 'POST' });
      const event = (await tested.json()) as { id: string; created_at: string };
      const code = await receiver.exited;

      // Assess
      expect([forged.status, unsigned.status, tested.status]).toEqual([400, 400, 202]);
      expect({ code, stderr: receiver.output().stderr }).toEqual({ code: 0, stderr: '' });
      expect(receiver.output().stdout.trim().split('\n')).toEqual([
        `listening on ${url}`,
        'rejected: No matching signature found',
        'rejected: Missing required headers',
        `verified webhook.test ${event.id} at ${event.created_at}: {"webhook_id":"${endpoint.id}"}`,
      ]);
    } finally {
      receiver.child.kill();
      await api(`/webhooks/${endpoint.id}`, { method: 'DELETE' });
    }
  }, 60_000);

  it('on the local stack without a secret: registers itself, prints its verified test event, deletes its endpoint', async () => {
    const receiver = startReceiver({
      WORKSPACE_API_URL: stack.baseUrl,
      WORKSPACE_TOKEN: stack.ownerToken,
      WORKSPACE_ORGANIZATION_ID: stack.organizationId,
    });

    const code = await receiver.exited;
    const listed = (await (await api('/webhooks')).json()) as { webhooks: unknown[] };

    expect({ code, stderr: receiver.output().stderr }).toEqual({ code: 0, stderr: '' });
    const lines = receiver.output().stdout.trim().split('\n');
    const [, id] = /^endpoint (whk_[0-9a-f]{32}) for every event$/.exec(lines[1] ?? '') ?? [];
    expect(lines).toEqual([
      expect.stringMatching(/^listening on http:\/\/127\.0\.0\.1:\d+\/webhooks$/),
      `endpoint ${id} for every event`,
      expect.stringMatching(new RegExp(`^verified webhook\\.test evt_[0-9a-f]{32} at \\S+Z: \\{"webhook_id":"${id}"\\}$`)),
      `endpoint ${id} deleted`,
    ]);
    expect(listed.webhooks).toEqual([]);
  }, 60_000);
});
