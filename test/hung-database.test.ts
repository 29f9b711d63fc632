/**
 * A database that hangs: every DynamoDB call is waited for at most DYNAMODB_CALL_TIMEOUT_MS
 * (and never past the function's deadline), so every route answers a JSON error in bounded
 * time instead of running into its own timeout; a paid run whose refund cannot be written says
 * so and does not invite an immediate retry.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type ScrapeCreatorsStub, STUB_KEY, startScrapeCreatorsStub } from './support/scrapecreators-stub.ts';

const CALL_TIMEOUT_MS = 400;
const stub: ScrapeCreatorsStub = await startScrapeCreatorsStub();
Object.assign(process.env, {
  DYNAMODB_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS),
  SOCIAL_PROVIDER: 'http',
  SCRAPECREATORS_BASE_URL: stub.baseUrl,
  SCRAPECREATORS_API_KEY: STUB_KEY,
  PROVIDER_TIMEOUT_MS: '300',
});
const { config } = await import('../lib/config.ts');
const { db } = await import('../lib/db/client.ts');
const { getOrganization } = await import('../lib/db/organizations.ts');
const { workspace } = await import('./support/fixtures.ts');
const { call } = await import('./support/http.ts');
const { handlerOf, sampleRequest, tokenRoutes } = await import('./support/routes.ts');
const { tokenFor } = await import('./support/tokens.ts');
const { runUrl } = await import('./support/social.ts');

/**
 * Inside `hung(...)` (and everywhere while `hangEverywhere` is on), every DynamoDB request is sent
 * into a void that never answers, and calls are given the short budget under test; elsewhere
 * (setting up) the budget is generous, so that a busy machine's slow DynamoDB Local cannot fail
 * the setup. Scoped to the call under test, the routes' cases run at once: each waits out a
 * budget, which is time, not work.
 */
const hangScope = new AsyncLocalStorage<true>();
let hangEverywhere = false;
const hanging = () => hangEverywhere || hangScope.getStore() === true;
const hung = <T>(work: () => Promise<T>): Promise<T> => hangScope.run(true, work);
Object.defineProperty(config(), 'dynamodbCallTimeoutMs', { get: () => (hanging() ? CALL_TIMEOUT_MS : 30_000) });
db().middlewareStack.add(
  (next) => async (args) => {
    if (hanging()) return new Promise<never>(() => {});
    return next(args);
  },
  { step: 'finalizeRequest', name: 'hang' },
);

afterEach(() => {
  hangEverywhere = false;
});
afterAll(() => stub.close());

describe('with DynamoDB hung', () => {
  it.concurrent.for(tokenRoutes())('%s answers a JSON 500 within its budget', async ([_name, route], { expect }) => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 10 });
    const handler = await handlerOf(route);

    // Act
    const started = performance.now();
    const answer = await hung(() => call(handler, sampleRequest(route, orgId, tokenFor(users.owner))));
    const elapsedMs = performance.now() - started;

    // Assess: the counter and the first reads give up together, after one call's budget. MCP
    // answers protocol errors inside a JSON-RPC response, as the protocol wants.
    expect(answer.headers['content-type']).toBe('application/json');
    if (route.path === '/mcp') {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { message: expect.stringContaining('retry with backoff') } });
    } else {
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({
        code: 'internal_error',
        message: 'the request failed on the service side; retry with backoff',
        request_id: answer.headers['x-request-id'],
      });
    }
    expect(elapsedMs).toBeLessThan(CALL_TIMEOUT_MS * 2 + 2_000);
  });

  it('a paid run whose provider fails while the table hangs says its refund is delayed', async () => {
    // Prepare: the table hangs from the moment the provider is called (the charge is written)
    const { orgId, users } = await workspace({ credits: 10 });
    const run = await handlerOf({ entry: 'functions/run-social-operation.ts' } as never);
    stub.next({ kind: 'status', status: 500, body: '{"success":false}' });
    stub.onRequest = () => {
      hangEverywhere = true;
    };

    // Act
    const answer = await call(run, {
      method: 'POST',
      url: runUrl('instagram_profile', orgId),
      token: tokenFor(users.editor),
      body: { handle: 'nike' },
    });
    stub.onRequest = undefined;
    hangEverywhere = false;

    // Assess: no invitation to retry now, and the charge is still standing (the sweeper refunds it)
    expect(answer.status).toBe(500);
    expect(answer.body.code).toBe('upstream_failed');
    expect(answer.body.message).toBe(
      'the social data provider failed; the refund of its charge is delayed, do not retry before your balance is back',
    );
    expect(answer.headers['retry-after']).toBeUndefined();
    expect((await getOrganization(orgId))!.credits).toBe(9);
  });
});
