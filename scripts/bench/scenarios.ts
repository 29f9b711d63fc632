/**
 * One or more bench scenarios per route of lib/routes.ts: what state a request needs (prepared
 * before anything is timed) and the request itself. The bench refuses to run while a route has
 * none (see missingScenarios), so a new route cannot be left out.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_ENDPOINTS, TEST_EVENT_TYPE } from '../../lib/alerts/endpoints.ts';
import { signApiKeyToken } from '../../lib/auth/api-key-token.ts';
import { issuingSigner } from '../../lib/auth/issuing-signer.ts';
import { pemSigner } from '../../lib/auth/signer.ts';
import { createCheckoutPurchase } from '../../lib/billing/checkout.ts';
import { stripeClient } from '../../lib/billing/stripe-client.ts';
import { config } from '../../lib/config.ts';
import { putAlertSettings } from '../../lib/db/alert-settings.ts';
import { type ApiKeyRecord, createApiKey, publishSigningKey, touchApiKey } from '../../lib/db/api-keys.ts';
import { auditEventPut, operatorSource } from '../../lib/db/audit-events.ts';
import { billingEventPut, newBillingEvent } from '../../lib/db/billing-events.ts';
import { tableName } from '../../lib/db/client.ts';
import { canonicalHash } from '../../lib/db/idempotency.ts';
import { type JobRecord, jobOf, putJobItems } from '../../lib/db/jobs.ts';
import {
  apiKeyKey,
  invitationKey,
  invitationSlotsKey,
  jobKey,
  oauthCodeKey,
  purchaseKey,
  purchaseSlotsKey,
  resourceKey,
  resultCacheKey,
} from '../../lib/db/keys.ts';
import { addMembership } from '../../lib/db/memberships.ts';
import { createOrganization } from '../../lib/db/organizations.ts';
import { getPurchase } from '../../lib/db/purchases.ts';
import { createResource, softDeleteResource } from '../../lib/db/resources.ts';
import { putCachedResult } from '../../lib/db/result-cache.ts';
import { countUsage, type UsageDelta } from '../../lib/db/usage.ts';
import { createEndpoint, putDelivery, type WebhookEndpointRecord } from '../../lib/db/webhook-endpoints.ts';
import { defined } from '../../lib/defined.ts';
import { DOCS_ASSETS } from '../../lib/docs-assets.ts';
import type { HttpEvent, HttpResult } from '../../lib/http/types.ts';
import { createJob, newJob } from '../../lib/jobs/lifecycle.ts';
import { buildHttpEvent } from '../../lib/local/apigw-event.ts';
import { stripeSignature } from '../../lib/local/payments-server.ts';
import type { ResourceKind, Role } from '../../lib/model.ts';
import type { AuthorizationRequest } from '../../lib/oauth/authorization-request.ts';
import { type ClientMetadata, registerClient } from '../../lib/oauth/clients.ts';
import { approve, codeHashOf } from '../../lib/oauth/consent.ts';
import { exchange } from '../../lib/oauth/token.ts';
import { buildResource } from '../../lib/resources/factory.ts';
import type { ProjectRecord, RecordOf } from '../../lib/resources/model.ts';
import { type Route, routeKey, routes } from '../../lib/routes.ts';
import { findOperation, validateOperationInput } from '../../lib/social/operations.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { newWebhookSecret } from '../../lib/webhooks/signature.ts';
import { substitute } from './floor.ts';
import { forEachIndex } from './pool.ts';

/** Who the bench's own set-up changes are made by, in their audit events. */
const BENCH_OPERATOR = operatorSource('bench');
/** The request of a consent the bench approves directly. */
const BENCH_ORIGIN = { id: 'bench', sourceIp: '127.0.0.1' };

export interface BenchContext {
  /** A valid bearer token for `userId`; with `email`, carrying it as a verified address (`email`, `email_verified`). */
  tokenFor(userId: string, email?: string): string;
  /** The floor's bare client (scenarios use it to copy state for the floor). */
  floor: DynamoDBDocumentClient;
  /** Users (or organizations) a scenario needs: requests i and j run at the same time only if i ≠ j modulo this. */
  slots: number;
}

export interface PreparedScenario {
  /** The event of request `i` (built before it is timed). */
  event(i: number): HttpEvent;
  /** Values of request `i` to replace in its floor, when the floor needs its own state (a restore needs its own deleted copy). */
  floorReplacements?(i: number): Record<string, string>;
  /** Why `result` is not the expected answer, or undefined when it is. */
  check(result: HttpResult): string | undefined;
}

export interface Scenario {
  /** The route's name in lib/routes.ts. */
  route: string;
  /** What sets this scenario apart from the route's others (one route, several scenarios). */
  variant?: string;
  /** The row's label. */
  label: string;
  /** Prepares the state of `count` requests (indexes 0 … count-1). */
  prepare(context: BenchContext, count: number): Promise<PreparedScenario>;
}

const hex = () => randomBytes(6).toString('hex');

const routeNamed = (name: string): Route => {
  const route = routes.find((candidate) => candidate.name === name);
  if (!route) throw new Error(`no route ${name} in lib/routes.ts`);
  return route;
};

/** The event API Gateway sends for a request to `route`. */
function request(
  route: Route,
  options: {
    path?: Record<string, string>;
    query?: string;
    token?: string;
    body?: unknown;
    /** A body sent as it is (a form), with the content type given in `headers`. */
    rawBody?: string;
    method?: string;
    rawPath?: string;
    headers?: Record<string, string>;
  } = {},
): HttpEvent {
  const path = options.rawPath ?? route.path.replace(/\{(\w+)\}/g, (_match, name: string) => options.path?.[name] ?? '');
  return buildHttpEvent({
    method: options.method ?? (route.method === 'ANY' ? 'POST' : route.method),
    path,
    routeKey: routeKey(route),
    ...(options.query ? { rawQueryString: options.query } : {}),
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(options.path ? { pathParameters: options.path } : {}),
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    ...(options.rawBody !== undefined ? { body: options.rawBody } : {}),
  });
}

const status =
  (expected: number) =>
  (result: HttpResult): string | undefined =>
    result.statusCode === expected ? undefined : `status ${result.statusCode} (expected ${expected}): ${String(result.body).slice(0, 300)}`;

interface Workspace {
  orgId: string;
  /** The user who makes request i. */
  userOf(i: number): string;
}

const workspaces = new WeakMap<BenchContext, Promise<Workspace>>();

/**
 * The organization the scenarios that neither pay nor contend share, with one owner per slot
 * (user `users[i % slots]` makes request i), created once per run.
 */
function workspace(context: BenchContext): Promise<Workspace> {
  let shared = workspaces.get(context);
  if (!shared) {
    shared = (async () => {
      const orgId = `org_bench_${hex()}`;
      const users = Array.from({ length: context.slots }, () => `user_bench_${hex()}`);
      await createOrganization({ id: orgId, members: users.map((userId) => ({ userId, role: 'owner' as const })) });
      return { orgId, userOf: (i: number) => users[i % users.length]! };
    })();
    workspaces.set(context, shared);
  }
  return shared;
}

/** Limits far above what a bench spends: every condition of the charge is there, none refuses. */
const GENEROUS = { spendingLimit: 10_000_000, dailyLimit: 10_000_000 };

/** One organization per slot, so that concurrent paid runs never touch the same balance (bench:hot does). */
async function workspacePerSlot(context: BenchContext, role: Role, limits: Partial<typeof GENEROUS> = {}) {
  const slots = await Promise.all(
    Array.from({ length: context.slots }, async () => {
      const orgId = `org_bench_${hex()}`;
      const userId = `user_bench_${hex()}`;
      // Enough for every run of the route and of its floor (which charges again).
      await createOrganization({ id: orgId, credits: 1_000_000, ...limits, members: [{ userId, role, ...limits }] });
      return { orgId, userId };
    }),
  );
  return (i: number) => slots[i % slots.length]!;
}

/**
 * A change conditional on what it read (an audit event's `before` must be exact) cannot be sent
 * twice: the floor replays it on a twin, an organization (or a key, a member) in the same state,
 * changed in step with the route's by the same requests.
 */
async function twinOrganization(orgId: string, members: { userId: string; role: Role }[] = []): Promise<Record<string, string>> {
  const twin = `org_bench_${hex()}`;
  await createOrganization({ id: twin, members });
  return { [orgId]: twin };
}

/** An organization per request, with one member of `role`: for routes whose writes an organization's limit would refuse after a few (the route's and its floor's). */
async function organizationPerRequest(context: BenchContext, count: number, role: Role) {
  const members: { orgId: string; userId: string }[] = [];
  await forEachIndex(count, context.slots, async (i) => {
    const orgId = `org_bench_${hex()}`;
    const userId = `user_bench_${hex()}`;
    await createOrganization({ id: orgId, members: [{ userId, role }] });
    members[i] = { orgId, userId };
  });
  return members;
}

const listBillingEvents: Scenario = {
  route: 'ListBillingEvents',
  label: 'GET billing/events (100 of 100)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    // Written directly, 25 a batch: the balance they add up to plays no part in listing them.
    const hour = 3_600_000;
    const puts = Array.from({ length: 100 }, (_, i) => {
      const event = newBillingEvent({
        type: 'credits.granted',
        title: 'Bench',
        description: 'bench',
        amount: 1,
        now: new Date(Date.now() - (i + 1) * hour),
      });
      return { PutRequest: { Item: billingEventPut(orgId, event).Put.Item } };
    });
    await forEachIndex(4, 4, (batch) =>
      context.floor.send(new BatchWriteCommand({ RequestItems: { [tableName()]: puts.slice(batch * 25, batch * 25 + 25) } })),
    );
    const route = routeNamed('ListBillingEvents');
    return {
      event: (i) => request(route, { path: { organization_id: orgId }, query: 'days=30&limit=100', token: context.tokenFor(userOf(i)) }),
      check: status(200),
    };
  },
};

/** 25 grants of an operator's, every other one expiring: a full page. */
const listAuditEvents: Scenario = {
  route: 'ListAuditEvents',
  label: 'GET audit-events (100 of 100)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    // Written directly, 25 a batch: a log of 100 changes, one an hour.
    const hour = 3_600_000;
    const puts = Array.from({ length: 100 }, (_, i) => {
      const event = {
        type: 'organization.updated' as const,
        target: { type: 'organization' as const, id: orgId },
        changes: { daily_limit: { before: i, after: i + 1 } },
      };
      return {
        PutRequest: { Item: defined(auditEventPut(orgId, BENCH_OPERATOR, event, new Date(Date.now() - (i + 1) * hour)).Put, 'a put').Item },
      };
    });
    await forEachIndex(4, 4, (batch) =>
      context.floor.send(new BatchWriteCommand({ RequestItems: { [tableName()]: puts.slice(batch * 25, batch * 25 + 25) } })),
    );
    const route = routeNamed('ListAuditEvents');
    return {
      event: (i) => request(route, { path: { organization_id: orgId }, query: 'limit=100', token: context.tokenFor(userOf(i)) }),
      check: status(200),
    };
  },
};

const listCreditGrants: Scenario = {
  route: 'ListCreditGrants',
  label: 'GET organizations/{id}/credit-grants (25 of 25)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const { grantCredits } = await import('../../lib/billing/grants.ts');
    const inAYear = new Date(Date.now() + 365 * 86_400_000).toISOString();
    await forEachIndex(25, 4, (i) => grantCredits(orgId, 1, new Date(), 'bench', { expiresAt: i % 2 === 0 ? inAYear : null }));
    const route = routeNamed('ListCreditGrants');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/** One checkout per request, each in an organization of its own (10 open checkouts are an organization's most). */
const createCreditPurchase: Scenario = {
  route: 'CreateCreditPurchase',
  label: 'POST organizations/{id}/credit-purchases (Stripe: the local payments server)',
  async prepare(context, count) {
    const owners = await organizationPerRequest(context, count, 'owner');
    const floorOrgs = owners.map(() => `org_bench_${hex()}`);
    const route = routeNamed('CreateCreditPurchase');
    return {
      event: (i) =>
        request(route, { path: { organization_id: owners[i]!.orgId }, token: context.tokenFor(owners[i]!.userId), body: { credits: 500 } }),
      // The floor's transaction on an organization of its own: the route's first checkout created its slots item.
      floorReplacements: (i) => ({ [owners[i]!.orgId]: floorOrgs[i]! }),
      check: status(201),
    };
  },
};

/**
 * Stripe's webhook crediting a paid checkout: per request, an organization with a purchase paid on
 * the local payments server (its events held), and the event that names its session, signed as
 * Stripe signs. The floor's transaction needs its own state: a copy of the organization's
 * purchase and open checkouts under another organization, and another PaymentIntent's marker.
 */
const receiveStripeWebhook: Scenario = {
  route: 'ReceiveStripeWebhook',
  label: 'POST payments/stripe/webhook (a paid checkout credited)',
  async prepare(context, count) {
    const secret = defined(process.env.STRIPE_WEBHOOK_SECRET, 'STRIPE_WEBHOOK_SECRET (the local payments server)');
    const stripe = defined(await stripeClient(), "the payments server's SDK");
    const owners = await organizationPerRequest(context, count, 'owner');
    const paid: { sessionId: string; intentId: string; floorOrg: string }[] = [];
    await forEachIndex(count, context.slots, async (i) => {
      const { orgId, userId } = defined(owners[i], 'an owner');
      const { purchase } = await createCheckoutPurchase({ caller: { userId }, orgId, credits: 500, baseUrl: 'http://127.0.0.1' });
      const form = { card_number: '4242424242424242', exp_month: '12', exp_year: '2099', cvc: '123', webhooks: 'hold' };
      await (
        await fetch(defined(purchase.checkout_url, 'a checkout URL'), {
          method: 'POST',
          redirect: 'manual',
          body: new URLSearchParams(form),
        })
      ).arrayBuffer();
      const stored = defined(await getPurchase(orgId, purchase.id), 'the purchase');
      const session = await stripe.checkout.sessions.retrieve(stored.checkout_session_id);
      const floorOrg = `org_bench_${hex()}`;
      await createOrganization({ id: floorOrg, members: [{ userId, role: 'owner' }] });
      const copies = [
        [purchaseKey(orgId, purchase.id), purchaseKey(floorOrg, purchase.id)],
        [purchaseSlotsKey(orgId), purchaseSlotsKey(floorOrg)],
      ] as const;
      for (const [from, to] of copies) {
        const { Item } = await context.floor.send(new GetCommand({ TableName: tableName(), Key: from, ConsistentRead: true }));
        await context.floor.send(new PutCommand({ TableName: tableName(), Item: { ...Item, ...to } }));
      }
      paid[i] = { sessionId: session.id, intentId: String(session.payment_intent), floorOrg };
    });
    const route = routeNamed('ReceiveStripeWebhook');
    return {
      event: (i) => {
        const { sessionId } = defined(paid[i], 'a paid checkout');
        const rawBody = JSON.stringify(
          {
            id: `evt_bench${hex()}`,
            object: 'event',
            type: 'checkout.session.completed',
            data: { object: { id: sessionId, object: 'checkout.session' } },
          },
          null,
          2,
        );
        return request(route, {
          rawBody,
          headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignature(secret, rawBody) },
        });
      },
      floorReplacements: (i) => {
        const { intentId, floorOrg } = defined(paid[i], 'a paid checkout');
        return { [defined(owners[i], 'an owner').orgId]: floorOrg, [intentId]: `pi_floor${hex()}` };
      },
      check: status(200),
    };
  },
};

/** The shared organization with 10 open checkouts, made as an owner makes them. */
const purchasesOf = new WeakMap<BenchContext, Promise<{ orgId: string; userOf: (i: number) => string; ids: string[] }>>();
function withPurchases(context: BenchContext) {
  let made = purchasesOf.get(context);
  if (!made) {
    made = (async () => {
      const { orgId, userOf } = await workspace(context);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        ids.push(
          (await createCheckoutPurchase({ caller: { userId: userOf(0) }, orgId, credits: 500 + i, baseUrl: 'http://127.0.0.1' })).purchase
            .id,
        );
      }
      return { orgId, userOf, ids };
    })();
    purchasesOf.set(context, made);
  }
  return made;
}

const listCreditPurchases: Scenario = {
  route: 'ListCreditPurchases',
  label: 'GET organizations/{id}/credit-purchases (10 of 10)',
  async prepare(context) {
    const { orgId, userOf } = await withPurchases(context);
    const route = routeNamed('ListCreditPurchases');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

const getCreditPurchase: Scenario = {
  route: 'GetCreditPurchase',
  label: 'GET organizations/{id}/credit-purchases/{id}',
  async prepare(context) {
    const { orgId, userOf, ids } = await withPurchases(context);
    const route = routeNamed('GetCreditPurchase');
    return {
      event: (i) =>
        request(route, { path: { organization_id: orgId, purchase_id: ids[i % ids.length]! }, token: context.tokenFor(userOf(i)) }),
      check: status(200),
    };
  },
};

const getAutoRecharge: Scenario = {
  route: 'GetAutoRecharge',
  label: 'GET organizations/{id}/auto-recharge',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const route = routeNamed('GetAutoRecharge');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/** Off with a threshold (no card needed): the versioned put of the item, in an organization per request (each its own version). */
const putAutoRecharge: Scenario = {
  route: 'PutAutoRecharge',
  label: 'PUT organizations/{id}/auto-recharge (off, a threshold)',
  async prepare(context, count) {
    const owners = await organizationPerRequest(context, count, 'owner');
    const floorOrgs = owners.map(() => `org_bench_${hex()}`);
    const route = routeNamed('PutAutoRecharge');
    return {
      event: (i) =>
        request(route, {
          path: { organization_id: owners[i]!.orgId },
          token: context.tokenFor(owners[i]!.userId),
          body: { enabled: false, threshold: 1_000 },
        }),
      // The floor's put on an item of its own: the route's first put created this one.
      floorReplacements: (i) => ({ [owners[i]!.orgId]: floorOrgs[i]! }),
      check: status(200),
    };
  },
};

/** One setup page per request (Stripe: the local payments server), each organization's Customer made by its first. */
const createPaymentMethod: Scenario = {
  route: 'CreatePaymentMethod',
  label: 'POST organizations/{id}/auto-recharge/payment-method (Stripe: the local payments server)',
  async prepare(context, count) {
    const owners = await organizationPerRequest(context, count, 'owner');
    const floorOrgs = owners.map(() => `org_bench_${hex()}`);
    const route = routeNamed('CreatePaymentMethod');
    return {
      event: (i) => request(route, { path: { organization_id: owners[i]!.orgId }, token: context.tokenFor(owners[i]!.userId) }),
      floorReplacements: (i) => ({ [owners[i]!.orgId]: floorOrgs[i]! }),
      check: status(201),
    };
  },
};

const getPaymentMethod: Scenario = {
  route: 'GetPaymentMethod',
  label: 'GET organizations/{id}/auto-recharge/payment-method',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const route = routeNamed('GetPaymentMethod');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/** No card saved: 204 after the read, nothing written. */
const deletePaymentMethod: Scenario = {
  route: 'DeletePaymentMethod',
  label: 'DELETE organizations/{id}/auto-recharge/payment-method (none saved)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const route = routeNamed('DeletePaymentMethod');
    return {
      event: (i) => request(route, { method: 'DELETE', path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }),
      check: status(204),
    };
  },
};

const getCredits: Scenario = {
  route: 'GetCredits',
  label: 'GET organizations/{id}/credits',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const route = routeNamed('GetCredits');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

const listSocialOperations: Scenario = {
  route: 'ListSocialOperations',
  label: 'GET social/operations (all networks)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const route = routeNamed('ListSocialOperations');
    return { event: (i) => request(route, { query: `organization_id=${orgId}`, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

const runSocialOperation: Scenario = {
  route: 'RunSocialOperation',
  label: 'POST social/x_profile (sample provider)',
  async prepare(context) {
    const slotOf = await workspacePerSlot(context, 'editor');
    const route = routeNamed('RunSocialOperation');
    return {
      event: (i) =>
        request(route, {
          path: { operation: 'x_profile' },
          query: `organization_id=${slotOf(i).orgId}`,
          token: context.tokenFor(slotOf(i).userId),
          body: { handle: 'nasa' },
        }),
      check: status(200),
    };
  },
};

/** The same run answering three fields of the output (docs/social-operations.md, "Fields"): the same commands, and a time within noise. */
const runWithFields: Scenario = {
  route: 'RunSocialOperation',
  variant: 'fields',
  label: 'POST social/x_profile?fields= (3 paths)',
  async prepare(context) {
    const slotOf = await workspacePerSlot(context, 'editor');
    const route = routeNamed('RunSocialOperation');
    return {
      event: (i) =>
        request(route, {
          path: { operation: 'x_profile' },
          query: `organization_id=${slotOf(i).orgId}&fields=id,username,followers`,
          token: context.tokenFor(slotOf(i).userId),
          body: { handle: 'nasa' },
        }),
      check: status(200),
    };
  },
};

/**
 * A run answered from the cache: each slot's organization holds the result of the same input,
 * stored through the service's own cache write (lib/db/result-cache.ts), so every request is a hit.
 */
const runFromCache: Scenario = {
  route: 'RunSocialOperation',
  variant: 'cache hit',
  label: 'POST social/x_profile (Cache-Control hit)',
  async prepare(context) {
    const slotOf = await workspacePerSlot(context, 'editor');
    const operation = findOperation('x_profile');
    const input = validateOperationInput(operation, { handle: 'nasa' });
    const output = await sampleProvider.run({ operation, input, signal: new AbortController().signal });
    await forEachIndex(context.slots, context.slots, (i) =>
      putCachedResult(resultCacheKey(slotOf(i).orgId, operation.name, canonicalHash(input)), output, Date.now()),
    );
    const route = routeNamed('RunSocialOperation');
    return {
      event: (i) =>
        request(route, {
          path: { operation: 'x_profile' },
          query: `organization_id=${slotOf(i).orgId}`,
          token: context.tokenFor(slotOf(i).userId),
          body: { handle: 'nasa' },
          headers: { 'cache-control': 'max-age=86400' },
        }),
      check: (result) => status(200)(result) ?? (result.headers?.['Cache-Status'] === 'workspace; hit' ? undefined : 'not a cache hit'),
    };
  },
};

/** A key's guardrails: none by default. */
type KeyGuardrails = Pick<ApiKeyRecord, 'spending_limit' | 'daily_limit' | 'allowed_ips' | 'rate_limit'>;
const NO_GUARDRAILS: KeyGuardrails = { spending_limit: null, daily_limit: null, allowed_ips: null, rate_limit: null };

/** A key of `orgId` made by `createdBy`, valid a day from `now` (whole seconds, as the service makes them); returns its record. */
async function benchKey(
  orgId: string,
  createdBy: string,
  fields: { name?: string; role?: 'viewer' | 'editor'; guardrails?: KeyGuardrails } = {},
): Promise<ApiKeyRecord> {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const key: ApiKeyRecord = {
    id: `key_${randomBytes(16).toString('hex')}`,
    organization_id: orgId,
    name: fields.name ?? 'bench',
    role: fields.role ?? 'viewer',
    ...(fields.guardrails ?? NO_GUARDRAILS),
    created_at: now.toISOString(),
    created_by_id: createdBy,
    expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
    revoked_at: null,
    last_used_at: null,
  };
  await createApiKey(key, BENCH_OPERATOR, now);
  return key;
}

/** Keys of this run's slots, each an editor key of its slot's organization, signed as the service signs them. */
async function apiKeyPerSlot(
  context: BenchContext,
  slotOf: (i: number) => { orgId: string; userId: string },
  guardrails: KeyGuardrails = NO_GUARDRAILS,
) {
  const signer = pemSigner(defined(process.env.API_KEY_SIGNING_KEY_PEM, 'API_KEY_SIGNING_KEY_PEM'));
  await publishSigningKey(signer.publicJwkSync(), new Date());
  const tokens = await Promise.all(
    Array.from({ length: context.slots }, async (_, i) => {
      const { orgId, userId } = slotOf(i);
      await addMembership({ orgId, userId: `${userId}_owner`, role: 'owner' });
      const key = await benchKey(orgId, `${userId}_owner`, { role: 'editor', guardrails });
      const now = new Date(key.created_at);
      // Used a moment ago: the bench measures the steady state, without the write every 15 minutes.
      await touchApiKey(orgId, key.id, now);
      return signApiKeyToken(signer, { keyId: key.id, orgId, issuedAt: now, expiresAt: new Date(key.expires_at) });
    }),
  );
  return (i: number) => tokens[i % tokens.length] ?? '';
}

/** The same run with an API key instead of a user's token: the key's record stands in for the membership. */
const runWithApiKey: Scenario = {
  route: 'RunSocialOperation',
  variant: 'api key',
  label: 'POST social/x_profile (API key)',
  async prepare(context) {
    const slotOf = await workspacePerSlot(context, 'editor');
    const keyOf = await apiKeyPerSlot(context, slotOf);
    const route = routeNamed('RunSocialOperation');
    return {
      event: (i) =>
        request(route, {
          path: { operation: 'x_profile' },
          query: `organization_id=${slotOf(i).orgId}`,
          token: keyOf(i),
          body: { handle: 'nasa' },
        }),
      check: status(200),
    };
  },
};

/**
 * The same run with every guardrail set: the organization's and the key's monthly and daily
 * limits, the key bound to addresses (its source among them) and to a rate of its own, and
 * `Max-Credits`. Each is a condition of the same writes or a check of what is read anyway: the
 * commands and round trips are the API key run's, command for command.
 */
const runWithGuardrails: Scenario = {
  route: 'RunSocialOperation',
  variant: 'every guardrail',
  label: 'POST social/x_profile (API key, every guardrail)',
  async prepare(context) {
    const slotOf = await workspacePerSlot(context, 'editor', GENEROUS);
    const keyOf = await apiKeyPerSlot(context, slotOf, {
      spending_limit: GENEROUS.spendingLimit,
      daily_limit: GENEROUS.dailyLimit,
      // The bench's events come from 127.0.0.1 (lib/local/apigw-event.ts): the last of 50 entries matches.
      allowed_ips: [...Array.from({ length: 49 }, (_, i) => `2001:db8:${i.toString(16)}::/48`), '127.0.0.0/8'],
      rate_limit: { requests: config().rateLimit.requests },
    });
    const route = routeNamed('RunSocialOperation');
    return {
      event: (i) =>
        request(route, {
          path: { operation: 'x_profile' },
          query: `organization_id=${slotOf(i).orgId}`,
          token: keyOf(i),
          body: { handle: 'nasa' },
          headers: { 'max-credits': '1000' },
        }),
      check: status(200),
    };
  },
};

/** A key made per request: the membership read, then the transaction with its owner check (the signing key is published already). */
const createApiKeyScenario: Scenario = {
  route: 'CreateApiKey',
  label: 'POST organizations/{id}/api-keys',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const route = routeNamed('CreateApiKey');
    return {
      event: (i) =>
        request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)), body: { name: 'bench', role: 'viewer' } }),
      check: status(201),
    };
  },
};

/** A page of 25 of an organization's 40 keys, with their spend. */
const listApiKeys: Scenario = {
  route: 'ListApiKeys',
  label: 'GET organizations/{id}/api-keys (25 of 40)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    await forEachIndex(40, context.slots, (i) => benchKey(orgId, userOf(0), { name: `bench ${i}` }));
    const route = routeNamed('ListApiKeys');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/** A key per request, its limits changed (a change, and its event); the floor changes a twin key in step. */
const updateApiKey: Scenario = {
  route: 'UpdateApiKey',
  label: 'PATCH organizations/{id}/api-keys/{key} (daily limit)',
  async prepare(context, count) {
    const { orgId, userOf } = await workspace(context);
    const keys: string[] = [];
    await forEachIndex(count * 2, context.slots, async (j) => {
      keys[j] = (await benchKey(orgId, userOf(0))).id;
    });
    const route = routeNamed('UpdateApiKey');
    return {
      event: (i) =>
        request(route, {
          path: { organization_id: orgId, key_id: keys[2 * i] ?? '' },
          token: context.tokenFor(userOf(i)),
          body: { daily_limit: 1_000, allowed_ips: ['203.0.113.0/24'] },
        }),
      floorReplacements: (i) => ({ [keys[2 * i] ?? '']: keys[2 * i + 1] ?? '' }),
      check: status(200),
    };
  },
};

/** A key to revoke per request, and another for the floor (a second revocation writes nothing). */
const revokeApiKey: Scenario = {
  route: 'RevokeApiKey',
  label: 'DELETE organizations/{id}/api-keys/{key}',
  async prepare(context, count) {
    const { orgId, userOf } = await workspace(context);
    const keys: string[] = [];
    await forEachIndex(count * 2, context.slots, async (j) => {
      keys[j] = (await benchKey(orgId, userOf(0))).id;
    });
    const route = routeNamed('RevokeApiKey');
    return {
      event: (i) => request(route, { path: { organization_id: orgId, key_id: keys[2 * i] ?? '' }, token: context.tokenFor(userOf(i)) }),
      floorReplacements: (i) => ({ [keys[2 * i] ?? '']: keys[2 * i + 1] ?? '' }),
      check: status(204),
    };
  },
};

const quoteSocialOperation: Scenario = {
  route: 'QuoteSocialOperation',
  label: 'POST social/x_profile/quote',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const route = routeNamed('QuoteSocialOperation');
    return {
      event: (i) =>
        request(route, {
          path: { operation: 'x_profile' },
          query: `organization_id=${orgId}`,
          token: context.tokenFor(userOf(i)),
          body: { handle: 'nasa' },
        }),
      check: status(200),
    };
  },
};

const getMe: Scenario = {
  route: 'GetMe',
  label: 'GET /me',
  async prepare(context) {
    const { userOf } = await workspace(context);
    const route = routeNamed('GetMe');
    return { event: (i) => request(route, { token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

const getOrganization: Scenario = {
  route: 'GetOrganization',
  label: 'GET organizations/{id}',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const route = routeNamed('GetOrganization');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/** An organization per request, its limit changed (a change, and its event); the floor changes a twin of it. */
const updateOrganization: Scenario = {
  route: 'UpdateOrganization',
  label: 'PATCH organizations/{id} (spending limit)',
  async prepare(context, count) {
    const members = await organizationPerRequest(context, count, 'owner');
    const twins: Record<string, string>[] = [];
    await forEachIndex(count, context.slots, async (i) => {
      twins[i] = await twinOrganization(members[i]?.orgId ?? '');
    });
    const route = routeNamed('UpdateOrganization');
    return {
      event: (i) =>
        request(route, {
          path: { organization_id: members[i]?.orgId ?? '' },
          token: context.tokenFor(members[i]?.userId ?? ''),
          body: { spending_limit: 1_000_000 },
        }),
      floorReplacements: (i) => twins[i] ?? {},
      check: status(200),
    };
  },
};

const listMembers: Scenario = {
  route: 'ListMembers',
  label: 'GET organizations/{id}/members',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const route = routeNamed('ListMembers');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/** An editor per request, made a viewer (a change, and its event), and another for the floor to change. */
const putMember: Scenario = {
  route: 'PutMember',
  label: 'PUT organizations/{id}/members/{user} (editor to viewer)',
  async prepare(context, count) {
    const { orgId, userOf } = await workspace(context);
    const editors = Array.from({ length: count * 2 }, () => `user_bench_${hex()}`);
    await forEachIndex(count * 2, context.slots, (i) => addMembership({ orgId, userId: editors[i] ?? '', role: 'editor' }));
    const route = routeNamed('PutMember');
    return {
      event: (i) =>
        request(route, {
          path: { organization_id: orgId, user_id: editors[2 * i] ?? '' },
          token: context.tokenFor(userOf(i)),
          body: { role: 'viewer' },
        }),
      floorReplacements: (i) => ({ [editors[2 * i] ?? '']: editors[2 * i + 1] ?? '' }),
      check: status(200),
    };
  },
};

/** A member to remove per request, and another for the floor to remove (its own copy). */
const deleteMember: Scenario = {
  route: 'DeleteMember',
  label: 'DELETE organizations/{id}/members/{user}',
  async prepare(context, count) {
    const { orgId, userOf } = await workspace(context);
    const pairs = Array.from({ length: count }, () => [`user_bench_${hex()}`, `user_bench_${hex()}`] as const);
    await forEachIndex(count * 2, context.slots, (j) =>
      addMembership({ orgId, userId: pairs[Math.floor(j / 2)]?.[j % 2] ?? '', role: 'viewer' }),
    );
    const route = routeNamed('DeleteMember');
    return {
      event: (i) => request(route, { path: { organization_id: orgId, user_id: pairs[i]?.[0] ?? '' }, token: context.tokenFor(userOf(i)) }),
      floorReplacements: (i) => ({ [pairs[i]?.[0] ?? '']: pairs[i]?.[1] ?? '' }),
      check: status(204),
    };
  },
};

/** Where the bench's invitation links point (the email's text only: nothing opens them). */
const BENCH_CONSOLE_URL = 'http://127.0.0.1:9/console';

/** An address per bench user: the one its invitation goes to and its token's verified `email`. */
const addressOf = (userId: string) => `${userId.replaceAll('_', '-')}@example.com`;

/**
 * Per request: an organization of its own with an owner and one pending invitation (an editor's,
 * to `addressOf(invitee)`, sent as the route sends it: its email to the stand-in), and the
 * floor's twin: another organization with the same owner and a copy of the invitation and of the
 * pending invitations' item, so that the floor's conditional writes hold on its own state (the
 * route's moved the invitation and the item's version on).
 */
async function invitationPerRequest(context: BenchContext, count: number) {
  const { invite } = await import('../../lib/workspace/invite.ts');
  const owners = await organizationPerRequest(context, count, 'owner');
  const prepared: { orgId: string; ownerId: string; invitee: string; invitationId: string; floorOrg: string }[] = [];
  await forEachIndex(count, context.slots, async (i) => {
    const { orgId, userId: ownerId } = defined(owners[i], 'an owner');
    const invitee = `user_bench_${hex()}`;
    const invitation = await invite(orgId, ownerId, { email: addressOf(invitee), role: 'editor' }, BENCH_CONSOLE_URL, BENCH_OPERATOR);
    const floorOrg = `org_bench_${hex()}`;
    await createOrganization({ id: floorOrg, members: [{ userId: ownerId, role: 'owner' }] });
    const twin = new Map([[orgId, floorOrg]]);
    for (const key of [invitationKey(orgId, invitation.id), invitationSlotsKey(orgId)]) {
      const { Item } = await context.floor.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
      await context.floor.send(new PutCommand({ TableName: tableName(), Item: substitute(defined(Item, 'an invitation item'), twin) }));
    }
    prepared[i] = { orgId, ownerId, invitee, invitationId: invitation.id, floorOrg };
  });
  return prepared;
}

/**
 * An invitation per request, each to an organization of its own (50 pending are an
 * organization's most; the pending invitations' item is versioned, so concurrent creations in
 * one would retry): the owner's role, the organization, the address's member and the pending
 * invitations read, the one transaction, then the email to the SES stand-in (timed: it is the
 * route's work; the floor has no email to send).
 */
const createInvitationScenario: Scenario = {
  route: 'CreateInvitation',
  label: 'POST organizations/{id}/invitations (SES: the local stand-in)',
  async prepare(context, count) {
    const owners = await organizationPerRequest(context, count, 'owner');
    // The floor's transaction on an organization of its own with the same owner (the route's took the address).
    const floorOrgs: string[] = [];
    await forEachIndex(count, context.slots, async (i) => {
      floorOrgs[i] = `org_bench_${hex()}`;
      await createOrganization({ id: floorOrgs[i]!, members: [{ userId: owners[i]!.userId, role: 'owner' }] });
    });
    const route = routeNamed('CreateInvitation');
    return {
      event: (i) =>
        request(route, {
          path: { organization_id: owners[i]!.orgId },
          token: context.tokenFor(owners[i]!.userId),
          body: { email: `invitee-${i}@example.com`, role: 'editor', spending_limit: 1_000, expires_in_days: 14 },
        }),
      floorReplacements: (i) => ({ [owners[i]!.orgId]: floorOrgs[i]! }),
      check: status(201),
    };
  },
};

/** The first page (25) of the shared organization's 26 pending invitations: a full page, and more. */
const listInvitationsScenario: Scenario = {
  route: 'ListInvitations',
  label: 'GET organizations/{id}/invitations (25 of 26)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const { invite } = await import('../../lib/workspace/invite.ts');
    // One at a time: each creation is a transaction on the organization's pending invitations.
    for (let k = 0; k < 26; k += 1)
      await invite(orgId, userOf(0), { email: `listed-${k}@example.com`, role: 'viewer' }, BENCH_CONSOLE_URL, BENCH_OPERATOR);
    const route = routeNamed('ListInvitations');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/** A pending invitation per request resent (a new token and expiry, one more email), and the floor's twin. */
const resendInvitationScenario: Scenario = {
  route: 'ResendInvitation',
  label: 'POST organizations/{id}/invitations/{id}/resend (SES: the local stand-in)',
  async prepare(context, count) {
    const prepared = await invitationPerRequest(context, count);
    const route = routeNamed('ResendInvitation');
    return {
      event: (i) =>
        request(route, {
          path: { organization_id: prepared[i]!.orgId, invitation_id: prepared[i]!.invitationId },
          token: context.tokenFor(prepared[i]!.ownerId),
        }),
      floorReplacements: (i) => ({ [prepared[i]!.orgId]: prepared[i]!.floorOrg }),
      check: status(200),
    };
  },
};

/** A pending invitation per request revoked, and the floor's twin. */
const revokeInvitationScenario: Scenario = {
  route: 'RevokeInvitation',
  label: 'DELETE organizations/{id}/invitations/{id}',
  async prepare(context, count) {
    const prepared = await invitationPerRequest(context, count);
    const route = routeNamed('RevokeInvitation');
    return {
      event: (i) =>
        request(route, {
          path: { organization_id: prepared[i]!.orgId, invitation_id: prepared[i]!.invitationId },
          token: context.tokenFor(prepared[i]!.ownerId),
        }),
      floorReplacements: (i) => ({ [prepared[i]!.orgId]: prepared[i]!.floorOrg }),
      check: status(204),
    };
  },
};

/**
 * A pending invitation per request accepted by its invitee (a token carrying the invited address,
 * verified), by its id as `GET /me` lists it, and the floor's twin: the inbox entry, then the
 * invitation and the invitee's membership, then the one transaction.
 */
const acceptInvitationScenario: Scenario = {
  route: 'AcceptInvitation',
  label: 'POST /invitations/accept (an editor, by id)',
  async prepare(context, count) {
    const prepared = await invitationPerRequest(context, count);
    const route = routeNamed('AcceptInvitation');
    return {
      event: (i) =>
        request(route, {
          token: context.tokenFor(prepared[i]!.invitee, addressOf(prepared[i]!.invitee)),
          body: { invitation_id: prepared[i]!.invitationId },
        }),
      floorReplacements: (i) => ({ [prepared[i]!.orgId]: prepared[i]!.floorOrg }),
      check: status(200),
    };
  },
};

/**
 * An organization with usage in every bucket of the window: 6 counters a day (3 operations × a
 * member and an API key) over 93 days, 3 an hour (3 operations × a member) over 168 hours,
 * written through the aggregator's own storage (lib/db/usage.ts); the answer groups them all by
 * operation and payer. Sized so that 16 at once stay within DynamoDB Local's means on a shared
 * 2-core machine (ten times more counters: scaling.md reads pages of 6,000).
 */
const usage = (granularity: 'hour' | 'day'): Scenario => ({
  route: 'GetUsage',
  ...(granularity === 'hour' ? { variant: 'hours' } : {}),
  label:
    granularity === 'day' ? 'GET organizations/{id}/usage (93 days × 6 counters)' : 'GET organizations/{id}/usage (168 hours × 3 counters)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const stepMs = granularity === 'day' ? 86_400_000 : 3_600_000;
    const buckets = granularity === 'day' ? 93 : 168;
    const toMs = Math.floor(Date.now() / stepMs) * stepMs;
    const fromMs = toMs - buckets * stepMs;
    const payers = granularity === 'day' ? ['u1', 'key_a'] : ['u1'];
    const deltas: UsageDelta[] = [];
    for (let b = 0; b < buckets; b += 1) {
      for (const operation of ['x_profile', 'tiktok_search', 'youtube_channel']) {
        for (const payer of payers) {
          const member = payer.startsWith('u') ? `user_bench_${payer}` : null;
          const apiKey = member ? null : `key_${payer}`;
          deltas.push({
            granularity,
            bucketStart: new Date(fromMs + b * stepMs).toISOString(),
            operation,
            member,
            apiKey,
            runs: 3,
            charged: 5,
            refunded: 1,
          });
        }
      }
    }
    // Small transactions, two at a time: a busy machine's DynamoDB Local takes seconds over a 100-item one.
    await forEachIndex(Math.ceil(deltas.length / 25), 2, (chunk) => countUsage(orgId, [], deltas.slice(chunk * 25, chunk * 25 + 25)));
    const route = routeNamed('GetUsage');
    const query = `from=${new Date(fromMs).toISOString()}&to=${new Date(toMs).toISOString()}&granularity=${granularity}&group_by=operation,member,api_key`;
    return {
      event: (i) => request(route, { path: { organization_id: orgId }, query, token: context.tokenFor(userOf(i)) }),
      check: status(200),
    };
  },
});

/** A trash of 40 resources of the four kinds: the first page of 25. */
const listTrash: Scenario = {
  route: 'ListTrash',
  label: 'GET organizations/{id}/trash (25 of 40)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const kinds: ResourceKind[] = ['asset', 'skill', 'conversation', 'project'];
    await forEachIndex(40, context.slots, async (i) => {
      const kind = kinds[i % kinds.length] ?? 'asset';
      const unique = `bench${hex()}`;
      const fields = { orgId, by: userOf(0), slug: unique, name: unique, title: unique };
      const { id } = await createResource(kind, buildResource(kind, fields) as RecordOf[typeof kind]);
      await softDeleteResource(kind, id, userOf(0));
    });
    const route = routeNamed('ListTrash');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

const RESTORE_ROUTES: Record<ResourceKind, string> = {
  asset: 'RestoreAsset',
  skill: 'RestoreSkill',
  conversation: 'RestoreConversation',
  project: 'RestoreProject',
};

/**
 * A restore needs a deleted resource per request, and the floor its own: the route's copy is
 * made through the service's own create and delete, the floor's is the same item under
 * another id (and slug or name, so that its claim is its own).
 */
const restore = (kind: ResourceKind): Scenario => ({
  route: RESTORE_ROUTES[kind],
  label: `POST ${kind}s/{id}/restore`,
  async prepare(context, count) {
    const { orgId, userOf } = await workspace(context);
    const project =
      kind === 'conversation'
        ? await createResource('project', buildResource('project', { orgId, by: userOf(0), slug: `bench${hex()}` }) as ProjectRecord)
        : undefined;
    const prepared: { id: string; replacements: Record<string, string> }[] = [];
    await forEachIndex(count, context.slots, async (i) => {
      const unique = `bench${hex()}`;
      const by = userOf(i);
      const fields = { orgId, by, slug: unique, name: unique, title: unique, ...(project ? { projectId: project.id } : {}) };
      const { id } = await createResource(kind, buildResource(kind, fields) as RecordOf[typeof kind]);
      await softDeleteResource(kind, id, by);
      const replacements = { [id]: randomUUID(), [unique]: `bench${hex()}` };
      const stored = await context.floor.send(new GetCommand({ TableName: tableName(), Key: resourceKey(kind, id), ConsistentRead: true }));
      await context.floor.send(
        new PutCommand({ TableName: tableName(), Item: substitute(stored.Item!, new Map(Object.entries(replacements))) }),
      );
      prepared[i] = { id, replacements };
    });
    const route = routeNamed(RESTORE_ROUTES[kind]);
    const parameter = route.path.match(/\{(\w+)\}/)![1]!;
    return {
      event: (i) => request(route, { path: { [parameter]: prepared[i]!.id }, token: context.tokenFor(userOf(i)) }),
      floorReplacements: (i) => prepared[i]!.replacements,
      check: status(200),
    };
  },
});

/** A JSON-RPC message to POST /mcp with `token`, as an MCP client's Streamable HTTP transport sends it. */
const mcpRequest = (token: string, orgId: string, message: { method: string; params: unknown }) =>
  request(routeNamed('Mcp'), {
    query: `organization_id=${orgId}`,
    token,
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, ...message },
  });

/** A 200 JSON-RPC answer with a result (a tool call's result must not be a refusal). */
const mcpResult = (result: HttpResult): string | undefined => {
  const wrong = status(200)(result);
  if (wrong) return wrong;
  const body = JSON.parse(String(result.body)) as { result?: { isError?: boolean }; error?: unknown };
  return body.result && !body.result.isError ? undefined : `not a result: ${String(result.body).slice(0, 300)}`;
};

const mcpToolsList: Scenario = {
  route: 'Mcp',
  variant: 'tools/list',
  label: 'POST /mcp tools/list',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    return { event: (i) => mcpRequest(context.tokenFor(userOf(i)), orgId, { method: 'tools/list', params: {} }), check: mcpResult };
  },
};

const mcpToolsCall: Scenario = {
  route: 'Mcp',
  variant: 'tools/call',
  label: 'POST /mcp tools/call x_profile',
  async prepare(context) {
    const slotOf = await workspacePerSlot(context, 'editor');
    return {
      event: (i) =>
        mcpRequest(context.tokenFor(slotOf(i).userId), slotOf(i).orgId, {
          method: 'tools/call',
          params: { name: 'x_profile', arguments: { handle: 'nasa' } },
        }),
      check: mcpResult,
    };
  },
};

const TOOL_CALL = { method: 'tools/call', params: { name: 'x_profile', arguments: { handle: 'nasa' } } };

/** The same call with an API key: the key's record and organization stand in for the membership. */
const mcpToolsCallWithApiKey: Scenario = {
  route: 'Mcp',
  variant: 'tools/call api key',
  label: 'POST /mcp tools/call x_profile (API key)',
  async prepare(context) {
    const slotOf = await workspacePerSlot(context, 'editor');
    const keyOf = await apiKeyPerSlot(context, slotOf);
    return { event: (i) => mcpRequest(keyOf(i), slotOf(i).orgId, TOOL_CALL), check: mcpResult };
  },
};

const BENCH_REDIRECT = 'http://127.0.0.1:9/callback';

/** A public client registered as POST /oauth/register registers it. */
const benchClient = async (): Promise<ClientMetadata> => {
  const registered = await registerClient({ client_name: 'Bench agent', redirect_uris: [BENCH_REDIRECT] }, new Date());
  return { client_id: String(registered.client_id), client_name: 'Bench agent', redirect_uris: [BENCH_REDIRECT] };
};

/**
 * A grant as the consent screen approves it (lib/oauth/consent.ts: the key and its one-time code in
 * one transaction), by `userId` (an editor of `orgId`), with its code and PKCE verifier. The code is
 * kept good for an hour: every scenario is prepared before the first is timed, and a run takes
 * longer than a code's 60 s (what is sent is the same).
 */
async function benchGrant(context: BenchContext, client: ClientMetadata, orgId: string, userId: string) {
  const verifier = randomBytes(32).toString('base64url');
  const authorization: AuthorizationRequest = {
    client,
    redirect_uri: BENCH_REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    state: null,
    resource: 'http://127.0.0.1/mcp',
  };
  const choice = { organization_id: orgId, role: 'editor' as const, spending_limit: null, daily_limit: null, expires_in_days: 30 };
  // The consent form's ticket, as the page would have sealed it: its nonce is spent here.
  const code = await approve(
    authorization,
    userId,
    choice,
    new Date(),
    { nonce: randomUUID(), untilMs: Date.now() + 600_000 },
    BENCH_ORIGIN,
  );
  const codeHash = codeHashOf(code);
  const stored = await context.floor.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: oauthCodeKey(codeHash),
      UpdateExpression: 'SET valid_until_ms = :later',
      ExpressionAttributeValues: { ':later': Date.now() + 3_600_000 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return { code, codeHash, verifier, keyId: String(stored.Attributes!.key_id) };
}

/** A copy of `key` (and of `code`, when given) under fresh ids, for the floor to replay the route's conditional writes on; the replacements. */
async function floorTwin(context: BenchContext, orgId: string, keyId: string, codeHash?: string): Promise<Record<string, string>> {
  const replacements: Record<string, string> = {
    [keyId]: `key_${randomBytes(16).toString('hex')}`,
    ...(codeHash ? { [codeHash]: randomBytes(32).toString('base64url') } : {}),
  };
  const map = new Map(Object.entries(replacements));
  const copy = async (key: Record<string, string>) => {
    const stored = await context.floor.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    await context.floor.send(new PutCommand({ TableName: tableName(), Item: substitute(stored.Item!, map) }));
  };
  await copy(apiKeyKey(orgId, keyId));
  if (codeHash) await copy(oauthCodeKey(codeHash));
  return replacements;
}

/** A grant's code exchanged as POST /oauth/token exchanges it: its access and first refresh token. */
const exchangeCode = (client: ClientMetadata, grant: { code: string; verifier: string }) =>
  exchange(
    new URLSearchParams({
      grant_type: 'authorization_code',
      code: grant.code,
      client_id: client.client_id,
      redirect_uri: BENCH_REDIRECT,
      code_verifier: grant.verifier,
    }),
    issuingSigner(),
    '',
    new Date(),
  );

/** A grant per request with its code exchanged (its first refresh token), and its floor's twin at the same generation. */
async function refreshTokenPerRequest(context: BenchContext, count: number) {
  const slotOf = await workspacePerSlot(context, 'editor');
  const client = await benchClient();
  const prepared: { refreshToken: string; replacements: Record<string, string> }[] = [];
  await forEachIndex(count, context.slots, async (i) => {
    const { orgId, userId } = slotOf(i);
    const grant = await benchGrant(context, client, orgId, userId);
    const issued = await exchangeCode(client, grant);
    prepared[i] = { refreshToken: issued.refresh_token, replacements: await floorTwin(context, orgId, grant.keyId) };
  });
  return { client, prepared };
}

const tokenForm = (fields: Record<string, string>) =>
  request(routeNamed('OAuthToken'), {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: new URLSearchParams(fields).toString(),
  });

/** What an OAuth client sends and gets: a 200 with an access token and the next refresh token. */
const tokenIssued = (result: HttpResult): string | undefined =>
  status(200)(result) ?? (/"refresh_token":"wsr_/.test(String(result.body)) ? undefined : `no refresh token: ${String(result.body)}`);

/** A code per request (and its floor's twin), exchanged as the SDK's client exchanges it: its single use, then the grant's first refresh token. */
const oauthTokenCode: Scenario = {
  route: 'OAuthToken',
  variant: 'authorization_code',
  label: 'POST /oauth/token (authorization_code)',
  async prepare(context, count) {
    const slotOf = await workspacePerSlot(context, 'editor');
    const client = await benchClient();
    const prepared: { code: string; verifier: string; replacements: Record<string, string> }[] = [];
    await forEachIndex(count, context.slots, async (i) => {
      const { orgId, userId } = slotOf(i);
      const grant = await benchGrant(context, client, orgId, userId);
      prepared[i] = { ...grant, replacements: await floorTwin(context, orgId, grant.keyId, grant.codeHash) };
    });
    return {
      event: (i) =>
        tokenForm({
          grant_type: 'authorization_code',
          code: prepared[i]!.code,
          client_id: client.client_id,
          redirect_uri: BENCH_REDIRECT,
          code_verifier: prepared[i]!.verifier,
        }),
      floorReplacements: (i) => prepared[i]!.replacements,
      check: tokenIssued,
    };
  },
};

/** A grant per request at its first refresh token (its code exchanged), and its floor's twin: the rotation's conditional write, then the new token's item. */
const oauthTokenRefresh: Scenario = {
  route: 'OAuthToken',
  variant: 'refresh_token',
  label: 'POST /oauth/token (refresh_token)',
  async prepare(context, count) {
    const { client, prepared } = await refreshTokenPerRequest(context, count);
    return {
      event: (i) => tokenForm({ grant_type: 'refresh_token', refresh_token: prepared[i]!.refreshToken, client_id: client.client_id }),
      floorReplacements: (i) => prepared[i]!.replacements,
      check: tokenIssued,
    };
  },
};

/** A grant per request revoked by its refresh token (RFC 7009), and its floor's twin: the one conditional write. */
const oauthRevoke: Scenario = {
  route: 'OAuthRevoke',
  label: 'POST /oauth/revoke (a refresh token)',
  async prepare(context, count) {
    const { client, prepared } = await refreshTokenPerRequest(context, count);
    return {
      event: (i) =>
        request(routeNamed('OAuthRevoke'), {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          rawBody: new URLSearchParams({ token: prepared[i]!.refreshToken, client_id: client.client_id }).toString(),
        }),
      floorReplacements: (i) => prepared[i]!.replacements,
      check: status(200),
    };
  },
};

/**
 * The same call with an access token of an OAuth grant (its code exchanged at POST /oauth/token):
 * the grant is an API key, so the call costs what a key's does, command for command.
 */
const mcpToolsCallWithOAuth: Scenario = {
  route: 'Mcp',
  variant: 'tools/call oauth',
  label: 'POST /mcp tools/call x_profile (OAuth grant)',
  async prepare(context) {
    const slotOf = await workspacePerSlot(context, 'editor');
    const client = await benchClient();
    const tokens = await Promise.all(
      Array.from({ length: context.slots }, async (_, i) => {
        const { orgId, userId } = slotOf(i);
        const grant = await benchGrant(context, client, orgId, userId);
        const issued = await exchangeCode(client, grant);
        // Used a moment ago: the steady state, as for the API key's call.
        await touchApiKey(orgId, grant.keyId, new Date());
        return issued.access_token;
      }),
    );
    return { event: (i) => mcpRequest(tokens[i % tokens.length]!, slotOf(i).orgId, TOOL_CALL), check: mcpResult };
  },
};

/** A job of `items` pending items in `orgId`, written as the creation route writes it (counted active). */
async function benchJob(orgId: string, userId: string, items: number): Promise<JobRecord> {
  const now = new Date();
  // The bench drives its items itself: nothing for the recovery of stalled jobs.
  const job: JobRecord = {
    ...newJob({ orgId, operation: 'x_profile', total: items, createdById: userId, now }),
    messages: 'sent',
    messages_sent_at: now.toISOString(),
  };
  await createJob(job, Number.MAX_SAFE_INTEGER, undefined, Date.now());
  await putJobItems(
    job.id,
    Array.from({ length: items }, (_, i) => ({ handle: `creator${i}` })),
  );
  return job;
}

/** A job of 10 inputs per request, each in an organization of its own (5 jobs at most are active in one). */
const createSocialJob: Scenario = {
  route: 'CreateSocialJob',
  label: 'POST social/x_profile/jobs (10 inputs)',
  async prepare(context, count) {
    const editors = await organizationPerRequest(context, count, 'editor');
    const route = routeNamed('CreateSocialJob');
    const inputs = Array.from({ length: 10 }, (_, i) => ({ handle: `creator${i}` }));
    return {
      event: (i) =>
        request(route, {
          path: { operation: 'x_profile' },
          query: `organization_id=${editors[i]!.orgId}`,
          token: context.tokenFor(editors[i]!.userId),
          body: { inputs },
        }),
      check: status(202),
    };
  },
};

const getSocialJob: Scenario = {
  route: 'GetSocialJob',
  label: 'GET social/jobs/{id}',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const job = await benchJob(orgId, userOf(0), 10);
    const route = routeNamed('GetSocialJob');
    return { event: (i) => request(route, { path: { job_id: job.id }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

const listSocialJobItems: Scenario = {
  route: 'ListSocialJobItems',
  label: 'GET social/jobs/{id}/items (25 of 100)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const job = await benchJob(orgId, userOf(0), 100);
    const route = routeNamed('ListSocialJobItems');
    return { event: (i) => request(route, { path: { job_id: job.id }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/** A queued job per request, and the floor its own copy (its cancel is conditional on the job being active). */
const cancelSocialJob: Scenario = {
  route: 'CancelSocialJob',
  label: 'POST social/jobs/{id}/cancel (10 queued)',
  async prepare(context, count) {
    const { orgId, userOf } = await workspace(context);
    const prepared: { id: string; replacements: Record<string, string> }[] = [];
    await forEachIndex(count, context.slots, async (i) => {
      const job = await benchJob(orgId, userOf(i), 10);
      const copy = `job_${randomBytes(16).toString('hex')}`;
      const stored = await context.floor.send(new GetCommand({ TableName: tableName(), Key: jobKey(job.id), ConsistentRead: true }));
      await context.floor.send(
        new PutCommand({ TableName: tableName(), Item: substitute(defined(stored.Item, 'the job'), new Map([[job.id, copy]])) }),
      );
      prepared[i] = { id: jobOf(defined(stored.Item, 'the job')).id, replacements: { [job.id]: copy } };
    });
    const route = routeNamed('CancelSocialJob');
    return {
      event: (i) => request(route, { path: { job_id: prepared[i]!.id }, token: context.tokenFor(userOf(i)) }),
      floorReplacements: (i) => prepared[i]!.replacements,
      check: status(200),
    };
  },
};

/** Alert settings as an owner sets them: read by every GET (the defaults apply only while none are stored). */
const BENCH_ALERT_SETTINGS = { low_balance: 1_000, thresholds: [50, 80, 100] };

const getAlertSettings: Scenario = {
  route: 'GetAlertSettings',
  label: 'GET organizations/{id}/alerts',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    await putAlertSettings(orgId, userOf(0), BENCH_ALERT_SETTINGS, BENCH_OPERATOR, new Date());
    const route = routeNamed('GetAlertSettings');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/** The settings replaced again and again, an organization per slot: no two requests at once write the same item. */
const putAlertSettingsScenario: Scenario = {
  route: 'PutAlertSettings',
  label: 'PUT organizations/{id}/alerts',
  async prepare(context) {
    const slotOf = await workspacePerSlot(context, 'owner');
    const twins = await Promise.all(
      Array.from({ length: context.slots }, (_, i) => twinOrganization(slotOf(i).orgId, [{ userId: slotOf(i).userId, role: 'owner' }])),
    );
    const route = routeNamed('PutAlertSettings');
    return {
      // A new low balance each time: a change, and its event; the floor changes the slot's twin in step.
      event: (i) =>
        request(route, {
          path: { organization_id: slotOf(i).orgId },
          token: context.tokenFor(slotOf(i).userId),
          body: { low_balance: 1_000 + i, thresholds: [100, 80, 50] },
        }),
      floorReplacements: (i) => twins[i % context.slots] ?? {},
      check: status(200),
    };
  },
};

/**
 * Where the bench's endpoints point: a loopback address, accepted where loopback is allowed (the
 * tests, npm start, the bench's own stack) and literal, so that no DNS lookup is timed. Nothing
 * is ever sent to it: the bench runs no delivery consumer (npm run bench:webhooks times deliveries).
 */
const BENCH_HOOK_URL = 'http://127.0.0.1:9/hooks';

/** An endpoint of `orgId` written as the service writes one (its organization's count too), past the limit of 10 when the bench needs more. */
async function benchEndpoint(orgId: string, ownerId: string): Promise<WebhookEndpointRecord> {
  const endpoint: WebhookEndpointRecord = {
    id: `whk_${randomBytes(16).toString('hex')}`,
    organization_id: orgId,
    url: BENCH_HOOK_URL,
    events: ['*'],
    secret: newWebhookSecret(),
    created_at: new Date().toISOString(),
  };
  await createEndpoint(endpoint, ownerId, Number.MAX_SAFE_INTEGER, BENCH_OPERATOR, new Date());
  return endpoint;
}

/** `count` test events, a minute apart and newest first: the event ids and times of an endpoint's deliveries. */
const benchEvents = (count: number) => {
  const now = Date.now();
  return Array.from({ length: count }, (_, k) => ({
    id: `evt_${randomBytes(16).toString('hex')}`,
    created_at: new Date(now - k * 60_000).toISOString(),
  }));
};

/** The deliveries of `events` to endpoint `webhookId`, written through the service's own write (pending, unattempted). */
async function benchDeliveries(
  orgId: string,
  webhookId: string,
  events: readonly { id: string; created_at: string }[],
  concurrency: number,
) {
  await forEachIndex(events.length, concurrency, async (k) => {
    const { id, created_at } = events[k]!;
    const body = JSON.stringify({ id, type: TEST_EVENT_TYPE, created_at, organization_id: orgId, data: { webhook_id: webhookId } });
    await putDelivery({ webhook_id: webhookId, id, type: TEST_EVENT_TYPE, created_at, body }, Date.now());
  });
}

const notificationEndpoints = new WeakMap<BenchContext, Promise<WebhookEndpointRecord[]>>();

/**
 * The shared workspace's notification endpoints, as many as an organization may have (10),
 * made once per run: listed whole, one tested, another's deliveries listed.
 */
function endpointsOf(context: BenchContext): Promise<WebhookEndpointRecord[]> {
  let shared = notificationEndpoints.get(context);
  if (!shared) {
    shared = (async () => {
      const { orgId, userOf } = await workspace(context);
      const endpoints: WebhookEndpointRecord[] = [];
      // One at a time: each is a transaction on the organization's count.
      for (let k = 0; k < MAX_ENDPOINTS; k += 1) endpoints.push(await benchEndpoint(orgId, userOf(0)));
      return endpoints;
    })();
    notificationEndpoints.set(context, shared);
  }
  return shared;
}

/** An endpoint per request, each in an organization of its own (10 at most in one: the route's and the floor's make 2). */
const createWebhook: Scenario = {
  route: 'CreateWebhook',
  label: 'POST organizations/{id}/webhooks',
  async prepare(context, count) {
    const owners = await organizationPerRequest(context, count, 'owner');
    const route = routeNamed('CreateWebhook');
    return {
      event: (i) =>
        request(route, {
          path: { organization_id: owners[i]!.orgId },
          token: context.tokenFor(owners[i]!.userId),
          body: { url: BENCH_HOOK_URL, events: ['spending_limit.threshold_reached', 'credits.balance_low'] },
        }),
      check: status(201),
    };
  },
};

const listWebhooks: Scenario = {
  route: 'ListWebhooks',
  label: `GET organizations/{id}/webhooks (${MAX_ENDPOINTS} of ${MAX_ENDPOINTS})`,
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    await endpointsOf(context);
    const route = routeNamed('ListWebhooks');
    return { event: (i) => request(route, { path: { organization_id: orgId }, token: context.tokenFor(userOf(i)) }), check: status(200) };
  },
};

/**
 * An endpoint with 3 deliveries per request, and the floor its own copy (the same deliveries
 * under another endpoint id): the delete is conditional on the endpoint, and removes its
 * deliveries. An organization per slot, so that no two deletes at once change the same count.
 */
const deleteWebhook: Scenario = {
  route: 'DeleteWebhook',
  label: 'DELETE organizations/{id}/webhooks/{id} (3 deliveries)',
  async prepare(context, count) {
    const slotOf = await workspacePerSlot(context, 'owner');
    const prepared: { id: string; replacements: Record<string, string> }[] = [];
    await forEachIndex(count, context.slots, async (i) => {
      const { orgId, userId } = slotOf(i);
      const events = benchEvents(3);
      const [endpoint, copy] = [await benchEndpoint(orgId, userId), await benchEndpoint(orgId, userId)];
      await benchDeliveries(orgId, endpoint.id, events, 1);
      await benchDeliveries(orgId, copy.id, events, 1);
      prepared[i] = { id: endpoint.id, replacements: { [endpoint.id]: copy.id } };
    });
    const route = routeNamed('DeleteWebhook');
    return {
      event: (i) =>
        request(route, {
          path: { organization_id: slotOf(i).orgId, webhook_id: prepared[i]!.id },
          token: context.tokenFor(slotOf(i).userId),
        }),
      floorReplacements: (i) => prepared[i]!.replacements,
      check: status(204),
    };
  },
};

/** A test event to one endpoint per request: a new delivery each time (its event id made up), queued on the embedded webhooks queue. */
const testWebhook: Scenario = {
  route: 'TestWebhook',
  label: 'POST organizations/{id}/webhooks/{id}/test',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const [endpoint] = await endpointsOf(context);
    const route = routeNamed('TestWebhook');
    return {
      event: (i) => request(route, { path: { organization_id: orgId, webhook_id: endpoint!.id }, token: context.tokenFor(userOf(i)) }),
      check: status(202),
    };
  },
};

const listWebhookDeliveries: Scenario = {
  route: 'ListWebhookDeliveries',
  label: 'GET organizations/{id}/webhooks/{id}/deliveries (25 of 100)',
  async prepare(context) {
    const { orgId, userOf } = await workspace(context);
    const endpoint = defined((await endpointsOf(context))[1], 'a second endpoint');
    await benchDeliveries(orgId, endpoint.id, benchEvents(100), context.slots);
    const route = routeNamed('ListWebhookDeliveries');
    return {
      event: (i) => request(route, { path: { organization_id: orgId, webhook_id: endpoint.id }, token: context.tokenFor(userOf(i)) }),
      check: status(200),
    };
  },
};

/** A public route that touches no table: a GET of `path`, answered 200. */
const publicDocument = (name: string, label: string, path: Record<string, string> = {}): Scenario => ({
  route: name,
  label: `${label} (no DynamoDB)`,
  async prepare() {
    const route = routeNamed(name);
    return { event: () => request(route, { path }), check: status(200) };
  },
});

/** The console's script by the hashed name its page links (the build `npm ci` made). */
const consoleAsset: Scenario = {
  route: 'GetConsoleAsset',
  label: 'GET /console/console.<hash>.js (no DynamoDB)',
  async prepare() {
    const { consoleFiles } = await import('../../lib/console/files.ts');
    const asset = consoleFiles().get('console.js')?.hashedName ?? 'console.js';
    return { event: () => request(routeNamed('GetConsoleAsset'), { path: { asset } }), check: status(200) };
  },
};

/** A public client registered per request (RFC 7591): the one write of `POST /oauth/register`. */
const oauthRegister: Scenario = {
  route: 'RegisterOAuthClient',
  label: 'POST /oauth/register (a public client)',
  async prepare() {
    const route = routeNamed('RegisterOAuthClient');
    return {
      event: (i) =>
        request(route, {
          body: { client_name: `bench ${i}`, redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none' },
        }),
      check: status(201),
    };
  },
};

/** The sign-in page of an authorization request of a registered client: the client's one read. */
const oauthAuthorize: Scenario = {
  route: 'OAuthAuthorize',
  label: 'GET /oauth/authorize (a registered client)',
  async prepare() {
    const client = await benchClient();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: BENCH_REDIRECT,
      code_challenge: createHash('sha256').update('bench').digest('base64url'),
      code_challenge_method: 'S256',
      resource: 'http://127.0.0.1/mcp',
    }).toString();
    return {
      event: () => request(routeNamed('OAuthAuthorize'), { method: 'GET', query, headers: { host: '127.0.0.1' } }),
      check: status(200),
    };
  },
};

const routeNotFound: Scenario = {
  route: 'RouteNotFound',
  label: 'GET /nowhere (404, no DynamoDB)',
  async prepare() {
    const route = routeNamed('RouteNotFound');
    return { event: () => request(route, { method: 'GET', rawPath: '/nowhere' }), check: status(404) };
  },
};

export const SCENARIOS: readonly Scenario[] = [
  listBillingEvents,
  listAuditEvents,
  listCreditGrants,
  usage('day'),
  usage('hour'),
  getCredits,
  createCreditPurchase,
  receiveStripeWebhook,
  listCreditPurchases,
  getCreditPurchase,
  getAutoRecharge,
  putAutoRecharge,
  createPaymentMethod,
  getPaymentMethod,
  deletePaymentMethod,
  listSocialOperations,
  runSocialOperation,
  runFromCache,
  runWithFields,
  runWithApiKey,
  runWithGuardrails,
  quoteSocialOperation,
  createSocialJob,
  getSocialJob,
  listSocialJobItems,
  cancelSocialJob,
  getMe,
  getOrganization,
  updateOrganization,
  listMembers,
  putMember,
  deleteMember,
  createInvitationScenario,
  listInvitationsScenario,
  resendInvitationScenario,
  revokeInvitationScenario,
  acceptInvitationScenario,
  listTrash,
  createApiKeyScenario,
  listApiKeys,
  updateApiKey,
  revokeApiKey,
  getAlertSettings,
  putAlertSettingsScenario,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  testWebhook,
  listWebhookDeliveries,
  restore('asset'),
  restore('skill'),
  restore('conversation'),
  restore('project'),
  mcpToolsList,
  mcpToolsCall,
  mcpToolsCallWithApiKey,
  mcpToolsCallWithOAuth,
  publicDocument('OAuthProtectedResource', 'GET oauth-protected-resource'),
  publicDocument('GetJwks', 'GET /.well-known/jwks.json'),
  publicDocument('GetSocialStatus', 'GET /social/status'),
  publicDocument('OAuthAuthorizationServer', 'GET /.well-known/oauth-authorization-server'),
  oauthAuthorize,
  oauthRegister,
  oauthTokenCode,
  oauthTokenRefresh,
  oauthRevoke,
  publicDocument('GetServiceIndex', 'GET /'),
  publicDocument('GetOpenApiDocument', 'GET /openapi.json'),
  publicDocument('GetDocsPage', 'GET /docs'),
  publicDocument('GetDocsAsset', `GET /docs/${DOCS_ASSETS[0]!.name}`, { asset: DOCS_ASSETS[0]!.name }),
  publicDocument('GetConsolePage', 'GET /console'),
  consoleAsset,
  routeNotFound,
];

/** Routes of lib/routes.ts without a scenario. */
export const missingScenarios = (scenarios: readonly Scenario[] = SCENARIOS): string[] =>
  routes.filter((route) => !scenarios.some((scenario) => scenario.route === route.name)).map((route) => route.name);
