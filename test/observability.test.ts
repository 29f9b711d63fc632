/**
 * What a request leaves in the function's log: one structured `request` line (route, status,
 * error code, request id as the client saw it, caller, organization), the `Requests` metric in
 * Embedded Metric Format, the details of an unexpected error, and never the bearer token.
 * Logging and metrics are switched on here (the other test files keep them silent).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workspace } from './support/fixtures.ts';
import { call } from './support/http.ts';
import { badTokens, tokenFor } from './support/tokens.ts';

Object.assign(process.env, {
  POWERTOOLS_LOG_LEVEL: 'INFO',
  POWERTOOLS_METRICS_DISABLED: 'false',
  POWERTOOLS_METRICS_NAMESPACE: 'WorkspaceServiceTest',
});
const { handler: listBillingEvents } = await import('../functions/list-billing-events.ts');
const { handler: routeNotFound } = await import('../functions/route-not-found.ts');
const { db } = await import('../lib/db/client.ts');
const { recordCreditsCharged, metrics } = await import('../lib/observability/metrics.ts');

let written: string[] = [];
const originals = { stdout: process.stdout.write, stderr: process.stderr.write };
beforeEach(() => {
  written = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
});
afterEach(() => {
  process.stdout.write = originals.stdout;
  process.stderr.write = originals.stderr;
});

const records = (): Record<string, any>[] =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
const requestLine = () => records().find((record) => record.message === 'request');
const emf = (metric: string) => records().find((record) => record._aws && metric in record);

describe('the request log line', () => {
  it('names the route, status, request id, caller and organization of a successful request', async () => {
    const { orgId, users } = await workspace({ roles: ['owner'] });

    const answer = await call(listBillingEvents, { url: `/organizations/${orgId}/billing/events`, token: tokenFor(users.owner) });

    expect(answer.status).toBe(200);
    expect(requestLine()).toMatchObject({
      level: 'INFO',
      message: 'request',
      service: 'workspace-service',
      route: 'ListBillingEvents',
      status: 200,
      request_id: answer.headers['x-request-id'],
      caller: users.owner,
      organization_id: orgId,
      duration_ms: expect.any(Number),
      function_name: 'ListBillingEvents',
      function_request_id: expect.any(String),
    });
  });

  it.each(Object.entries(badTokens))('carries the error code, and never the token, of a refused request (%s)', async (_, make) => {
    const token = make('user_observed');
    const answer = await call(listBillingEvents, { url: '/organizations/org_x/billing/events', token });

    expect(answer.status).toBe(401);
    expect(requestLine()).toMatchObject({ status: 401, code: 'unauthenticated', route: 'ListBillingEvents' });
    expect(requestLine()).not.toHaveProperty('caller');
    expect(written.join('')).not.toContain(token);
  });

  it('is written for an unknown route too', async () => {
    const answer = await call(routeNotFound, { method: 'DELETE', url: '/nowhere' });

    expect(answer.status).toBe(404);
    expect(requestLine()).toMatchObject({ status: 404, code: 'route_not_found', route: 'RouteNotFound' });
  });
});

describe('an unexpected error', () => {
  it('is logged with its details and the request id, while the client gets a plain 500', async () => {
    const { orgId, users } = await workspace({ roles: ['owner'] });
    const token = tokenFor(users.owner);
    // SDK-level fault: the storage fails under the handler.
    const fault = 'observabilityTestFault';
    db().middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('simulated DynamoDB outage'), { name: 'InternalServerError' });
      },
      { step: 'initialize', name: fault },
    );
    try {
      const answer = await call(listBillingEvents, { url: `/organizations/${orgId}/billing/events`, token });

      expect(answer.status).toBe(500);
      const errorLine = records().find((record) => record.message === 'unhandled error');
      expect(errorLine).toMatchObject({
        level: 'ERROR',
        request_id: answer.headers['x-request-id'],
        caller: users.owner,
        organization_id: orgId,
        error: { name: 'InternalServerError', message: 'simulated DynamoDB outage', stack: expect.any(String) },
      });
      expect(requestLine()).toMatchObject({ status: 500, code: 'internal_error' });
      expect(written.join('')).not.toContain(token);
    } finally {
      db().middlewareStack.remove(fault);
    }
  });
});

describe('metrics', () => {
  it('counts each request by route and status', async () => {
    await call(routeNotFound, { method: 'GET', url: '/nowhere' });

    expect(emf('Requests')).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'WorkspaceServiceTest',
            Dimensions: [['service', 'route', 'status']],
            Metrics: [{ Name: 'Requests', Unit: 'Count' }],
          },
        ],
      },
      service: 'workspace-service',
      route: 'RouteNotFound',
      status: '404',
      Requests: 1,
    });
  });

  it('writes business metrics with the service dimension only', () => {
    recordCreditsCharged(3);

    expect(emf('CreditsCharged')).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          { Namespace: 'WorkspaceServiceTest', Dimensions: [['service']], Metrics: [{ Name: 'CreditsCharged', Unit: 'Count' }] },
        ],
      },
      CreditsCharged: 3,
    });
    expect(metrics.hasStoredMetrics()).toBe(false);
  });
});
