/**
 * `npm run conformance:inspector`: the MCP Inspector's CLI (`@modelcontextprotocol/inspector`,
 * installed in tools/conformance/ beside the conformance suite, on its Node.js 22) connects to
 * `/mcp` of a local stack by OAuth alone, as a hosted client does: it discovers the metadata from
 * the 401, registers itself (RFC 7591), sends the person to `/oauth/authorize` with PKCE S256 and
 * `resource`, and exchanges the code. This script plays the person at the URL the Inspector prints
 * (the demo owner signs in with their token and allows editor, 50 credits a month, 5 a day), then
 * checks: the tool list; a `tools/call` of `get_budget` with the stored tokens showing the grant's
 * limits; the grant in the keys list (`created_via: "oauth"`, the Inspector's name and callback);
 * and, once that key is revoked, the Inspector's refresh refused and its call failing. Then by API
 * key (`--header`), in both protocol eras, with a consent threshold on the key (so the tools carry
 * `_confirm_token`): the tool list and `get_budget`. Every tool list runs with `--strict`: the
 * Inspector's tool-schema lint must find 0 errors and 0 warnings. docs/mcp.md, "Conformance".
 *
 * The Inspector opens a browser only where it has a terminal, unless MCP_AUTO_OPEN_ENABLED=true,
 * which this needs to have it print the URL at all: the child gets no desktop (no DISPLAY, no
 * desktop session, BROWSER=true), so the `xdg-open` it then tries opens nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConformanceError, freePort, INSPECTOR, installSuite, node22, type Stack, startStack, stopStack } from './conformance.ts';

const LIMITS = { role: 'editor', spending_limit: '50', daily_limit: '5', expires_in_days: '7' };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual',
});

/** The person in the browser: the sign-in page, their token, the consent page, Allow, and back to the client's callback. */
async function approveAsPerson(stack: Stack, authorizationUrl: string, callbackHost: string): Promise<void> {
  const url = new URL(authorizationUrl);
  const params = Object.fromEntries(url.searchParams);
  const endpoint = `${url.origin}${url.pathname}`;
  const signInPage = await fetch(url);
  if (signInPage.status !== 200) throw new ConformanceError(`the sign-in page answered ${signInPage.status}`);
  const consentPage = await fetch(endpoint, form({ ...params, token: stack.ownerToken }));
  const html = await consentPage.text();
  if (!html.includes('<strong>MCP Inspector</strong>') || !html.includes(`<strong>${callbackHost}</strong>`))
    throw new ConformanceError(`the consent page does not name the Inspector and ${callbackHost}:\n${html}`);
  const ticket = /name="ticket" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const approved = await fetch(
    endpoint,
    form({ ...params, ticket, decision: 'approve', organization_id: stack.organizationId, ...LIMITS }),
  );
  const back = approved.headers.get('location') ?? '';
  if (approved.status !== 302 || !new URL(back).searchParams.has('code'))
    throw new ConformanceError(`Allow answered ${approved.status} to ${back}`);
  await fetch(back);
}

/** The Inspector's CLI on the MCP URL; approves the authorization it asks for, if any. */
function inspector(node: string, home: string, args: string[], approve: (url: string) => Promise<void>): Promise<Run> {
  const { DISPLAY: _display, WAYLAND_DISPLAY: _wayland, XDG_CURRENT_DESKTOP: _desktop, DESKTOP_SESSION: _session, ...env } = process.env;
  const child = spawn(node, [INSPECTOR, '--cli', ...args], {
    env: { ...env, HOME: home, MCP_AUTO_OPEN_ENABLED: 'true', MCP_INSPECTOR_SECRET_STORE: 'file', BROWSER: 'true', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let approving: Promise<void> | undefined;
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const url = /Please navigate to: (\S+)/.exec(stderr)?.[1];
    if (url && !approving) approving = approve(url);
  });
  const timer = setTimeout(() => child.kill('SIGTERM'), 90_000);
  return new Promise((done, fail) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      (approving ?? Promise.resolve()).then(() => done({ code: code ?? 1, stdout, stderr }), fail);
    }),
  );
}

/**
 * The Inspector's tool-schema lint (`--strict`) says nothing when it finds nothing; a finding is a
 * `Warning: tool "…"` or `Error: tool "…"` block on stderr (error-severity ones exit 6).
 */
const LINT_FINDING = /^(?:Warning|Error): tool "|Schema portability:/m;
const lintClean = (run: Run): boolean => run.code === 0 && !LINT_FINDING.test(run.stderr);
const toolNames = (run: Run): string[] =>
  run.code === 0 ? (JSON.parse(run.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name) : [];

function check(what: string, ok: boolean, run?: Run): void {
  console.log(`${ok ? '✓' : '✗'} ${what}`);
  // A tool list is ~170 KB: its head is enough to see what went wrong.
  if (!ok) throw new ConformanceError(run ? `${what}: exit ${run.code}\n${run.stdout.slice(0, 2000)}\n${run.stderr}` : what);
}

async function main(): Promise<void> {
  installSuite();
  const node = node22();
  const localDir = mkdtempSync(join(tmpdir(), 'inspector-stack-'));
  const home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
  let stack: Stack | undefined;
  try {
    stack = await startStack(localDir);
    const started = stack;
    const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
    const mcpUrl = `${started.baseUrl}/mcp?organization_id=${started.organizationId}`;
    const approve = (url: string) => approveAsPerson(started, url, new URL(callback).host);
    const noApproval = async (url: string) => {
      throw new ConformanceError(`the Inspector asked for an authorization it should not need: ${url}`);
    };
    const version = spawnSync(node, [INSPECTOR, '--version'], { encoding: 'utf8' }).stdout.trim();
    console.log(`MCP Inspector ${version} (CLI) by OAuth against ${mcpUrl}\n`);

    const listed = await inspector(node, home, ['--callback-url', callback, '--method', 'tools/list', '--strict', mcpUrl], approve);
    check(
      'tools/list after the Inspector ran OAuth (discovery, registration, PKCE, consent, token)',
      listed.stderr.includes('Authorization complete.') && toolNames(listed).includes('get_budget'),
      listed,
    );
    check(`its tool-schema lint (--strict) on ${toolNames(listed).length} tools: 0 errors, 0 warnings`, lintClean(listed), listed);

    const budget = await inspector(
      node,
      home,
      ['--stored-auth-only', '--method', 'tools/call', '--tool-name', 'get_budget', mcpUrl],
      noApproval,
    );
    const key =
      budget.code === 0
        ? (JSON.parse(budget.stdout) as { structuredContent: { api_key?: Record<string, unknown> } }).structuredContent.api_key
        : undefined;
    check(
      'tools/call get_budget with the stored token: the grant is a key under the chosen limits',
      key?.spending_limit === 50 && key.daily_limit === 5,
      budget,
    );

    const owner = { Authorization: `Bearer ${started.ownerToken}` };
    const keys = (await (
      await fetch(`${started.baseUrl}/organizations/${started.organizationId}/api-keys`, { headers: owner })
    ).json()) as {
      api_keys: { id: string; created_via?: string; client_name?: string; redirect_uri?: string }[];
    };
    const grant = keys.api_keys.find((each) => each.id === key?.id);
    check(
      'the keys list shows the grant with its client and callback',
      grant?.created_via === 'oauth' && grant.client_name === 'MCP Inspector' && grant.redirect_uri === callback,
    );

    const revoked = await fetch(`${started.baseUrl}/organizations/${started.organizationId}/api-keys/${key?.id}`, {
      method: 'DELETE',
      headers: owner,
    });
    check('the owner revokes the key: 204', revoked.status === 204);
    const refused = await inspector(
      node,
      home,
      ['--stored-auth-only', '--method', 'tools/call', '--tool-name', 'get_budget', mcpUrl],
      noApproval,
    );
    check(
      'the Inspector is refused: its refresh is invalid_grant, and it needs a new authorization',
      refused.code !== 0 && refused.stderr.includes('invalid_grant') && refused.stderr.includes('auth_required'),
      refused,
    );

    // By key: an API key with a consent threshold of its own, so that the tools carry `_confirm_token`.
    const created = await fetch(`${started.baseUrl}/organizations/${started.organizationId}/api-keys`, {
      method: 'POST',
      headers: { ...owner, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'inspector by key', role: 'editor', confirm_above: 1, expires_in_days: 1 }),
    });
    const apiKey = (await created.json()) as { token?: string };
    check('the owner creates an API key with confirm_above 1: 201', created.status === 201 && Boolean(apiKey.token));
    const byKey = ['--header', `Authorization: Bearer ${apiKey.token}`];
    for (const era of ['legacy', 'modern']) {
      const keyList = await inspector(
        node,
        home,
        [...byKey, '--protocol-era', era, '--method', 'tools/list', '--strict', mcpUrl],
        noApproval,
      );
      check(
        `by key, ${era} era: tools/list (${toolNames(keyList).length} tools, with _confirm_token), --strict: 0 errors, 0 warnings`,
        lintClean(keyList) && keyList.stdout.includes('"_confirm_token"'),
        keyList,
      );
      const keyBudget = await inspector(
        node,
        home,
        [...byKey, '--protocol-era', era, '--method', 'tools/call', '--tool-name', 'get_budget', mcpUrl],
        noApproval,
      );
      const threshold =
        keyBudget.code === 0
          ? (JSON.parse(keyBudget.stdout) as { structuredContent: { confirm_above?: unknown } }).structuredContent.confirm_above
          : undefined;
      check(
        `by key, ${era} era: get_budget shows the key's threshold`,
        JSON.stringify(threshold) === JSON.stringify({ credits: 1, scope: 'api_key' }),
        keyBudget,
      );
    }
  } finally {
    if (stack) await stopStack(stack);
    rmSync(localDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof ConformanceError ? error.message : error);
    process.exit(1);
  },
);
