/**
 * `npm run bench` in miniature: every route has a scenario, every figure is there, the floor sent
 * exactly what the route sent, and each route sends the DynamoDB commands it is meant to, in the
 * round trips it is meant to. Everyday one timed request per route after its warm-up (the bench
 * in full was a tenth of the integration tier's CPU); `npm run test:long` 3 per route at
 * concurrency 1 and again 16 at once, where a route that sends different commands from one
 * request to the next shows (test/support/depth.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atDepth } from './support/depth.ts';
import { tokenFor } from './support/tokens.ts';

// Every request of the run counts against its user's window; the sample provider serves runs.
process.env.RATE_LIMIT_REQUESTS = '100000';
process.env.OAUTH_CLIENT_RATE_LIMIT = '100000';

// Checkouts are made on the local payments server, as under `npm run bench` (scripts/bench/local.ts).
const { startPaymentsServer } = await import('../lib/local/payments-server.ts');
const payments = await startPaymentsServer();
process.env.STRIPE_SECRET_KEY = payments.secretKey;
process.env.STRIPE_API_BASE = payments.url;
process.env.STRIPE_WEBHOOK_SECRET = payments.webhookSecret;
afterAll(() => payments.close());

// Invitations' email goes through SES's client to the local stand-in, as under `npm run bench`.
const { startLocalSes } = await import('../lib/local/ses-outbox.ts');
const outboxDir = mkdtempSync(join(tmpdir(), 'bench-test-outbox-'));
const ses = await startLocalSes(outboxDir);
process.env.SES_ENDPOINT = ses.endpoint;
process.env.INVITATION_FROM_ADDRESS = 'invitations@workspace.test';
afterAll(async () => {
  await ses.close();
  rmSync(outboxDir, { recursive: true, force: true });
});

/** The bench's tokens: with an address, carrying it verified (accepting an invitation by its link). */
const benchToken = (userId: string, email?: string) =>
  tokenFor(userId, email === undefined ? {} : { extra: { email, email_verified: true } });

const { runBench } = await import('../scripts/bench/run.ts');
const { SCENARIOS, missingScenarios } = await import('../scripts/bench/scenarios.ts');
const { formatTable, renderChart } = await import('../scripts/bench/report.ts');
const { substitute } = await import('../scripts/bench/floor.ts');
const { percentile } = await import('../scripts/bench/stats.ts');
const { routes } = await import('../lib/routes.ts');

type Results = Awaited<ReturnType<typeof runBench>>;

const { ITERATIONS, CONCURRENCIES } = atDepth({ ITERATIONS: 1, CONCURRENCIES: [1] }, { ITERATIONS: 3, CONCURRENCIES: [1, 16] });

/** What each route (and variant) sends, wave by wave (| = one more sequential round trip): its floor. */
const EXPECTED_COMMANDS: Record<string, string> = {
  ListBillingEvents: 'UpdateItem+GetItem+Query',
  // The membership and the page's consistent Query with the counter.
  ListAuditEvents: 'UpdateItem+GetItem+Query',
  ListCreditGrants: 'UpdateItem+GetItem+Query+GetItem',
  // The membership and the window's counters (one page: 93 × 6 or 168 × 3 counters) with the counter.
  GetUsage: 'UpdateItem+GetItem+Query',
  'GetUsage hours': 'UpdateItem+GetItem+Query',
  GetCredits: 'UpdateItem+GetItem+GetItem+GetItem+GetItem',
  // Counter and membership, then the open checkouts (Stripe's customer and session between), then
  // the purchase with the open checkouts in one transaction.
  CreateCreditPurchase: 'UpdateItem+GetItem | GetItem | TransactWriteItems',
  ListCreditPurchases: 'UpdateItem+GetItem+Query',
  GetCreditPurchase: 'UpdateItem+GetItem+GetItem',
  // Counter and membership with the auto-recharge item.
  GetAutoRecharge: 'UpdateItem+GetItem+GetItem',
  GetPaymentMethod: 'UpdateItem+GetItem+GetItem',
  // Counter and membership, the item, then its versioned put (a transaction of one).
  PutAutoRecharge: 'UpdateItem+GetItem | GetItem | TransactWriteItems',
  // Counter and membership, the open checkouts' item (the Customer), the Customer kept (Stripe between).
  CreatePaymentMethod: 'UpdateItem+GetItem | GetItem | UpdateItem',
  // No card saved: counter and membership, the item, nothing to write.
  DeletePaymentMethod: 'UpdateItem+GetItem | GetItem',
  // No rate-limit counter (public): the purchase the PaymentIntent names (Stripe's session and
  // PaymentIntent read between), then the one settle transaction.
  ReceiveStripeWebhook: 'GetItem | TransactWriteItems',
  ListSocialOperations: 'UpdateItem+GetItem+GetItem',
  // Counter and reads, the charge (with its pending record), then (after the provider) the balance
  // for Credits-Remaining beside the pending record's removal.
  // … and the result stored for later runs in the same wave.
  RunSocialOperation: 'UpdateItem+GetItem+GetItem | TransactWriteItems | GetItem+DeleteItem+PutItem',
  // `fields` changes what is answered, not what is read or written.
  'RunSocialOperation fields': 'UpdateItem+GetItem+GetItem | TransactWriteItems | GetItem+DeleteItem+PutItem',
  // Counter and reads, the cached result among them: answered at once, nothing written.
  'RunSocialOperation cache hit': 'UpdateItem+GetItem+GetItem+GetItem',
  // The key's record and its organization read by authentication (one BatchGetItem, in place of the
  // membership), with the counter and the run's own read: a user's run, command for command.
  'RunSocialOperation api key': 'BatchGetItem+UpdateItem+GetItem | TransactWriteItems | GetItem+DeleteItem+PutItem',
  // Every guardrail set (the organization's and the key's daily and monthly limits, the key's
  // addresses and rate, Max-Credits): conditions of the same writes and checks of the same reads,
  // so the API key run's commands, command for command.
  'RunSocialOperation every guardrail': 'BatchGetItem+UpdateItem+GetItem | TransactWriteItems | GetItem+DeleteItem+PutItem',
  QuoteSocialOperation: 'UpdateItem+GetItem+GetItem+GetItem+GetItem',
  // Counter and reads; the job with the organization's active-job counter; its items (10: one batch);
  // once its messages are sent, the job marked so (the recovery of stalled jobs leaves it alone).
  CreateSocialJob: 'UpdateItem+GetItem+GetItem | TransactWriteItems | BatchWriteItem | UpdateItem',
  // The job names its organization; then the caller's membership in it.
  GetSocialJob: 'UpdateItem+GetItem | GetItem',
  // The job; then the membership and the page together.
  ListSocialJobItems: 'UpdateItem+GetItem | GetItem+Query',
  // The job; the membership; the cancel with the organization's counter (the answer computed, not read).
  CancelSocialJob: 'UpdateItem+GetItem | GetItem | TransactWriteItems',
  // The memberships, then the caller's spend counter in each (one BatchGetItem a hundred).
  GetMe: 'UpdateItem+Query | BatchGetItem',
  // The organization, the membership and the organization's spend counter.
  GetOrganization: 'UpdateItem+GetItem+GetItem+GetItem',
  // The caller's role beside the organization's spend counter and the organization (its settings'
  // before), then one transaction: the change, conditional on what was read (a cold organization's
  // on its still being cold: no credit lane to fence, lib/db/lanes.ts), and its audit event.
  UpdateOrganization: 'UpdateItem+GetItem+GetItem+GetItem | TransactWriteItems',
  ListMembers: 'UpdateItem+GetItem+Query+Query',
  // The caller's role; the organization's owner count, the member and its spend; the one transaction
  // (a cold organization's on its still being cold: no credit lane to fence, lib/db/lanes.ts).
  PutMember: 'UpdateItem+GetItem | GetItem+GetItem+GetItem | TransactWriteItems',
  DeleteMember: 'UpdateItem+GetItem | GetItem+GetItem | TransactWriteItems',
  // The caller's role beside the organization (its name), the address's member and the pending
  // invitations; the one transaction (then the email, to the SES stand-in: no DynamoDB).
  CreateInvitation: 'UpdateItem+GetItem+GetItem+GetItem+GetItem | TransactWriteItems',
  // The caller's role beside the page.
  ListInvitations: 'UpdateItem+GetItem+Query',
  // The caller's role beside the invitation and the pending invitations; the one transaction (then the email).
  ResendInvitation: 'UpdateItem+GetItem+GetItem+GetItem | TransactWriteItems',
  // The caller's role beside the invitation; the one transaction.
  RevokeInvitation: 'UpdateItem+GetItem+GetItem | TransactWriteItems',
  // The invitee's inbox entry (by token: the token's item); the invitation and the invitee's
  // membership there; the one transaction (the membership, the invitation accepted, the inviter's role).
  AcceptInvitation: 'UpdateItem+GetItem | GetItem+GetItem | TransactWriteItems',
  ListTrash: 'UpdateItem+GetItem+Query',
  // The caller's role; then the key, in one transaction with the condition that the caller is still an owner.
  CreateApiKey: 'UpdateItem+GetItem | TransactWriteItems',
  // The caller's role, the page of keys and the month's spend counters, together.
  ListApiKeys: 'UpdateItem+GetItem+Query+Query',
  // The caller's role, the key and its spend counter together; then the change and its audit event, one
  // transaction, on the condition that the organization is cold (else its lanes are fenced after: lib/db/lanes.ts).
  UpdateApiKey: 'UpdateItem+GetItem+GetItem+GetItem | TransactWriteItems',
  // The caller's role beside the key; then its revocation with its audit event, as above.
  RevokeApiKey: 'UpdateItem+GetItem+GetItem | TransactWriteItems',
  // The membership beside the settings.
  GetAlertSettings: 'UpdateItem+GetItem+GetItem',
  // The caller's role beside the settings in force; then the settings and their audit event, in one
  // transaction with the condition that the caller is still an owner.
  PutAlertSettings: 'UpdateItem+GetItem+GetItem | TransactWriteItems',
  // The caller's role; then (the URL checked, no lookup for a literal address) the endpoint with the
  // organization's count and the owner condition, in one transaction.
  CreateWebhook: 'UpdateItem+GetItem | TransactWriteItems',
  // The caller's role beside the page of endpoints.
  ListWebhooks: 'UpdateItem+GetItem+Query',
  // The caller's role beside the endpoint; its delete with its organization's count and its audit
  // event; then its deliveries' keys; their delete.
  DeleteWebhook: 'UpdateItem+GetItem+GetItem | TransactWriteItems | Query | BatchWriteItem',
  // The caller's role beside the endpoint; then the delivery written once, under the event's id (its message queued after).
  TestWebhook: 'UpdateItem+GetItem+GetItem | UpdateItem',
  // The caller's role beside the endpoint; then the page of its deliveries.
  ListWebhookDeliveries: 'UpdateItem+GetItem+GetItem | Query',
  // Every restore writes its audit event with it: the asset's, once one UpdateItem, is a transaction too.
  RestoreAsset: 'UpdateItem+GetItem+Query | TransactWriteItems',
  RestoreSkill: 'UpdateItem+GetItem+Query | TransactWriteItems',
  RestoreConversation: 'UpdateItem+GetItem+Query | TransactWriteItems',
  RestoreProject: 'UpdateItem+GetItem+Query | TransactWriteItems',
  'Mcp tools/list': 'UpdateItem+GetItem+GetItem',
  'Mcp tools/call': 'UpdateItem+GetItem+GetItem | TransactWriteItems | GetItem+DeleteItem+PutItem',
  // An API key's call: its record and organization in one BatchGetItem in place of the membership.
  'Mcp tools/call api key': 'BatchGetItem+UpdateItem+GetItem | TransactWriteItems | GetItem+DeleteItem+PutItem',
  // An OAuth grant is an API key: its access token's call is the key's, command for command (issue 34).
  'Mcp tools/call oauth': 'BatchGetItem+UpdateItem+GetItem | TransactWriteItems | GetItem+DeleteItem+PutItem',
  OAuthProtectedResource: '',
  // Read from the table once a minute per instance: the bench's warm-up request did.
  GetJwks: '',
  // Kept in memory 15 s (one Query per instance then): the warm-up read it.
  GetSocialStatus: '',
  OAuthAuthorizationServer: '',
  // A registered client's sign-in page: the client's registration.
  OAuthAuthorize: 'GetItem',
  // The source address's counter (registration takes no token: limited per address), then the client.
  RegisterOAuthClient: 'UpdateItem | PutItem',
  // The code's single use, then the grant's first refresh token on its key beside the token's item;
  // the KMS (here PEM) signature besides.
  'OAuthToken authorization_code': 'UpdateItem | UpdateItem+PutItem',
  // The rotation's one conditional write on the key (the token current, the grant live: one of two
  // racing refreshes wins), then the new token's item beside the signature.
  'OAuthToken refresh_token': 'UpdateItem | PutItem',
  // RFC 7009: the grant's revocation, conditioned on its client and its current refresh token, in one write.
  OAuthRevoke: 'UpdateItem',
  GetServiceIndex: '',
  GetOpenApiDocument: '',
  GetDocsPage: '',
  GetDocsAsset: '',
  GetConsolePage: '',
  GetConsoleAsset: '',
  RouteNotFound: '',
};

describe('the bench', () => {
  let results: Results;
  beforeAll(async () => {
    results = await runBench({
      iterations: ITERATIONS,
      concurrencies: CONCURRENCIES,
      warmup: 1,
      repeats: 1,
      tokenFor: benchToken,
      recordFloor: true,
      progress: () => {},
    });
    // Every scenario of every route, twice (route and floor): minutes on a busy machine.
  }, 180_000);

  it('has a scenario for every route of lib/routes.ts', () => {
    expect(missingScenarios()).toEqual([]);
    expect(new Set(results.scenarios.map((scenario) => scenario.route))).toEqual(new Set(routes.map((route) => route.name)));
  });

  it('refuses to run while a route has no scenario', async () => {
    const scenarios = SCENARIOS.filter((scenario) => scenario.route !== 'RestoreAsset');
    await expect(runBench({ iterations: 1, concurrencies: [1], warmup: 0, repeats: 1, tokenFor: benchToken, scenarios })).rejects.toThrow(
      'no bench scenario for route(s) RestoreAsset: add one to scripts/bench/scenarios.ts',
    );
  });

  it('gives p50 ≤ p95 ≤ p99 for the route and its floor at each concurrency, and their ratio', () => {
    for (const scenario of results.scenarios) {
      expect(Object.keys(scenario.byConcurrency)).toEqual(CONCURRENCIES.map(String));
      for (const { summary, runs } of Object.values(scenario.byConcurrency)) {
        expect(runs).toHaveLength(1);
        const { route, floor, ratio } = summary;
        expect(route.p50).toBeGreaterThan(0);
        expect(route.p50).toBeLessThanOrEqual(route.p95);
        expect(route.p95).toBeLessThanOrEqual(route.p99);
        if (EXPECTED_COMMANDS[scenario.route] === '') {
          expect(ratio).toBeNull();
        } else {
          expect(floor.p50).toBeGreaterThan(0);
          expect(floor.p95).toBeLessThanOrEqual(floor.p99);
          expect(ratio).toBeCloseTo(route.p50 / floor.p50, 6);
        }
      }
    }
  });

  it('sends each route its floor commands in their round trips, and the floor sends exactly the same, wave by wave', () => {
    const seen = Object.fromEntries(
      results.scenarios.map((scenario) => {
        const { signature, otherSignatures, roundTrips, commands, floorMismatches } = scenario.byConcurrency['1']!.summary;
        for (const concurrency of CONCURRENCIES) expect(scenario.byConcurrency[concurrency]!.summary.floorMismatches).toEqual([]);
        expect(floorMismatches).toEqual([]);
        expect(otherSignatures).toBe(0);
        expect(roundTrips).toBe(signature === '' ? 0 : signature.split(' | ').length);
        expect(commands).toBe(signature === '' ? 0 : signature.split(/[+|]/).length);
        return [scenario.variant ? `${scenario.route} ${scenario.variant}` : scenario.route, signature];
      }),
    );
    expect(seen).toEqual(EXPECTED_COMMANDS);
  });

  it('prints a table with a row per scenario and draws each route against its floor', () => {
    const table = formatTable(results);
    const chart = renderChart(results);
    for (const scenario of results.scenarios) {
      expect(table).toContain(scenario.label);
      expect(chart).toContain(`>${scenario.label.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</text>`);
    }
    expect(chart.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(chart.trim().endsWith('</svg>')).toBe(true);
  });
});

describe('bench helpers', () => {
  it('replaces values inside strings, arrays, sets and nested objects, leaving other values alone', () => {
    const input = { Key: { PK: 'ASSET#a1' }, Items: ['x-a1', 2], Set: new Set(['a1']), n: 1, flag: true };
    expect(substitute(input, new Map([['a1', 'b2']]))).toEqual({
      Key: { PK: 'ASSET#b2' },
      Items: ['x-b2', 2],
      Set: new Set(['b2']),
      n: 1,
      flag: true,
    });
  });

  it('takes nearest-rank percentiles', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(sorted, 50), percentile(sorted, 95), percentile(sorted, 99), percentile([7], 99)]).toEqual([50, 95, 99, 7]);
  });
});
