import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, javaMajorVersion } from '../lib/local/dynamodb-local.ts';
import { REPO, runAdmin, runScript, TSX } from './support/processes.ts';
import { type ScrapeCreatorsStub, STUB_KEY, startScrapeCreatorsStub } from './support/scrapecreators-stub.ts';

interface DevInfo {
  baseUrl: string;
  pid: number;
  dynamodbEndpoint: string;
  organizationId: string;
  tokens: Record<'owner' | 'editor' | 'viewer', string>;
  apiKey: { id: string; role: string; token: string };
  deleted: Record<string, string[]>;
  live: Record<string, string[]>;
  payments: { api_base: string; secret_key: string; webhook_secret: string; webhook_url: string; pricing: unknown };
}

// The parent's test settings (its table, a silent log) are not the local stack's.
const STACK_ENV = { TABLE_NAME: '', DYNAMODB_ENDPOINT: '', LOG_LEVEL: 'INFO' };

interface Stack {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
  dev: DevInfo;
}

/** `npm start` in its own process and working directory, once it says it is ready. *
 * In the long tier (`npm run test:long`, vitest.config.ts): it starts `npm start` as a process, twice, and SIGKILLs it.
 */
async function startStack(cwd: string, env: Record<string, string>): Promise<Stack> {
  const child = spawn(process.execPath, ['--import', TSX, `${REPO}scripts/start.ts`], {
    cwd,
    env: { ...process.env, ...STACK_ENV, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await until(
    () => output.includes('Ctrl-C stops'),
    60_000,
    () => `npm start did not come up:\n${output}`,
    () => child.exitCode !== null,
  );
  return { child, output: () => output, exited, dev: readDev(cwd) };
}

const readDev = (cwd: string) => JSON.parse(readFileSync(join(cwd, '.local', 'dev.json'), 'utf8')) as DevInfo;

async function until(done: () => boolean, timeoutMs: number, failure: () => string, givenUp: () => boolean = () => false) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (givenUp() || Date.now() > deadline) throw new Error(failure());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A start that is expected to refuse: its exit code and what it printed. */
async function refusedStart(cwd: string, env: Record<string, string>) {
  const result = await runScript('scripts/start.ts', [], { cwd, env: { ...STACK_ENV, ...env } });
  return { code: result.code, output: result.stdout + result.stderr };
}

/** Command lines of running processes that mention `text` (a data directory). */
const processesMentioning = (text: string) =>
  execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(text));

/** The body of a chunked response (ASCII JSON here, so characters are bytes). */
function dechunk(chunked: string): string {
  let body = '';
  for (let rest = chunked; ; ) {
    const end = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, end), 16);
    if (!size) return body;
    body += rest.slice(end + 2, end + 2 + size);
    rest = rest.slice(end + 2 + size + 2);
  }
}

/**
 * Sends bytes as they are (fetch cannot send an invalid method or target) and reads the answer
 * until the server closes the connection.
 */
function rawHttp(port: number, request: string): Promise<{ status: number; headers: Record<string, string>; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      let body = text.slice(split + 4);
      if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined });
    });
    // Not end(): Node's server drops a half-closed connection whose answer is still on its way.
    socket.write(request);
  });
}

/** 127.0.0.1, as /proc/net/tcp writes it and as tcp6 writes it (::ffff:127.0.0.1), and ::1. */
const LOOPBACK = ['0100007F', '0000000000000000FFFF00000100007F', '00000000000000000000000001000000'];

/** The local addresses of the sockets listening on `port` (Linux: /proc/net/tcp and tcp6). */
const listenAddresses = (port: number) =>
  ['/proc/net/tcp', '/proc/net/tcp6']
    .flatMap((file) => readFileSync(file, 'utf8').split('\n').slice(1))
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === '0A' && Number.parseInt(fields[1]?.split(':')[1] ?? '', 16) === port)
    .map((fields) => fields[1]!.split(':')[0]!);

const fakeJava = (version: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'old-java-'));
  writeFileSync(join(dir, 'java'), `#!/bin/sh\necho '${version}' >&2\n`);
  chmodSync(join(dir, 'java'), 0o755);
  return `${dir}${delimiter}${process.env.PATH}`;
};

describe('Java version', () => {
  it.each([
    ['java version "1.8.0_392"', 8],
    ['openjdk version "11.0.2" 2019-01-15', 11],
    ['openjdk version "17.0.15" 2025-04-15', 17],
    ['openjdk version "21" 2023-09-19', 21],
    ['no version here', null],
  ])('reads %s as %s', (output, major) => {
    expect(javaMajorVersion(output)).toBe(major);
  });
});

/**
 * `npm start` end to end: the real script in its own process and working directory, reached
 * over HTTP like a client would. One stack on a DATA_DIR serves most tests; others start
 * beside it and must refuse; it is then killed with SIGKILL with paid runs in flight, restarted
 * on its data (where the operator's sweep refunds the lost charges), and stopped with SIGTERM.
 * Each start costs a JVM and a seed, so the tests share these few.
 */
describe('local stack (npm start)', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'local-stack-'));
  const dataDir = join(cwd, 'data');
  let port: number;
  let stack: Stack;
  let dev: DevInfo;
  let stub: ScrapeCreatorsStub;
  /** The stack's settings: ScrapeCreators is a stub that can hang; the test sweeps as the operator. */
  let env: Record<string, string>;

  beforeAll(async () => {
    port = await freePort();
    stub = await startScrapeCreatorsStub();
    env = {
      PORT: String(port),
      DATA_DIR: dataDir,
      SOCIAL_PROVIDER: 'http',
      SCRAPECREATORS_BASE_URL: stub.baseUrl,
      SCRAPECREATORS_API_KEY: STUB_KEY,
      SWEEP_INTERVAL_SECONDS: '0',
    };
    stack = await startStack(cwd, env);
    dev = stack.dev;
  }, 90_000);
  afterAll(async () => {
    stack?.child.kill('SIGKILL');
    await stub?.close();
  });

  it('serves the seeded demo workspace, and names its server in .local/dev.json', async () => {
    expect(dev.baseUrl).toBe(`http://127.0.0.1:${port}`);
    expect(dev.pid).toBe(stack.child.pid);
    expect(stack.output()).toContain(`Workspace Service running at http://127.0.0.1:${port}`);
    expect(stack.output()).toContain(dev.tokens.owner);
    expect(Object.values(dev.deleted).flat()).toHaveLength(6);

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

    // The demo API key, printed and in dev.json, works as an editor of the demo workspace.
    expect(stack.output()).toContain(dev.apiKey.token);
    const me = await fetch(`${dev.baseUrl}/me`, { headers: { Authorization: `Bearer ${dev.apiKey.token}` } });
    expect(await me.json()).toEqual({
      user_id: dev.apiKey.id,
      token_kind: 'api_key',
      api_key_id: dev.apiKey.id,
      email: null,
      organizations: [
        {
          organization_id: dev.organizationId,
          role: 'editor',
          spending_limit: 100,
          spent: expect.any(Number),
          daily_limit: null,
          spent_today: expect.any(Number),
        },
      ],
      invitations: [],
    });

    expect(stack.output()).toContain(`API reference at ${dev.baseUrl}/docs`);
    // The console, built at start, and its demo users: the tokens dev.json holds (docs/console.md).
    expect(stack.output()).toContain(`Console at ${dev.baseUrl}/console`);
    expect((await fetch(`${dev.baseUrl}/console`)).status).toBe(200);
    const demo = (await (await fetch(`${dev.baseUrl}/local-idp/demo-users`)).json()) as { users: { role: string; token: string }[] };
    expect(Object.fromEntries(demo.users.map((user) => [user.role, user.token]))).toEqual(dev.tokens);
    const described = await fetch(`${dev.baseUrl}/openapi.json`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(described.status).toBe(200);
    expect(((await described.json()) as { openapi: string }).openapi).toMatch(/^3\.1\./);

    const unknown = await fetch(`${dev.baseUrl}/no/such/route`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'route_not_found', message: 'no route for DELETE /no/such/route' });
  });

  it('lets the admin CLI recover and requeue jobs on its own queues, without a queue URL', async () => {
    const [recovered, requeued] = await Promise.all([runAdmin(['jobs', 'recover'], { cwd }), runAdmin(['jobs', 'requeue'], { cwd })]);

    expect({ code: recovered.code, stdout: JSON.parse(recovered.stdout), stderr: recovered.stderr }).toEqual({
      code: 0,
      stdout: { jobs: 0, messages: 0, cancelled: 0 },
      stderr: '',
    });
    expect({ code: requeued.code, stdout: JSON.parse(requeued.stdout) }).toEqual({ code: 0, stdout: { jobs: 0, messages: 0 } });
  });

  it('runs DynamoDB Local on 127.0.0.1 only', () => {
    const listening = listenAddresses(Number(new URL(dev.dynamodbEndpoint).port));
    expect(listening.length).toBeGreaterThan(0);
    for (const address of listening) expect(LOOPBACK).toContain(address);
  });

  it('pays locally: its payments server on 127.0.0.1, named in dev.json, whose checkout credits the balance once through the webhook', async () => {
    // Prepare
    const { payments } = dev;
    expect(payments).toEqual({
      api_base: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      secret_key: expect.stringMatching(/^sk_test_/),
      webhook_secret: expect.stringMatching(/^whsec_/),
      webhook_url: `${dev.baseUrl}/payments/stripe/webhook`,
      pricing: { unit_amount: 1, currency: 'usd', min_credits: 500, max_credits: 100_000 },
    });
    expect(stack.output()).toContain(`Payments server (Stripe's API; test card 4242 4242 4242 4242) at ${payments.api_base}`);
    for (const address of listenAddresses(Number(new URL(payments.api_base).port))) expect(LOOPBACK).toContain(address);
    const owner = { Authorization: `Bearer ${dev.tokens.owner}` };
    const balance = async () => {
      const credits = await fetch(`${dev.baseUrl}/organizations/${dev.organizationId}/credits`, { headers: owner });
      return ((await credits.json()) as { balance: number }).balance;
    };
    const before = await balance();

    // Act
    const created = await fetch(`${dev.baseUrl}/organizations/${dev.organizationId}/credit-purchases`, {
      method: 'POST',
      headers: { ...owner, 'Content-Type': 'application/json' },
      body: JSON.stringify({ credits: 500 }),
    });
    const purchase = (await created.json()) as { id: string; checkout_url: string };
    const paid = await fetch(purchase.checkout_url, {
      method: 'POST',
      body: new URLSearchParams({ card_number: '4242 4242 4242 4242', exp_month: '12', exp_year: '2040', cvc: '123' }),
      redirect: 'manual',
    });
    // The webhook settles it within seconds (docs/funding.md): read until it has.
    let status = 'open';
    for (const deadline = Date.now() + 10_000; status !== 'paid' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const read = await fetch(`${dev.baseUrl}/organizations/${dev.organizationId}/credit-purchases/${purchase.id}`, { headers: owner });
      status = ((await read.json()) as { status: string }).status;
    }
    // The CLI's pass over the same events, with the key dev.json gives it, credits nothing again.
    const reconciled = await runAdmin(['payments', 'reconcile'], { cwd });

    // Assess
    expect(created.status).toBe(201);
    expect(purchase.checkout_url.startsWith(`${payments.api_base}/c/pay/cs_test_`)).toBe(true);
    expect(paid.status).toBe(303);
    expect(status).toBe('paid');
    expect(await balance()).toBe(before + 500);
    expect({ code: reconciled.code, stdout: JSON.parse(reconciled.stdout), stderr: reconciled.stderr }).toEqual({
      code: 0,
      stdout: { events: expect.any(Number), settled: 0, reversed: 0 },
      stderr: '',
    });
    expect(await balance()).toBe(before + 500);
  });

  describe('edges, answered like API Gateway in the documented error shape', () => {
    const huge = 'a'.repeat(100_000);
    it.each([
      [
        'an absolute-form target with an invalid host',
        'GET http://[bad/x HTTP/1.1\r\n',
        400,
        'bad_request',
        'the request target is not a valid URL',
      ],
      ['a target without a leading slash', 'GET foo HTTP/1.1\r\n', 400, 'bad_request', 'the request target must be a path starting with /'],
      ['a method that is not an HTTP token', 'FO(O / HTTP/1.1\r\n', 400, 'bad_request', 'the request method is not valid'],
      ['an unknown method', 'FOO / HTTP/1.1\r\n', 400, 'bad_request', 'the request method is not valid'],
      ['a CONNECT tunnel', 'CONNECT example.test:443 HTTP/1.1\r\n', 400, 'bad_request', 'the request method is not supported'],
      [
        'a WebSocket upgrade',
        'GET /social/operations HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n',
        400,
        'bad_request',
        'protocol upgrades are not supported',
      ],
      [
        '20 KB of headers (over API Gateway 10,240 bytes)',
        `GET /social/operations HTTP/1.1\r\nX-Padding: ${'p'.repeat(20_000)}\r\n`,
        431,
        'headers_too_large',
        'the request line and headers exceed 10240 bytes',
      ],
      [
        'a 100 KB token (over the parser limit)',
        `GET /social/operations HTTP/1.1\r\nAuthorization: Bearer ${huge}\r\n`,
        431,
        'headers_too_large',
        'the request line and headers exceed 10240 bytes',
      ],
    ])('%s', async (_case, requestHead, status, code, message) => {
      const answer = await rawHttp(port, `${requestHead}Host: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
      expect(answer.status).toBe(status);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.body).toEqual({ code, message, request_id: answer.headers['x-request-id'] });
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('joins two Authorization headers with a comma, as API Gateway does: a valid token then garbage is refused', async () => {
      const path = `/organizations/${dev.organizationId}/billing/events`;
      const twice = await rawHttp(
        port,
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${dev.tokens.owner}\r\nAuthorization: Bearer garbage\r\nConnection: close\r\n\r\n`,
      );
      expect(twice.status).toBe(401);
      expect(twice.body).toEqual({
        code: 'unauthenticated',
        message: 'the Authorization header must be the Bearer scheme followed by one token',
        data: { reason: 'not_bearer' },
        request_id: twice.headers['x-request-id'],
      });
      // The same token alone, in an absolute-form target, is fine.
      const once = await rawHttp(
        port,
        `GET http://localhost:${port}${path} HTTP/1.1\r\nHost: localhost:${port}\r\nAuthorization: Bearer ${dev.tokens.owner}\r\nConnection: close\r\n\r\n`,
      );
      expect(once.status).toBe(200);
    });

    it('refuses a request for another Host (a DNS-rebound page) before anything runs: the demo tokens stay in', async () => {
      const answer = await rawHttp(port, 'GET /local-idp/demo-users HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n');

      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({
        code: 'forbidden',
        message: `this local server answers only for 127.0.0.1:${port}, localhost:${port} and [::1]:${port}, not Host "evil.example" (a guard against DNS rebinding)`,
        request_id: answer.headers['x-request-id'],
      });
    });
  });

  it('logs one request line per request with its own request_id, route and function under concurrency', async () => {
    const owner = { Authorization: `Bearer ${dev.tokens.owner}` };
    const targets = [
      { method: 'GET', path: `/organizations/${dev.organizationId}/billing/events`, route: 'ListBillingEvents' },
      { method: 'GET', path: `/social/operations?organization_id=${dev.organizationId}`, route: 'ListSocialOperations' },
      { method: 'POST', path: `/assets/${dev.live.asset![0]}/restore`, route: 'RestoreAsset' },
      { method: 'DELETE', path: '/nowhere', route: 'RouteNotFound' },
    ];
    const sent = await Promise.all(
      Array.from({ length: 32 }, async (_, i) => {
        const target = targets[i % targets.length]!;
        const response = await fetch(`${dev.baseUrl}${target.path}`, { method: target.method, headers: owner });
        await response.arrayBuffer();
        return { id: response.headers.get('x-request-id')!, route: target.route, status: response.status };
      }),
    );
    expect(new Set(sent.map((request) => request.status))).toEqual(new Set([200, 404]));
    const requestLines = () =>
      stack
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{') && line.includes('"message":"request"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const ids = new Set(sent.map((request) => request.id));
    await until(
      () => requestLines().filter((line) => ids.has(line.request_id as string)).length >= sent.length,
      10_000,
      () => 'request lines missing',
    );
    const lines = requestLines().filter((line) => ids.has(line.request_id as string));
    expect(lines).toHaveLength(sent.length);
    for (const request of sent) {
      const line = lines.find((each) => each.request_id === request.id)!;
      expect({ route: line.route, function_name: line.function_name, status: line.status }).toEqual({
        route: request.route,
        function_name: request.route,
        status: request.status,
      });
      // Keys appended by another request in flight never show up: no caller before authentication.
      if (request.route === 'RouteNotFound') expect(line).not.toHaveProperty('caller');
      else expect(line.caller).toBe('user_demo_owner');
    }
    // And the short line per request a person watching `npm start` reads (without LOG_FORMAT=json).
    for (const target of targets) {
      const path = target.path.split('?')[0]!.replace(/[/.]/g, (char) => `\\${char}`);
      expect(stack.output()).toMatch(new RegExp(`^${target.method} ${path} (200|404) \\d+ ms$`, 'm'));
    }
  });

  it('refuses, naming why: a second start in the checkout, a start on the DATA_DIR in use, on a busy PORT (before anything slow), with Java 8', async () => {
    const devBefore = readFileSync(join(cwd, '.local', 'dev.json'), 'utf8');
    const elsewhere = mkdtempSync(join(tmpdir(), 'local-stack-other-'));
    const [second, sameData, busy, oldJava] = await Promise.all([
      refusedStart(cwd, { PORT: String(await freePort()) }),
      refusedStart(elsewhere, { PORT: String(await freePort()), DATA_DIR: dataDir }),
      // Java 8 on PATH: had the port been checked after Java, this would be about Java.
      refusedStart(mkdtempSync(join(tmpdir(), 'local-stack-busy-')), { PORT: String(port), PATH: fakeJava('java version "1.8.0_392"') }),
      refusedStart(mkdtempSync(join(tmpdir(), 'local-stack-java-')), {
        PORT: String(await freePort()),
        PATH: fakeJava('java version "1.8.0_392"'),
      }),
    ]);
    expect(second.code).toBe(1);
    expect(second.output).toContain(`Another local stack is running from this checkout (pid ${stack.child.pid}, ${dev.baseUrl};`);
    // The refused one leaves the running one its state.
    expect(readFileSync(join(cwd, '.local', 'dev.json'), 'utf8')).toBe(devBefore);
    expect(existsSync(join(cwd, '.local', 'stack.lock'))).toBe(true);

    expect(sameData.code).toBe(1);
    expect(sameData.output).toContain(`${dataDir} is in use by another local stack (pid ${stack.child.pid})`);
    expect(existsSync(join(elsewhere, '.local', 'stack.lock'))).toBe(false);

    expect(busy.code).toBe(1);
    expect(busy.output).toContain(`PORT ${port} is in use: another process listens on 127.0.0.1:${port}.`);

    expect(oldJava.code).toBe(1);
    expect(oldJava.output).toContain('DynamoDB Local needs Java 17 or newer; `java` on PATH is Java 8 (java version "1.8.0_392").');
  });

  it('takes DynamoDB Local down with a SIGKILLed server; the admin CLI then refuses; a restart on the DATA_DIR finds the demo again, and the sweep refunds the runs that were in flight exactly once', async () => {
    const owner = { Authorization: `Bearer ${dev.tokens.owner}` };
    const balance = async (baseUrl: string) => {
      const answer = await fetch(`${baseUrl}/organizations/${dev.organizationId}/credits`, { headers: owner });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { balance: number }).balance;
    };
    const restored = dev.deleted.asset![0]!;
    const restore = await fetch(`${dev.baseUrl}/assets/${restored}/restore`, { method: 'POST', headers: owner });
    expect(restore.status).toBe(200);
    expect(processesMentioning(dataDir)).toHaveLength(1);
    // Three paid runs stuck in the provider (one with an Idempotency-Key): each was charged.
    const before = await balance(dev.baseUrl);
    for (let i = 0; i < 3; i += 1) stub.next({ kind: 'hang' });
    const runs = [undefined, undefined, 'crash-key-1'].map((key) =>
      fetch(`${dev.baseUrl}/social/tiktok_profile?organization_id=${dev.organizationId}`, {
        method: 'POST',
        headers: { ...owner, 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
        body: JSON.stringify({ handle: 'nasa' }),
      }).catch((error: unknown) => error),
    );
    await until(
      () => stub.requests.length >= 3,
      30_000,
      () => `the provider saw ${stub.requests.length} of 3 runs`,
    );

    // The server dies mid-call; DynamoDB Local dies with it, as documented. The database keeps
    // what it acknowledged, as DynamoDB outlives a Lambda.
    stack.child.kill('SIGKILL');
    await stack.exited;
    await until(
      () => processesMentioning(dataDir).length === 0,
      15_000,
      () => `still running on ${dataDir}: ${processesMentioning(dataDir)}`,
    );
    for (const answer of await Promise.all(runs)) expect(answer).toBeInstanceOf(Error);

    const admin = await runAdmin(['credits', 'grant', '--org', dev.organizationId, '--amount', '5'], { cwd });
    expect(admin.code).toBe(1);
    expect(admin.stderr).toContain(
      `The local stack described by .local/dev.json is not running any more (its server, pid ${stack.child.pid}, is gone).`,
    );

    stack = await startStack(cwd, env);
    const again = stack.dev;
    expect(stack.output()).toContain(`Demo workspace org_demo already present in ${dataDir}`);
    expect(again.deleted).toEqual({ ...dev.deleted, asset: dev.deleted.asset!.filter((id) => id !== restored) });
    expect(again.live.asset).toEqual([...dev.live.asset!, restored]);
    expect(await balance(again.baseUrl)).toBe(before - 3);

    // Two sweeps at once, as of a time when the runs can no longer finish: three refunds in all.
    const later = new Date(Date.now() + 3600_000).toISOString();
    const sweeps = await Promise.all([0, 1].map(() => runAdmin(['charges', 'sweep', '--at', later], { cwd })));
    for (const sweep of sweeps) expect(sweep.code).toBe(0);
    expect(sweeps.reduce((sum, sweep) => sum + (JSON.parse(sweep.stdout) as { refunded: number }).refunded, 0)).toBe(3);
    expect(await balance(again.baseUrl)).toBe(before);
    const pending = await runAdmin(['charges', 'pending', '--org', dev.organizationId], { cwd });
    expect(JSON.parse(pending.stdout)).toEqual({ pending: [] });
    const events = await fetch(`${again.baseUrl}/organizations/${again.organizationId}/billing/events?days=1`, { headers: owner });
    expect(events.status).toBe(200);
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

    // Usage, counted by the stack's stream poller across the kill and the restart (its checkpoint
    // in the DATA_DIR): every charge and refund of the demo workspace, each once.
    const day = 86_400_000;
    const to = (Math.floor(Date.now() / day) + 1) * day;
    const window = `from=${new Date(to - 30 * day).toISOString()}&to=${new Date(to).toISOString()}`;
    const every = await fetch(`${again.baseUrl}/organizations/${again.organizationId}/billing/events?days=30&limit=100`, {
      headers: owner,
    });
    const amounts = ((await every.json()) as { events: { type: string; amount: number }[] }).events
      .filter((event) => event.type.startsWith('social_operation.'))
      .reduce((sum, event) => sum + event.amount, 0);
    const netOfUsage = async () => {
      const answer = await fetch(`${again.baseUrl}/organizations/${again.organizationId}/usage?${window}`, { headers: owner });
      const body = (await answer.json()) as { buckets: { results: { net: number }[] }[] };
      return body.buckets.flatMap((bucket) => bucket.results).reduce((sum, result) => sum + result.net, 0);
    };
    let net = await netOfUsage();
    for (const giveUpAt = Date.now() + 20_000; net !== -amounts && Date.now() < giveUpAt; net = await netOfUsage()) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(net).toBe(-amounts);
    expect(existsSync(join(dataDir, 'table-stream-checkpoint.json'))).toBe(true);

    stack.child.kill('SIGTERM');
    expect(await stack.exited).toBe(0);
    expect(existsSync(join(cwd, '.local', 'dev.json'))).toBe(false);
    expect(existsSync(join(cwd, '.local', 'stack.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'dynamodb-local.lock'))).toBe(false);
    expect(processesMentioning(dataDir)).toEqual([]);
    await expect(fetch(again.dynamodbEndpoint)).rejects.toThrow();
  }, 90_000);
});
