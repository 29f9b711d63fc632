/**
 * What a request leaves in the function's log: one structured `request` line (route, status,
 * error code, request id as the client saw it, caller, organization), the `Requests` metric in
 * Embedded Metric Format, the details of an unexpected error, and never the bearer token.
 * Logging and metrics are switched on here (the other test files keep them silent).
 */
import { describe, expect, it, vi } from 'vitest';
import { workspace } from './support/fixtures.ts';
import { call } from './support/http.ts';
import { badTokens, tokenFor } from './support/tokens.ts';

Object.assign(process.env, {
  POWERTOOLS_LOG_LEVEL: 'INFO',
  POWERTOOLS_METRICS_DISABLED: 'false',
  POWERTOOLS_METRICS_NAMESPACE: 'WorkspaceServiceTest',
  SOCIAL_PROVIDER: 'sample',
});
const { handler: createApiKey } = await import('../functions/create-api-key.ts');
const { handler: revokeApiKey } = await import('../functions/revoke-api-key.ts');
const { handler: listBillingEvents } = await import('../functions/list-billing-events.ts');
const { handler: mcp } = await import('../functions/mcp.ts');
const { handler: routeNotFound } = await import('../functions/route-not-found.ts');
const { handler: runSocialOperation } = await import('../functions/run-social-operation.ts');
const { db } = await import('../lib/db/client.ts');
const { recordCreditsCharged } = await import('../lib/observability/metrics.ts');
const { sampleProvider } = await import('../lib/social/providers/sample.ts');
const { UpstreamError, UpstreamNotFoundError } = await import('../lib/social/providers/types.ts');
const { deleted, restore } = await import('./support/resources.ts');
const { runUrl } = await import('./support/social.ts');
const { failCommands } = await import('./support/inject-failure.ts');
const { captureOutput } = await import('./support/output.ts');

const output = captureOutput();
const records = output.records;
const requestLine = () => records().find((record) => record.message === 'request');
const emf = (metric: string) => records().find((record) => record._aws && metric in record);
/** The values of one metric over every EMF record written so far. */
const values = (metric: string): number[] => records().flatMap((record) => (record._aws && metric in record ? [record[metric]] : []));

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
    expect(requestLine()).toMatchObject({
      status: 401,
      code: 'unauthenticated',
      auth_failure: answer.body.data.reason,
      route: 'ListBillingEvents',
    });
    expect(requestLine()).not.toHaveProperty('caller');
    expect(output.text()).not.toContain(token);
  });

  it('counts the 401 in the Unauthorized metric by reason', async () => {
    const answer = await call(listBillingEvents, {
      url: '/organizations/org_x/billing/events',
      token: tokenFor('u', { ttlSeconds: -120 }),
    });

    expect(answer.status).toBe(401);
    expect(values('Unauthorized')).toEqual([1]);
    expect(emf('Unauthorized')).toMatchObject({ reason: 'expired', service: 'workspace-service' });
    expect(emf('Unauthorized')?._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service', 'reason']]);
    expect(requestLine()).toMatchObject({ status: 401, auth_failure: 'expired' });
  });

  it('carries the organization of the resource on a restore, which has none in its path', async () => {
    const { orgId, users } = await workspace();
    const asset = await deleted('asset', { orgId, by: users.editor });

    const answer = await restore('asset', asset.id, users.editor);

    expect(answer.status).toBe(200);
    expect(requestLine()).toMatchObject({ route: 'RestoreAsset', status: 200, caller: users.editor, organization_id: orgId });
  });

  it('names the MCP method, the tool and the code of a refused tool call, answered 200', async () => {
    const { orgId, users } = await workspace({ credits: 0, roles: ['editor'] });

    const answer = await call(mcp, {
      method: 'POST',
      url: `/mcp?organization_id=${orgId}`,
      token: tokenFor(users.editor),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x_profile', arguments: { handle: 'nasa' } } },
    });

    expect(answer.status).toBe(200);
    expect(requestLine()).toMatchObject({
      route: 'Mcp',
      status: 200,
      caller: users.editor,
      organization_id: orgId,
      mcp_method: 'tools/call',
      tool: 'x_profile',
      tool_error: 'insufficient_credits',
    });
  });

  it('is written for an unknown route too', async () => {
    const answer = await call(routeNotFound, { method: 'DELETE', url: '/nowhere' });

    expect(answer.status).toBe(404);
    expect(requestLine()).toMatchObject({ status: 404, code: 'route_not_found', route: 'RouteNotFound' });
  });
});

describe('an API key', () => {
  it('leaves no key material in any line: not its token, nor its signature, from creation to revocation', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 5, roles: ['owner'] });

    // Act
    const created = await call(createApiKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: tokenFor(users.owner),
      body: { name: 'observed', role: 'editor' },
    });
    const token: string = created.body.token;
    const ran = await call(runSocialOperation, { method: 'POST', url: runUrl('tiktok_profile', orgId), token, body: { handle: 'nasa' } });
    await call(revokeApiKey, {
      method: 'DELETE',
      url: `/organizations/${orgId}/api-keys/${created.body.id}`,
      token: tokenFor(users.owner),
    });
    const refused = await call(runSocialOperation, {
      method: 'POST',
      url: runUrl('tiktok_profile', orgId),
      token,
      body: { handle: 'nasa' },
    });

    // Assess
    expect([created.status, ran.status, refused.status]).toEqual([201, 200, 401]);
    const log = output.text();
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.split('.')[2]);
    expect(log).not.toContain(token.split('.')[1]);
    const lines = records().filter((record) => record.message === 'request');
    expect(lines.map((line) => [line.status, line.caller])).toEqual([
      [201, users.owner],
      [200, created.body.id],
      [204, users.owner],
      [401, created.body.id],
    ]);
    expect(lines.at(-1)).toMatchObject({ code: 'unauthenticated', auth_failure: 'revoked' });
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
      expect(output.text()).not.toContain(token);
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

  it("counts an instance's cold start once, on its first request, by function name", async () => {
    vi.resetModules(); // a fresh instance: its modules loaded anew
    const { handler: fresh } = await import('../functions/route-not-found.ts');

    await call(fresh, { method: 'GET', url: '/nowhere' });
    await call(fresh, { method: 'GET', url: '/nowhere' });

    expect(records().filter((record) => record._aws && 'ColdStart' in record)).toEqual([
      {
        _aws: {
          Timestamp: expect.any(Number),
          CloudWatchMetrics: [
            {
              Namespace: 'WorkspaceServiceTest',
              Dimensions: [['service', 'function_name']],
              Metrics: [{ Name: 'ColdStart', Unit: 'Count' }],
            },
          ],
        },
        service: 'workspace-service',
        function_name: 'RouteNotFound',
        ColdStart: 1,
      },
    ]);
    expect(values('Requests')).toEqual([1, 1]);
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
  });

  describe('of a social operation run', () => {
    const run = (orgId: string, user: string, operation = 'tiktok_trend_scan', body: unknown = { region: 'US' }) =>
      call(runSocialOperation, { method: 'POST', url: runUrl(operation, orgId), token: tokenFor(user), body });

    it('counts the credits charged and the provider call latency, and no failure or refund', async () => {
      const { orgId, users } = await workspace({ credits: 10 });

      const answer = await run(orgId, users.editor);

      expect(answer.status).toBe(200);
      expect(values('CreditsCharged')).toEqual([5]);
      expect(values('UpstreamLatency')).toEqual([expect.any(Number)]);
      expect(emf('UpstreamLatency')?._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'UpstreamLatency', Unit: 'Milliseconds' }]);
      expect(values('UpstreamFailures')).toEqual([]);
      expect(values('CreditsRefunded')).toEqual([]);
      expect(requestLine()).toMatchObject({ status: 200, operation: 'tiktok_trend_scan', credits_charged: 5, credits_refunded: 0 });
    });

    it.each([
      ['fails', () => new UpstreamError('upstream answered 502'), 500, [1]],
      ['says not found (an answer, not a failure)', () => new UpstreamNotFoundError('no such account'), 404, []],
    ])('counts the charge, the latency and the refund when the provider %s', async (_, failure, status, failures) => {
      const { orgId, users } = await workspace({ credits: 10 });
      const spy = vi.spyOn(sampleProvider, 'run').mockRejectedValue(failure());
      try {
        const answer = await run(orgId, users.editor);

        expect(answer.status).toBe(status);
        expect(values('CreditsCharged')).toEqual([5]);
        expect(values('CreditsRefunded')).toEqual([5]);
        expect(values('UpstreamLatency')).toEqual([expect.any(Number)]);
        expect(values('UpstreamFailures')).toEqual(failures);
        expect(requestLine()).toMatchObject({ status, operation: 'tiktok_trend_scan', credits_charged: 5, credits_refunded: 5 });
      } finally {
        spy.mockRestore();
      }
    });

    it('counts a refund that could not be written, and names it on the request line as still owed', async () => {
      const { orgId, users } = await workspace({ credits: 10 });
      const spy = vi.spyOn(sampleProvider, 'run').mockRejectedValue(new UpstreamError('upstream answered 502'));
      let transactions = 0;
      // The first transaction is the charge; the second, the refund, fails.
      const stop = failCommands((command) => command === 'TransactWriteItemsCommand' && ++transactions === 2);
      try {
        const answer = await run(orgId, users.editor);

        expect(answer.status).toBe(500);
        expect(values('RefundFailures')).toEqual([1]);
        expect(values('CreditsRefunded')).toEqual([]);
        expect(
          records().find((record) => record.message === 'REFUND FAILED: the sweeper will refund this charge once its run is due'),
        ).toBeDefined();
        expect(requestLine()).toMatchObject({ operation: 'tiktok_trend_scan', credits_charged: 5, credits_refund_pending: 5 });
        expect(requestLine()).not.toHaveProperty('credits_refunded', 5);
      } finally {
        stop();
        spy.mockRestore();
      }
    });

    it('counts output that breaks the schema as a failure', async () => {
      const { orgId, users } = await workspace({ credits: 10 });
      const spy = vi.spyOn(sampleProvider, 'run').mockResolvedValue({ unexpected: true });
      try {
        const answer = await run(orgId, users.editor);

        expect(answer.status).toBe(500);
        expect(values('UpstreamFailures')).toEqual([1]);
        expect(values('CreditsRefunded')).toEqual([5]);
      } finally {
        spy.mockRestore();
      }
    });

    it('counts nothing for a run refused before the charge', async () => {
      const { orgId, users } = await workspace({ credits: 1 });

      const answer = await run(orgId, users.editor);

      expect(answer.status).toBe(402);
      expect([...values('CreditsCharged'), ...values('UpstreamLatency'), ...values('CreditsRefunded')]).toEqual([]);
      expect(requestLine()).toMatchObject({ status: 402, operation: 'tiktok_trend_scan' });
      expect(requestLine()).not.toHaveProperty('credits_charged');
    });
  });
});
