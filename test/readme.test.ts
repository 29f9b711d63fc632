/**
 * The README's copy-paste commands, run as a newcomer runs them: every `sh` block that talks to
 * the local stack (it reads `.local/dev.json` or `$BASE`), in order, pasted into one bash, in a
 * folder whose `.local/dev.json` describes a local stack as `npm start` writes it. Each block's
 * output is checked: the quote and the run, the job created, polled and its items read, the
 * MCP call, and credits bought through the local payments server's checkout page. (`npm start` itself, and the dev.json it writes: test/local-stack.test.ts.)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO } from '../lib/local/seed.ts';
import { startLocalStack } from './support/local-stack.ts';
import { REPO } from './support/processes.ts';
import { tokenFor } from './support/tokens.ts';

const README = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The README's shell blocks that call the running stack, in order. */
const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)]
  .map((match) => match[1] ?? '')
  .filter((block) => block.includes('.local/dev.json') || block.includes('$BASE'));

const MARK = '::readme-block::';

const stack = await startLocalStack({ payments: true });
afterAll(() => stack.stop());

/** .local/dev.json as `npm start` writes it, with the fields the README reads: the base URL, the demo tokens, the demo API key. */
async function devJson(cwd: string): Promise<void> {
  const created = await fetch(`${stack.baseUrl}/organizations/${DEMO.orgId}/api-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${stack.ownerToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'demo agent (readme test)', role: 'editor', spending_limit: 100, expires_in_days: 1 }),
  });
  expect(created.status).toBe(201);
  const key = (await created.json()) as { id: string; role: string; token: string };
  mkdirSync(join(cwd, '.local'));
  writeFileSync(
    join(cwd, '.local', 'dev.json'),
    JSON.stringify({
      baseUrl: stack.baseUrl,
      organizationId: DEMO.orgId,
      tokens: Object.fromEntries(Object.entries(DEMO.users).map(([role, user]) => [role, tokenFor(user)])),
      apiKey: { id: key.id, role: key.role, token: key.token },
    }),
  );
}

/** The blocks pasted one after the other into one bash (variables carry over, as in a terminal); each block's output. */
function runInOneShell(cwd: string, script: readonly string[]): Promise<{ code: number; outputs: string[]; stderr: string }> {
  const text = ['set -euo pipefail', ...script.flatMap((block) => [`echo '${MARK}'`, block])].join('\n');
  return new Promise((resolve) => {
    execFile('bash', ['-c', text], { cwd, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, outputs: stdout.split(`${MARK}\n`).slice(1), stderr }),
    );
  });
}

/**
 * The JSON objects in a block's output, in order. `curl -s` ends a body without a newline, so
 * the next command's output may follow on the same line: objects are cut out by their braces.
 */
function jsonIn(output: string): any[] {
  const documents: any[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < output.length; i += 1) {
    const char = output[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"' && depth > 0) inString = true;
    else if (char === '{' && depth++ === 0) start = i;
    else if (char === '}' && depth > 0 && --depth === 0) documents.push(JSON.parse(output.slice(start, i + 1)));
  }
  return documents;
}

describe("the README's commands", () => {
  it('are the quote and run, the job, the MCP call and a purchase', () => {
    expect(blocks).toHaveLength(4);
    expect(blocks[0]).toContain('/social/instagram_profile/quote');
    expect(blocks[1]).toContain('/jobs?organization_id=org_demo');
    expect(blocks[2]).toContain('/mcp?organization_id=org_demo');
    expect(blocks[3]).toContain('/credit-purchases');
  });

  it('run as pasted into one shell against the local stack, each answering as the README says', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'readme-'));
    await devJson(cwd);

    const { code, outputs, stderr } = await runInOneShell(cwd, blocks);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(outputs).toHaveLength(4);
    const [quoteAndRun = '', job = '', mcp = '', purchase = ''] = outputs;

    // The quote (never charged), then the run with its headers (curl -i).
    const [quote] = jsonIn(quoteAndRun);
    expect(quote).toMatchObject({ operation: 'instagram_profile', cost: 1, allowed: true, refusal: null });
    expect(quoteAndRun).toMatch(/HTTP\/1\.1 200 OK\r$/m);
    expect(quoteAndRun).toMatch(/^credits-charged: 1\r$/im);
    expect(quoteAndRun).toMatch(/^sample-data: true\r$/im);

    // The job's items, once it ended: two profiles, and the refunded failure with its reason.
    const [items] = jsonIn(job);
    expect(items.has_more).toBe(false);
    expect(items.items.map((item: { index: number; status: string; charged: number }) => [item.index, item.status, item.charged])).toEqual([
      [0, 'succeeded', 1],
      [1, 'succeeded', 1],
      [2, 'failed', 0],
    ]);
    expect(items.items[0].output).toMatchObject({ network: 'instagram', username: 'nasa' });
    expect(items.items[2].error).toMatchObject({ code: 'not_found' });

    // The MCP tools/call: a JSON-RPC result with the profile as structured content.
    const [answer] = jsonIn(mcp);
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { structuredContent: { network: 'instagram', username: 'nasa' }, _meta: { credits_charged: 1, sample_data: true } },
    });
    expect(answer.result.isError).toBeUndefined();

    // The checkout's form answered 303 (paid), then the balance and the purchase's billing event.
    expect(purchase.split('\n')[0]).toBe('303');
    const [credits, events] = jsonIn(purchase);
    expect(credits).toMatchObject({ organization_id: DEMO.orgId, balance: expect.any(Number) });
    expect(events.events).toEqual([
      expect.objectContaining({
        type: 'credits.purchased',
        amount: 500,
        metadata: expect.objectContaining({ purchase_id: expect.stringMatching(/^pur_/), source: 'checkout' }),
      }),
    ]);
  }, 90_000);
});
