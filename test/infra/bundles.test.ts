/**
 * Every route's function (and the charge sweeper's, the job worker's, the job recovery's and the webhook delivery's), bundled exactly as the stack deploys it (infra/bundling.ts): the AWS
 * SDK is inside, nothing but Node built-ins is left to resolve at run time, a function carries
 * no code of another feature nor of the local stack (the embedded queue among it), and the bundle loads in a fresh `node` with a Lambda-like
 * environment. Sizes and load times are `npm run bundle:report`'s business, not a test's. All
 * are built in one esbuild run, which gives each the bundle a build of its own gives it (checked
 * for one below) in a third of the CPU.
 *
 * In the long tier (`npm run test:long`, vitest.config.ts): it bundles every function and loads each in a fresh `node`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type Bundle, bundle, bundleEach } from '../../infra/bundle.ts';
import { GRANT_EXPIRY_ENTRY } from '../../infra/grant-expiry.ts';
import { JOB_RECOVERY_TABLE_ACTIONS, JOB_WORKER_ENTRY, JOB_WORKER_TABLE_ACTIONS, RECOVER_JOBS_ENTRY } from '../../infra/jobs.ts';
import { RECONCILER_ENTRY, RECONCILER_TABLE_ACTIONS } from '../../infra/reconciler.ts';
import { SWEEPER_ENTRY } from '../../infra/sweeper.ts';
import { TABLE_STREAM_ENTRY, TABLE_STREAM_TABLE_ACTIONS } from '../../infra/table-stream.ts';
import { DELIVER_WEBHOOKS_ENTRY, DELIVER_WEBHOOKS_TABLE_ACTIONS } from '../../infra/webhooks.ts';
import { buildHttpEvent } from '../../lib/local/apigw-event.ts';
import { type Route, routes } from '../../lib/routes.ts';

const outDir = mkdtempSync(join(tmpdir(), 'bundles-test-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

// Every route's function, the charge sweeper and the job recovery (scheduled, not routes), the job worker and the webhook delivery (the queues'), and the table stream's.
const functions: { name: string; path: string; entry: string; tableActions: readonly string[] }[] = [
  ...routes,
  // Its table actions are the sweeper role's (infra/sweeper.ts): it bundles the AWS SDK.
  { name: 'SweepCharges', path: '(schedule)', entry: SWEEPER_ENTRY, tableActions: ['dynamodb:Query'] },
  { name: 'ExpireGrants', path: '(schedule)', entry: GRANT_EXPIRY_ENTRY, tableActions: ['dynamodb:Query'] },
  { name: 'ReconcilePayments', path: '(schedule)', entry: RECONCILER_ENTRY, tableActions: RECONCILER_TABLE_ACTIONS },
  { name: 'JobWorker', path: '(queue)', entry: JOB_WORKER_ENTRY, tableActions: JOB_WORKER_TABLE_ACTIONS },
  { name: 'RecoverJobs', path: '(schedule)', entry: RECOVER_JOBS_ENTRY, tableActions: JOB_RECOVERY_TABLE_ACTIONS },
  { name: 'DeliverWebhooks', path: '(webhooks queue)', entry: DELIVER_WEBHOOKS_ENTRY, tableActions: DELIVER_WEBHOOKS_TABLE_ACTIONS },
  { name: 'TableStream', path: '(stream)', entry: TABLE_STREAM_ENTRY, tableActions: TABLE_STREAM_TABLE_ACTIONS },
];
const built: Map<string, Bundle> = await bundleEach(
  functions.map((fn) => ({ name: fn.name, entry: resolve(fn.entry) })),
  join(outDir, 'each'),
  { tracer: false },
);
const inputs = (name: string) => Object.keys(built.get(name)!.inputs);
/**
 * The social routes, the MCP route (whose tools are the social operations) and the job worker
 * (which runs them); not the routes that read or cancel a job, which never run one.
 */
const runsSocialOperations = (route: Pick<Route, 'path'>) =>
  (route.path.startsWith('/social') && !route.path.startsWith('/social/jobs/')) || route.path === '/mcp' || route.path === '(queue)';

describe.each(functions.map((fn) => [fn.name, fn] as const))('%s', (name, route) => {
  it('bundles the AWS SDK and leaves only Node built-ins external', () => {
    const builtins = new Set([...builtinModules, ...builtinModules.map((module) => `node:${module}`)]);

    expect(built.get(name)!.externals.filter((module) => !builtins.has(module))).toEqual([]);
  });

  it('carries no code of another feature, no Tracer, neither the MCP SDK nor classic zod, and no zod locale but English', () => {
    const bundled = inputs(name);

    // The stream's function counts the providers' health (lib/social/health/consumer.ts), and only that of the social code.
    const socialCode = (input: string) =>
      input.startsWith('lib/social/') && !(name === 'TableStream' && input.startsWith('lib/social/health/'));
    if (!runsSocialOperations(route)) expect(bundled.filter(socialCode)).toEqual([]);
    // The MCP function speaks MCP without the SDK (lib/mcp/server.ts), and no function builds classic zod's schemas.
    expect(
      bundled.filter((input) =>
        /@modelcontextprotocol\/sdk|node_modules\/(zod\/(v4\/classic|v3)\/|zod\/index\.js|zod-to-json-schema|ajv)/.test(input),
      ),
    ).toEqual([]);
    // Routes that never touch the table (the $default route, the discovery document) carry no AWS SDK.
    if (route.tableActions.length === 0) expect(bundled.filter((input) => input.includes('@aws-sdk/'))).toEqual([]);
    // The KMS client signs API keys: only the function that issues them carries it.
    if (!('signsApiKeys' in route && route.signsApiKeys))
      expect(bundled.filter((input) => input.includes('@aws-sdk/client-kms'))).toEqual([]);
    else expect(bundled.filter((input) => input.includes('@aws-sdk/client-kms')).length).toBeGreaterThan(0);
    // The SES client sends the invitations' email: only the two functions that send carry it.
    if (!('sendsEmail' in route && route.sendsEmail))
      expect(bundled.filter((input) => input.includes('@aws-sdk/client-sesv2'))).toEqual([]);
    else expect(bundled.filter((input) => input.includes('@aws-sdk/client-sesv2')).length).toBeGreaterThan(0);
    // The Stripe SDK (about 240 KB): only the routes that call Stripe, which are the ones given its key.
    if (!route.path.startsWith('(')) {
      const callsStripe = ((route as Route).secrets ?? []).includes('stripeSecretKey');
      expect(bundled.some((input) => input.includes('node_modules/stripe/'))).toBe(callsStripe);
    }
    expect(bundled.filter((input) => /aws-xray-sdk|powertools\/tracer/.test(input))).toEqual([]);
    // The SDK's credential chain beyond the environment (infra/stubs/credentials-from-env.ts).
    expect(
      bundled.filter((input) =>
        /@aws-sdk\/(nested-clients|token-providers|credential-provider-(?!env\/))|@smithy\/credential-provider-imds/.test(input),
      ),
    ).toEqual([]);
    if (bundled.some((input) => input.includes('@aws-sdk/client-')))
      expect(bundled.filter((input) => input.endsWith('infra/stubs/credentials-from-env.ts'))).toHaveLength(1);
    expect(bundled.filter((input) => input.includes('zod/v4/locales/') && !input.endsWith('/en.js'))).toEqual([]);
  });

  it('carries nothing of the local stack: not the embedded queue (deployed, its queue is SQS), not lib/local/', () => {
    expect(inputs(name).filter((input) => input.startsWith('lib/local/'))).toEqual([]);
    expect(readFileSync(built.get(name)!.file, 'utf8')).not.toMatch(/EmbeddedQueue|onFirstReceive|inFlightByGroup/);
  });

  it('is given the cursor signing key exactly when it pages with signed cursors (deployed, it is read from the environment)', () => {
    // What the bundle still reads after tree-shaking: a module may be bundled for other exports.
    const pagesWithCursors = readFileSync(built.get(name)!.file, 'utf8').includes('CURSOR_SIGNING_KEY');
    const secrets: readonly string[] = 'secrets' in route ? ((route as Route).secrets ?? []) : [];
    expect({ pagesWithCursors, given: secrets.includes('cursorSigningKey') }).toEqual({ pagesWithCursors, given: pagesWithCursors });
  });

  it('carries no route table: the route names of its logs and metrics are a build-time constant', () => {
    expect(inputs(name).filter((input) => input.startsWith('lib/routes'))).toEqual([]);
  });

  it('carries neither the OpenAPI generator nor the document (GetOpenApiDocument reads it from beside its bundle)', () => {
    const bundled = inputs(name);

    expect(
      bundled.filter((input) => input === 'lib/openapi/document.ts' || /openapi-typescript|@redocly|openapi\.json/.test(input)),
    ).toEqual([]);
  });

  it('loads in a fresh node process', () => {
    const file = pathToFileURL(built.get(name)!.file).href;
    const child = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `const m = await import(${JSON.stringify(file)}); console.log(typeof m.handler);`],
      {
        env: {
          PATH: process.env.PATH,
          AWS_REGION: 'us-east-1',
          AWS_LAMBDA_FUNCTION_NAME: name,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
        encoding: 'utf8',
      },
    );

    expect({ status: child.status, stdout: child.stdout.trim(), stderr: child.stderr }).toEqual({
      status: 0,
      stdout: 'function',
      stderr: '',
    });
  });
});

describe('GetOpenApiDocument', () => {
  it('carries no function, catalog or schema of the API it describes', () => {
    const bundled = inputs('GetOpenApiDocument');

    expect(bundled.filter((input) => /^(functions|lib\/(social|openapi|resources|billing))\//.test(input)).sort()).toEqual([
      'functions/get-openapi-document.ts',
      'lib/openapi/read-asset.ts',
    ]);
  });
});

describe('ListSocialOperations', () => {
  it('bundles no Secrets Manager client (the provider key is read through the extension, and only by a run)', () => {
    const bundled = inputs('ListSocialOperations');

    expect(bundled.filter((input) => input.includes('client-secrets-manager'))).toEqual([]);
  });

  it('bundles the descriptors generated at build time, not the zod schemas of the catalog nor the JSON Schema generator', () => {
    const bundled = inputs('ListSocialOperations');

    expect(bundled.filter((input) => input.startsWith('lib/social/catalog/')).sort()).toEqual([
      'lib/social/catalog/descriptors.packed.ts',
      'lib/social/catalog/descriptors.ts',
      'lib/social/catalog/names.ts',
    ]);
    expect(bundled.filter((input) => /zod\/v4\/(classic\/|core\/(to-json-schema|json-schema))/.test(input))).toEqual([]);
  });
});

describe('RouteNotFound', () => {
  it('answers 405 with Allow from the route keys built into its bundle, and 404 elsewhere', () => {
    const event = (method: string, path: string) => buildHttpEvent({ method, path, routeKey: '$default', rawQueryString: '', headers: {} });
    const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(built.get('RouteNotFound')!.file).href)});
      const results = [];
      for (const event of JSON.parse(process.env.EVENTS)) results.push(await handler(event, { functionName: 'RouteNotFound', awsRequestId: '1', getRemainingTimeInMillis: () => 3000 }));
      process.stdout.write('\\nRESULTS ' + JSON.stringify(results));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'us-east-1',
        AWS_LAMBDA_FUNCTION_NAME: 'RouteNotFound',
        EVENTS: JSON.stringify([event('GET', '/organizations/org_a/members/u_1'), event('GET', '/nowhere')]),
      },
      encoding: 'utf8',
    });

    expect(child.stderr).toBe('');
    const results = JSON.parse(child.stdout.split('\nRESULTS ')[1]!) as {
      statusCode: number;
      headers: Record<string, string>;
      body: string;
    }[];
    expect(results.map((result) => [result.statusCode, result.headers.Allow, JSON.parse(result.body).code])).toEqual([
      [405, 'PUT, DELETE', 'method_not_allowed'],
      [404, undefined, 'route_not_found'],
    ]);
  });
});

describe('all built in one esbuild run', () => {
  it('gives each function the bundle a build of its own gives it, byte for byte', async () => {
    const route = routes.find((candidate) => candidate.name === 'RunSocialOperation')!;
    const alone = await bundle(resolve(route.entry), join(outDir, 'alone', route.name), { tracer: false });
    const together = built.get(route.name)!;

    expect(readFileSync(together.file, 'utf8') === readFileSync(alone.file, 'utf8')).toBe(true);
    expect(readFileSync(`${together.file}.map`, 'utf8') === readFileSync(`${alone.file}.map`, 'utf8')).toBe(true);
    expect({ inputs: together.inputs, externals: together.externals }).toEqual({ inputs: alone.inputs, externals: alone.externals });
  });
});

describe('with the Tracer asked for (`-c tracer=true`)', () => {
  it('bundles the Powertools Tracer and the X-Ray SDK, and still loads', async () => {
    const route = routes.find((candidate) => candidate.path === '$default')!;
    const traced = await bundle(resolve(route.entry), join(outDir, 'traced'), { tracer: true });
    const child = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(traced.file).href)});`],
      {
        env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: route.name },
        encoding: 'utf8',
      },
    );

    expect(Object.keys(traced.inputs).some((input) => input.includes('aws-xray-sdk-core'))).toBe(true);
    expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
  });
});

describe('Mcp', () => {
  it('serves initialize, tools/list, tools/call, ping and a notification from its bundle as deployed', async () => {
    const { workspace } = await import('../support/fixtures.ts');
    const { tokenFor } = await import('../support/tokens.ts');
    const { orgId, users } = await workspace({ credits: 1, networks: ['x'] });
    const message = (id: number | undefined, method: string, params: unknown) =>
      buildHttpEvent({
        method: 'POST',
        path: '/mcp',
        routeKey: 'ANY /mcp',
        rawQueryString: `organization_id=${orgId}`,
        headers: {
          authorization: `Bearer ${tokenFor(users.editor)}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
      });
    const events = [
      message(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bundle-test', version: '1' } }),
      message(2, 'tools/list', {}),
      message(3, 'tools/call', { name: 'x_profile', arguments: { handle: 'nasa' } }),
      message(4, 'ping', undefined),
      message(undefined, 'notifications/initialized', undefined),
    ];
    // A fresh process, as in Lambda, on this test file's table and JWKS (its environment).
    const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(built.get('Mcp')!.file).href)});
      const results = [];
      for (const event of JSON.parse(process.env.EVENTS)) results.push(await handler(event, { functionName: 'Mcp', awsRequestId: '1', getRemainingTimeInMillis: () => 29000 }));
      process.stdout.write('\\nRESULTS ' + JSON.stringify(results));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, EVENTS: JSON.stringify(events), AWS_LAMBDA_FUNCTION_NAME: 'Mcp', SOCIAL_PROVIDER: 'sample' },
      encoding: 'utf8',
    });

    expect(child.stderr).toBe('');
    // Its metrics (EMF lines) go to stdout too, named by the route names built into the bundle.
    const [emf, resultsText] = child.stdout.split('\nRESULTS ');
    const requests = emf!.split('\n').flatMap((line) => (line.includes('"Requests"') ? [JSON.parse(line).route] : []));
    expect(requests).toEqual(['Mcp', 'Mcp', 'Mcp', 'Mcp', 'Mcp']);
    const [initialize, list, run, ping, initialized] = (JSON.parse(resultsText!) as { statusCode: number; body?: string }[]).map(
      (result) => ({
        status: result.statusCode,
        body: result.body ? JSON.parse(result.body) : undefined,
      }),
    );
    expect(initialize).toMatchObject({ status: 200, body: { id: 1, result: { serverInfo: { name: 'workspace-service' } } } });
    expect(list).toMatchObject({
      status: 200,
      body: { id: 2, result: { tools: expect.arrayContaining([expect.objectContaining({ name: 'x_profile' })]) } },
    });
    expect(run).toMatchObject({
      status: 200,
      body: { id: 3, result: { structuredContent: { network: 'x' }, _meta: { credits_charged: 1 } } },
    });
    expect([ping, initialized]).toEqual([
      { status: 200, body: { jsonrpc: '2.0', id: 4, result: {} } },
      { status: 202, body: undefined },
    ]);
  });
});
