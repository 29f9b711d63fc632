/**
 * examples/quickstart.ts, run as a client developer would (its own node process, the typed
 * client over HTTP) against the local stack: it lists the operations, runs one with an
 * Idempotency-Key and retries it without a second charge, and reads the billing events.
 * That it typechecks against the generated types is `npm test`'s tsc step (tsconfig includes
 * client/ and examples/).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalStack } from './support/local-stack.ts';
import { runScript } from './support/processes.ts';

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
