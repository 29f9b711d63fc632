/**
 * The route table: the one list of endpoints. The CDK stack builds one function per entry,
 * the local server routes by it, the OpenAPI document describes it, and the tests check all
 * three against it.
 * `tableActions` is exactly what the handler does to the table (least-privilege IAM).
 */

import { CONSOLE_ASSETS } from './console-assets.ts';
import type { AuditEventType } from './db/audit-events.ts';
import { SWEEP_INDEX } from './db/table.ts';
import { defined } from './defined.ts';
import { DOCS_ASSETS } from './docs-assets.ts';
import type { ErrorCode } from './errors.ts';
import { routePattern } from './route-pattern.ts';

export interface Route {
  /** Logical name; also the CDK construct id. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';
  /**
   * API Gateway path template; `$default` catches every request no other route matches. A
   * path with method `ANY` takes every method (API Gateway prefers a route naming the method).
   */
  path: string;
  /** Module under functions/ exporting `handler`. */
  entry: string;
  tableActions: readonly string[];
  /** Indexes the handler queries (`dynamodb:Query` is then allowed on those index ARNs only). */
  indexes?: readonly string[];
  /** Secrets the handler needs (see RouteSecret for how each reaches it). */
  secrets?: readonly RouteSecret[];
  /** Served without a token and not rate limited (the API description, the docs page). */
  public?: boolean;
  /**
   * A page for people and its files (the web console, docs/console.md), or an endpoint of another
   * protocol's (the OAuth endpoints: RFC 6749 and RFC 7591 bodies): served like any public route,
   * and left out of the API description, since it is no part of the API.
   */
  page?: boolean;
  /**
   * Offers the stack's user pool's hosted UI (`-c userPool=true`): the stack gives the function its
   * URL and the console's app client (lib/config.ts `consoleHostedUi`).
   */
  hostedUi?: boolean;
  /** Sends job messages: the functions given sqs:SendMessage on the jobs queue (deployed). */
  sendsJobs?: boolean;
  /** Queues webhook deliveries (a cancel that ends a job): given sqs:SendMessage on the webhooks queue (deployed). */
  sendsWebhooks?: boolean;
  /** Signs API keys: the one function given the signing key (deployed, kms:Sign on the stack's KMS key). */
  signsApiKeys?: boolean;
  /**
   * Sends email (invitations): given ses:SendEmail from the stack's `InvitationFromAddress` only
   * (deployed), and that address in INVITATION_FROM_ADDRESS; locally, the outbox (lib/mail/email.ts).
   */
  sendsEmail?: boolean;
  /**
   * Files the handler reads at run time: package paths (`swagger-ui-dist/swagger-ui.css`) or
   * files of the repository (`./openapi.json`). The stack copies each beside the function's
   * bundle, where lib/openapi/read-asset.ts finds them.
   */
  assets?: readonly string[];
  /**
   * The JSON Schemas of the path parameters of a route built on baseChain(), which validates
   * none (an endpoint() route's come from its schemas): for the API description only, and here
   * rather than in the function module, whose exports every bundle keeps.
   */
  pathParameters?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * What the route writes to the audit log (docs/audit.md): the events a change it makes writes, in
   * the change's own transaction, or why it writes none. Every route but a GET declares it, and
   * test/audit.test.ts checks each declared event is written by the route.
   */
  audit?: RouteAudit;
  /** The OpenAPI document's summary of the route (lib/openapi/document.ts). */
  summary: string;
  /** What a client should know beyond the summary: who may call, what it answers. Markdown. */
  description: string;
  /** The group the route is listed under in the document and on the docs page. */
  tag: string;
  /**
   * The error codes the handler itself can answer. The chain's own are added from what the
   * handler was built with: endpoint() adds 401, 403 `ip_not_allowed`, 400 `unsupported_api_version`,
   * 429 and 400 `validation_failed`/`invalid_json`; every route can answer 500 `internal_error`.
   */
  errors: readonly ErrorCode[];
  /**
   * Statuses the API specification lists for this route that this deployment never answers,
   * each with why: declared anyway, with the error body, so that a client generated from the
   * specification finds them in the document (lib/openapi/document.ts).
   */
  notProduced?: Readonly<Record<number, string>>;
}

/**
 * Each secret protects one thing (docs/deployment.md says where each lives and what rotating it ends).
 * `providerKeys`: every data vendor's API key (ScrapeCreators', TikHub's, Facebook Scraper3's: each
 * provider that declares a `vendor`, lib/social/providers), each its own secret read at run time
 * through the Parameters and Secrets extension (IAM read on the secret, its ARN in
 * `<KEY>_SECRET_ARN`, e.g. SCRAPECREATORS_API_KEY_SECRET_ARN; infra/vendor-keys.ts). A function
 * that runs providers takes them all, whichever SOCIAL_PROVIDER names (a key never read costs
 * nothing: the provider reads it on its first call).
 * `cursorSigningKey`: the HMAC key of paging cursors and of nothing else, generated by the stack
 * and resolved into CURSOR_SIGNING_KEY at deploy time: a forged cursor could only position a
 * caller within a listing whose access is checked on every page, rotating it restarts walks in
 * flight, and a run-time fetch would cost the function the extension and a call per cold start.
 * `oauthSealingKey`: the HMAC key of the OAuth consent tickets and hosted sign-in states
 * (lib/oauth/sealing-key.ts), which can approve a grant in anyone's name: `{"kid","key","previous"}`
 * JSON read at run time like the provider key (its ARN in OAUTH_SEALING_KEY_SECRET_ARN), never in
 * the function's configuration.
 * `mcpConsentKey`: the HMAC key of MCP consent (lib/mcp/consent-token.ts: the confirmation tokens
 * and `requestState`s that let a tool call above its owner's `confirm_above` spend), read at run
 * time like the OAuth sealing key (its ARN in MCP_CONSENT_KEY_SECRET_ARN), by the MCP function alone.
 * `stripeSecretKey`: Stripe's secret API key, which makes checkouts and refunds, i.e. moves money:
 * read at run time like the provider key (its ARN in STRIPE_SECRET_KEY_SECRET_ARN), kept at most 5
 * minutes (lib/billing/stripe-client.ts).
 * `stripeWebhookSecret`: the webhook's signing secrets, which only tell Stripe's events from
 * forgeries (one, or two during a rotation; lib/billing/webhook-secrets.ts): read at run time like
 * the others (its ARN in STRIPE_WEBHOOK_SECRET_SECRET_ARN), kept at most 5 minutes.
 */
export type RouteSecret =
  | 'providerKeys'
  | 'cursorSigningKey'
  | 'oauthSealingKey'
  | 'mcpConsentKey'
  | 'stripeSecretKey'
  | 'stripeWebhookSecret';

/** A route's audit events, or why it writes none (a reason a reviewer can check against DESIGN.md's table). */
export type RouteAudit = { writes: readonly AuditEventType[] } | { none: string };

/** The why of a status the specification lists and this deployment never answers. */
const NEVER_402 =
  'Listed by the API specification; this deployment never answers it here: a call that spends no credits is never refused for credits, so a workspace out of credits can still see why.';
const NEVER_409_READ =
  'Listed by the API specification; this deployment never answers it here: a listing changes nothing, so no state of a resource can forbid it.';

const RESTORE =
  'Brings back a soft-deleted resource within the restore window (30 days by default): `deleted_at` and `deleted_by_id` become null, `updated_at` now, nothing else changes. A resource that is not deleted answers 200 unchanged, so retries are safe. Owners restore anything of the organization, editors what they created and what is not private, viewers nothing (403); whoever cannot read the resource gets 404.';

/**
 * The four restore routes differ only in their resource, what may refuse them and the one
 * table action their write needs beyond the common ones: rate-limit counter (UpdateItem),
 * resource (GetItem), the caller's memberships (Query), the audit event (PutItem). A transaction needs the action of each
 * of its items: PutItem for a slug/name claim, ConditionCheckItem for a conversation's project.
 */
function restoreRoute(
  kind: string,
  collection: string,
  noun: string,
  extra: { description: string; errors: ErrorCode[]; writeAction?: string; notProduced?: Record<number, string> },
): Route {
  const restored = `${kind.toLowerCase()}.restored` as AuditEventType;
  const idName = `${collection.replace(/s$/, '')}_id`;
  return {
    name: `Restore${kind}`,
    method: 'POST',
    path: `/${collection}/{${idName}}/restore`,
    entry: `functions/restore-${kind.toLowerCase()}.ts`,
    audit: { writes: [restored] },
    // PutItem: the audit event, one more item of the restore's transaction.
    tableActions: [
      'dynamodb:UpdateItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
      ...(extra.writeAction && extra.writeAction !== 'dynamodb:PutItem' ? [extra.writeAction] : []),
    ],
    summary: `Restore a deleted ${noun}`,
    description: `${RESTORE}${extra.description}`,
    tag: 'Restore',
    errors: ['forbidden', 'not_found', ...extra.errors],
    notProduced: { 402: NEVER_402, ...extra.notProduced },
  };
}

export const routes: readonly Route[] = [
  {
    name: 'ListBillingEvents',
    method: 'GET',
    path: '/organizations/{organization_id}/billing/events',
    entry: 'functions/list-billing-events.ts',
    // One round trip: rate-limit counter, membership and the page's Query together.
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    secrets: ['cursorSigningKey'],
    summary: "List the organization's billing events",
    description:
      'Owners only. Events created within the last `days` days, newest first (ties by id), at most `limit` a page; follow `next_cursor` while `has_more` to read the whole window, each event exactly once. A caller who is not a member gets 404, as for an organization that does not exist.',
    tag: 'Billing',
    errors: ['forbidden', 'not_found'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // One round trip: rate-limit counter (UpdateItem), the membership (GetItem) and the page's
    // consistent Query together (more Queries only while a filter skips events).
    name: 'ListAuditEvents',
    method: 'GET',
    path: '/organizations/{organization_id}/audit-events',
    entry: 'functions/list-audit-events.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    secrets: ['cursorSigningKey'],
    summary: "Read the organization's audit log: who changed what, and when",
    description:
      "Owners, with a user's token. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. Every change of the organization's settings, members, invitations, API keys, alert settings, notification endpoints, restores, auto-recharge settings and saved card, and every operator's change, as one event (`type`, `actor`, `target`, the `changes` before and after, `details`, the `request_id` and `source_ip` of the request that made it; never a secret), newest first (ties by id), listed within 1 s of the change's answer and kept 400 days; nothing changes or deletes one. Filters, all applied: `type` (1 to 20, comma-separated), `actor_id`, `target_id` (exact), `from` (inclusive) and `to` (exclusive); a bad or repeated one 400 naming it (`to` for a reversed window). Paged by `cursor`, bound to the organization and every filter. `Accept: text/csv` answers the same page as CSV. See docs/audit.md.",
    tag: 'Audit log',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // One round trip: rate-limit counter (UpdateItem), the membership and the grants' ledger
    // (GetItem each) and the page's Query together.
    name: 'ListCreditGrants',
    method: 'GET',
    path: '/organizations/{organization_id}/credit-grants',
    entry: 'functions/list-credit-grants.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    secrets: ['cursorSigningKey'],
    summary: "List the organization's credit grants: where its credits came from, what is left of each and when it lapses",
    description:
      "Owners, with a user's token. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404; never 402. Every addition of credits is a grant (`source`: `purchase`, `auto_recharge`, `operator`, `promotional`), newest first, optionally of one `status` (`active`, `depleted`, `expired`). Charges and deductions draw the grant expiring soonest (no expiry last; ties: the oldest), a refund returns to the grants its charge drew, and a new grant pays `debt` first; `remaining` reflects a charge within 5 s. At rest, the balance is the sum of `remaining` less `debt`. Paged by `cursor`.",
    tag: 'Credit grants',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // One round trip: rate-limit counter (UpdateItem), the membership (GetItem) and the window's
    // usage counters (Query) together.
    name: 'GetUsage',
    method: 'GET',
    path: '/organizations/{organization_id}/usage',
    entry: 'functions/get-usage.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    summary: 'Where the credits went: usage by hour or day, grouped by operation, network, member or API key',
    description:
      "Owners see the whole organization; any other member, and an API key, only its own runs (a viewer's buckets are empty). Every bucket from `from` to `to` (excluded) is listed, oldest first, an empty one with `results: []`; each result carries the `group_by` keys in the order asked (`member`: the user whose token ran it, null for an API key's runs; `api_key`: null for a user's runs), `runs` (charges), `charged` and `refunded` (credits) and `net`. Counted from the table's change stream within seconds of each charge and refund, each exactly once; a charge counts in the bucket of its billing event's `created_at`, its refund in the refund's. At most 168 hour or 93 day buckets; kept 13 months. `Accept: text/csv` answers the same rows as CSV (RFC 4180). A caller who is not a member gets 404.",
    tag: 'Billing',
    errors: ['not_found'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // One round trip: rate-limit counter (UpdateItem) with the organization, the membership and
    // this month's two spend counters (GetItem each).
    name: 'GetCredits',
    method: 'GET',
    path: '/organizations/{organization_id}/credits',
    entry: 'functions/get-credits.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    summary: "Read the organization's balance and this month's and today's spend",
    description:
      "Any member. The balance, the current UTC month, and the organization's and the caller's monthly and daily limits with their spend this UTC month (`spent`) and this UTC day (`spent_today`); limits null when unset. A caller with an API key also gets `api_key`: the key's id, limits and spend. Never 402, so a workspace out of credits can see why. A caller who is not a member gets 404.",
    tag: 'Billing',
    errors: ['not_found'],
  },
  {
    // The owner's membership (GetItem), the Idempotency-Key's claim (PutItem, GetItem; DeleteItem to
    // release it when no purchase is made) and the open checkouts (GetItem); then Stripe; then one
    // transaction: the open checkouts (UpdateItem), the purchase (PutItem), the key (UpdateItem).
    name: 'CreateCreditPurchase',
    method: 'POST',
    path: '/organizations/{organization_id}/credit-purchases',
    entry: 'functions/create-credit-purchase.ts',
    audit: { none: 'a checkout: money, recorded as the purchase and, once paid, its billing event' },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    secrets: ['stripeSecretKey'],
    summary: 'Buy credits: a checkout to pay by card',
    description:
      "Owners, with a user's token. `credits` (a whole number within the pricing `GET …/credit-purchases` shows, by default 500 to 100,000) → 201 with the purchase, `Location`, and its `checkout_url`, Stripe's hosted page where the buyer pays; once paid, the credits are added exactly once (see docs/funding.md). At most 10 open checkouts per organization: 409 `purchase_limit_reached` (`data.max_open`). With an `Idempotency-Key`, the same request within 24 hours answers the first purchase (`Idempotent-Replayed: true`), another body 409 `idempotency_key_reused`. Stripe failing: 500 `upstream_failed`, no purchase. A deployment without a payments provider: 403 `operation_not_enabled`. API keys 403 `api_key_not_allowed` (a checkout needs a person); other members 403; anyone else 404. Never 402.",
    tag: 'Credit purchases',
    errors: [
      'api_key_not_allowed',
      'forbidden',
      'not_found',
      'operation_not_enabled',
      'purchase_limit_reached',
      'idempotency_key_reused',
      'upstream_failed',
    ],
    notProduced: { 402: NEVER_402 },
  },
  {
    // One round trip: rate-limit counter, membership and the page's Query together (more Queries
    // only while a `status` filter skips purchases).
    name: 'ListCreditPurchases',
    method: 'GET',
    path: '/organizations/{organization_id}/credit-purchases',
    entry: 'functions/list-credit-purchases.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    secrets: ['cursorSigningKey'],
    summary: "List the organization's credit purchases, with the pricing",
    description:
      "Owners, with a user's token. Purchases newest first, `status` keeping one status, paged by `cursor`; `pricing` says what a credit costs and how many one purchase may buy. Never calls Stripe: a checkout past `expires_at` reads `expired`. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404.",
    tag: 'Credit purchases',
    errors: ['api_key_not_allowed', 'forbidden', 'not_found'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // One round trip: rate-limit counter, membership and the purchase (GetItem each).
    name: 'GetCreditPurchase',
    method: 'GET',
    path: '/organizations/{organization_id}/credit-purchases/{purchase_id}',
    entry: 'functions/get-credit-purchase.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    summary: 'Read one credit purchase',
    description:
      "Owners, with a user's token. The purchase as it stands (never asking Stripe). API keys 403 `api_key_not_allowed`; other members 403; anyone else, and an unknown purchase, 404.",
    tag: 'Credit purchases',
    errors: ['api_key_not_allowed', 'forbidden', 'not_found'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // One round trip: rate-limit counter, membership and the auto-recharge item (GetItem each).
    name: 'GetAutoRecharge',
    method: 'GET',
    path: '/organizations/{organization_id}/auto-recharge',
    entry: 'functions/get-auto-recharge.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    summary: "Read the organization's auto-recharge: its rails, its state and its card",
    description:
      "Owners, with a user's token. `{ enabled, threshold, credits, monthly_cap, recharged_this_month, consecutive_failures, disabled_reason, last_recharge_at, next_attempt_at, payment_method }` (a new organization: off, nothing set). See docs/funding.md. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. Never 402.",
    tag: 'Auto-recharge',
    errors: ['api_key_not_allowed', 'forbidden', 'not_found'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // Rate-limit counter and membership, then the auto-recharge item (GetItem), then its versioned
    // put and, when a setting changed, the audit event (PutItem in one transaction).
    name: 'PutAutoRecharge',
    method: 'PUT',
    path: '/organizations/{organization_id}/auto-recharge',
    entry: 'functions/put-auto-recharge.ts',
    audit: { writes: ['auto_recharge.updated'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
    summary:
      'Set auto-recharge: buy `credits` by the saved card whenever the balance falls below `threshold`, at most `monthly_cap` a month',
    description:
      "Owners, with a user's token. `enabled` (required); `threshold` (0 to 1,000,000), `credits` (the purchase range) and `monthly_cap` (`credits` to 10,000,000) are required when enabled and kept when omitted with `enabled: false`; else 400 naming the field. Enabling without a saved card: 409 `payment_method_required`. Turning it on from off clears `disabled_reason` and `consecutive_failures`. Below the threshold once enabled, a recharge starts within seconds; at most one in flight, one success an hour, never over the monthly cap, three consecutive failures disable it, and every refusal is an event on the owners' endpoints (see docs/funding.md). Only this route enables it. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. Never 402.",
    tag: 'Auto-recharge',
    errors: ['api_key_not_allowed', 'forbidden', 'not_found', 'payment_method_required'],
    notProduced: { 402: NEVER_402 },
  },
  {
    // Rate-limit counter and membership, the open checkouts' item (GetItem) and, for the first
    // card, the Customer kept on it (UpdateItem); Stripe between.
    name: 'CreatePaymentMethod',
    method: 'POST',
    path: '/organizations/{organization_id}/auto-recharge/payment-method',
    entry: 'functions/create-payment-method.ts',
    audit: {
      none: "it opens Stripe's setup page and changes nothing here: the card, once entered there, is saved by the webhook (`payment_method.saved`, by the system)",
    },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    secrets: ['stripeSecretKey'],
    summary: 'Save a card for auto-recharge: a page to enter it',
    description:
      "Owners, with a user's token. 201 `{ checkout_url, expires_at }`: Stripe's hosted page (a Checkout Session in setup mode, for payments off-session). Once completed there, its card is the organization's one card (an earlier one detached, `consecutive_failures` 0), within seconds. Stripe failing: 500 `upstream_failed`. A deployment without a payments provider: 403 `operation_not_enabled`. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. Never 402.",
    tag: 'Auto-recharge',
    errors: ['api_key_not_allowed', 'forbidden', 'not_found', 'operation_not_enabled', 'upstream_failed'],
    notProduced: { 402: NEVER_402 },
  },
  {
    // One round trip: rate-limit counter, membership and the auto-recharge item (GetItem each).
    name: 'GetPaymentMethod',
    method: 'GET',
    path: '/organizations/{organization_id}/auto-recharge/payment-method',
    entry: 'functions/get-payment-method.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    summary: 'Read the saved card',
    description:
      "Owners, with a user's token. `{ payment_method: null | { brand, last4 } }`. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. Never 402.",
    tag: 'Auto-recharge',
    errors: ['api_key_not_allowed', 'forbidden', 'not_found'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // Rate-limit counter and membership, then the auto-recharge item (GetItem); with a card, its
    // versioned put and the audit event (PutItem in one transaction), then Stripe's detach.
    name: 'DeletePaymentMethod',
    method: 'DELETE',
    path: '/organizations/{organization_id}/auto-recharge/payment-method',
    entry: 'functions/delete-payment-method.ts',
    audit: { writes: ['payment_method.removed'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
    secrets: ['stripeSecretKey'],
    summary: 'Remove the saved card',
    description:
      "Owners, with a user's token. 204, also when no card is saved. An enabled auto-recharge is disabled (`disabled_reason: payment_method_removed`, `auto_recharge.disabled`); the card is detached from the organization's Stripe Customer. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. Never 402.",
    tag: 'Auto-recharge',
    errors: ['api_key_not_allowed', 'forbidden', 'not_found'],
    notProduced: { 402: NEVER_402 },
  },
  {
    // The purchase (GetItem); the settle transaction: the payment's marker and the billing event
    // (PutItem), the balance, the purchase and its open-checkout slot (UpdateItem); a reversal's
    // transaction and a failure's or expiry's update (UpdateItem); a setup's card, the auto-recharge
    // item's versioned put and its audit events (PutItem in one transaction). No rate-limit counter: public.
    name: 'ReceiveStripeWebhook',
    method: 'POST',
    path: '/payments/stripe/webhook',
    entry: 'functions/stripe-webhook.ts',
    // Its money (purchases, recharges, reversals, expiries) is billing events; a completed setup
    // checkout's card is audited, by the system.
    audit: { writes: ['payment_method.saved', 'payment_method.removed'] },
    tableActions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    secrets: ['stripeSecretKey', 'stripeWebhookSecret'],
    public: true,
    summary: "Stripe's events about this service's payments (the webhook)",
    description:
      'For Stripe, not for clients: no token, not rate limited. The raw body (at most 1 MiB, else 413) must carry a valid `Stripe-Signature` (`t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the endpoint\'s signing secret, `t` within 300 s): else 400 `validation_failed` naming the header, and nothing changes. Then not JSON: 400 `invalid_json`; not an event (`id` "evt_…", string `type`, object `data.object`): 400 naming the field. Else 200 `{ "received": true }`, also for events of other types or naming nothing here. An event is trusted for ids only: the payment is read back from Stripe and a purchase is credited once, whatever events come and in whatever order (see docs/funding.md). 500 only when a verified event could not be recorded (Stripe sends it again). A deployment without Stripe\'s keys: 404.',
    tag: 'Credit purchases',
    errors: ['validation_failed', 'invalid_json', 'not_found', 'payload_too_large', 'upstream_failed'],
  },
  restoreRoute('Asset', 'assets', 'asset', {
    description: '',
    errors: [],
    notProduced: {
      409: 'Listed by the API specification; this deployment never answers it for an asset: an asset has no unique name and no parent that its restore could collide with (skills, conversations and projects do).',
    },
  }),
  restoreRoute('Skill', 'skills', 'custom skill', {
    description:
      ' Only skills with `source: custom` can be restored (others: 404); 409 `name_taken` if a live custom skill holds its name. The skill comes wrapped: `{ "skill": … }`.',
    errors: ['name_taken'],
    writeAction: 'dynamodb:PutItem',
  }),
  restoreRoute('Conversation', 'conversations', 'conversation', {
    description: ' 409 `parent_deleted` if its project is deleted: restore the project first.',
    errors: ['parent_deleted'],
    writeAction: 'dynamodb:ConditionCheckItem',
  }),
  restoreRoute('Project', 'projects', 'project', {
    description: ' 409 `slug_taken` if a live project holds its slug. An archived project comes back archived.',
    errors: ['slug_taken'],
    writeAction: 'dynamodb:PutItem',
  }),
  {
    name: 'ListSocialOperations',
    method: 'GET',
    path: '/social/operations',
    entry: 'functions/list-social-operations.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    summary: 'List the social operations this organization can run',
    description:
      "Any member. The operations of the networks enabled for the organization (plus `resolve_mention`) that the configured provider serves, in catalog order, each with its description (cost included) and the JSON Schemas (draft 2020-12) of its input and output, whether a provider serves it here (`available`) and which serves it first (`provider`). `include=unavailable` adds those no provider serves here (`available: false`, `provider: null`); `include=health` adds each one's `status`, the word `GET /social/status` gives it (one read for all); both: `include=unavailable,health`. Not a member: 403.",
    tag: 'Social operations',
    errors: ['forbidden'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // TransactWriteItems is authorized per item as the item's own action (UpdateItem,
    // ConditionCheckItem, PutItem); DeleteItem releases an Idempotency-Key after a refund.
    name: 'RunSocialOperation',
    method: 'POST',
    path: '/social/{operation}',
    entry: 'functions/run-social-operation.ts',
    audit: { none: 'a run: spending, recorded as billing events' },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'],
    secrets: ['providerKeys'],
    summary: 'Run a social operation',
    description:
      "Editors and owners. The body is the operation input, the 200 body its output (each operation is also described as its own path, with its schemas and cost). The run is charged its cost before the provider is called (`Credits-Charged`, `Credits-Remaining`) and refunded if the provider fails (500 `upstream_failed`). An operation with more than one provider fails over to the next when one fails (timeout, 5xx, 429, an unusable answer; \"not found\" and empty results are answers), still charged once; `Social-Provider` names the provider that answered. When every provider of the operation is skipped by its open breaker: 503 `operation_unavailable` with `Retry-After`, nothing charged (`GET /social/status`). With an `Idempotency-Key`, the same request within 24 hours replays the first answer without a second charge. With `Cache-Control: max-age=N`, this organization's result of the same input from the last N seconds answers at the cached cost (`Cache-Status`, `Age`); every fresh result is kept 24 hours for that. `Charge-Id` names the charge's billing event. With `Max-Credits: N`, a call that would be charged more than N answers 402 `max_credits_exceeded` and charges nothing. Daily and monthly limits (the organization's, the member's or API key's) answer 402 `spending_limit_exceeded` saying which (`data.period`); the first of `max_credits_exceeded`, the limits, `insufficient_credits` answers. Out of credits (`insufficient_credits`, `data: { balance, cost, how_to_add_credits, billing_url }`), `billing_url` is the console's Billing screen for the organization, where an owner buys credits: `<base>/console?organization_id=<id>#billing`.",
    tag: 'Social operations',
    errors: [
      'insufficient_credits',
      'spending_limit_exceeded',
      'max_credits_exceeded',
      'forbidden',
      'operation_not_enabled',
      'not_found',
      'idempotency_key_reused',
      'upstream_failed',
      'operation_unavailable',
    ],
  },
  {
    // Reads (organization, membership, the key's record) | the creation transaction: the job and
    // its active marker (PutItem), the organization's active-job counter (UpdateItem), the key's
    // record (PutItem) | the items (BatchWriteItem) | the messages (sqs:SendMessage, granted by
    // the stack) | on a failure to queue, the cancel (UpdateItem, DeleteItem, GetItem).
    name: 'CreateSocialJob',
    method: 'POST',
    path: '/social/{operation}/jobs',
    entry: 'functions/create-social-job.ts',
    audit: { none: 'a job and its runs: spending, recorded as billing events' },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem', 'dynamodb:DeleteItem'],
    sendsJobs: true,
    summary: 'Start a job: run a social operation on up to 1,000 inputs',
    description:
      "Editors and owners (and editor API keys). `inputs` holds 1 to 1,000 inputs of the operation, all validated first: one invalid input is a 400 whose issues name `inputs.<i>.<field>`, and no job. 202 with the job and `Location`; its items then run on a queue, each charged, limited and refunded exactly like `POST /social/{operation}` at the moment it runs (a `Cache-Control: max-age` sent here applies to every item). Once credits or a spending limit refuse an item (402), the items after it fail with that error, uncharged. With `max_credits` (or `Max-Credits`), the job's items are charged at most that in all: an item that would pass it fails uncharged with 402 `max_credits_exceeded` (`data: { cost, max_credits, remaining }`), a refunded item gives its credits back, and the job ends normally. At most 5 jobs queued or running per organization: 409 `job_limit_reached`. With an `Idempotency-Key`, the same request within 24 hours answers the job it created. With `webhook_url` (https, a public address), the job's end is POSTed there, signed with the `webhook_secret` shown in this answer only. See docs/jobs.md.",
    tag: 'Jobs',
    errors: ['forbidden', 'operation_not_enabled', 'not_found', 'idempotency_key_reused', 'job_limit_reached'],
  },
  {
    name: 'GetSocialJob',
    method: 'GET',
    path: '/social/jobs/{job_id}',
    entry: 'functions/get-social-job.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    summary: 'Read a job: its status and counts',
    description:
      "Members of the job's organization: its status, counts (`succeeded`, `failed`, `cancelled`, `pending`), credits `charged` and its webhook's delivery. Anyone else gets 404, as for an unknown job.",
    tag: 'Jobs',
    errors: ['not_found'],
  },
  {
    name: 'ListSocialJobItems',
    method: 'GET',
    path: '/social/jobs/{job_id}/items',
    entry: 'functions/list-social-job-items.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    secrets: ['cursorSigningKey'],
    summary: "List a job's items: inputs, outputs, errors",
    description:
      "Members of the job's organization. Its items by index, each with its input, status, output (once succeeded), error (once failed: the body a single run would have answered, `insufficient_credits` with its `data.billing_url` under the base this request reached) and charge; `status` keeps one status. Paged by `cursor`. Anyone else 404.",
    tag: 'Jobs',
    errors: ['not_found'],
  },
  {
    // The job (GetItem) | the cancel: a transaction (UpdateItem on the job and the organization's
    // counter, DeleteItem of its active marker) or, with items running, one UpdateItem | its webhook's
    // message (on the webhooks queue).
    name: 'CancelSocialJob',
    method: 'POST',
    path: '/social/jobs/{job_id}/cancel',
    entry: 'functions/cancel-social-job.ts',
    audit: { none: 'a job: spending, recorded as billing events' },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:DeleteItem'],
    sendsWebhooks: true,
    summary: 'Cancel a job',
    description:
      "Editors and owners of the job's organization. 200 the job: its items not yet started are cancelled and never charged; items already at the provider finish, and the job ends as `cancelled` when they have. Cancelling an ended job answers it unchanged. Viewers 403; anyone else 404.",
    tag: 'Jobs',
    errors: ['forbidden', 'not_found'],
  },
  {
    name: 'QuoteSocialOperation',
    method: 'POST',
    path: '/social/{operation}/quote',
    entry: 'functions/quote-social-operation.ts',
    audit: { none: 'a quote changes nothing' },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    summary: 'Quote a social operation: its cost now, and whether it would run',
    description:
      "Any member. The body is the operation input, validated as a run validates it (400 with the same issues). Answers what a run would be charged now (the operation's cost, or its cached cost when `Cache-Control: max-age` is sent and a cached result would answer), the balance, and whether the run would be refused: `refusal` is the error a run would answer (403 role or network, 402 `max_credits_exceeded` when `Max-Credits` is sent and the cost is above it, 402 a daily or monthly limit or credits, with its `data`; out of credits, `data.billing_url` as the run's; 503 `operation_unavailable` while every provider of the operation is skipped by its open breaker, with `data.retry_after`, unless a cached result would answer). Nothing is charged, the provider is not called, and the quote itself never answers 402. Not a member: 403.",
    tag: 'Social operations',
    errors: ['forbidden', 'not_found'],
  },
  {
    name: 'GetMe',
    method: 'GET',
    path: '/me',
    entry: 'functions/get-me.ts',
    // The memberships (Query), then their spend counters (BatchGetItem); an API key's counter (GetItem).
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:GetItem'],
    summary: 'Who am I: the caller and every organization they belong to',
    description:
      "Any valid token. `user_id` (the token's `sub`: for an API key, the key's id), `token_kind` (`user` or `api_key`), `api_key_id`, and every organization the caller belongs to with the role, the caller's own `spending_limit` and `daily_limit` there and what the caller spent against them (`spent` this UTC month, `spent_today` this UTC day), ordered by `organization_id` (an API key: its one organization, with the key's limits and spend); `email`, the token's verified address (null without one), and `invitations`, the pending invitations to it (newest first, at most 50; `[]` for an API key), read beside the memberships. Two round trips for a user (the memberships, then their spend counters), one for an API key.",
    tag: 'Workspaces',
    errors: [],
  },
  {
    name: 'GetOrganization',
    method: 'GET',
    path: '/organizations/{organization_id}',
    entry: 'functions/get-organization.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    summary: "Read an organization's settings",
    description:
      'Any member: its networks, monthly and daily spending limits with its spend this UTC month and day (`spent`, `spent_today`), and its creation time. Anyone else gets 404, as for an unknown organization.',
    tag: 'Workspaces',
    errors: ['not_found'],
  },
  {
    name: 'UpdateOrganization',
    method: 'PATCH',
    path: '/organizations/{organization_id}',
    entry: 'functions/update-organization.ts',
    audit: { writes: ['organization.updated'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
    summary: "Change an organization's spending limits or networks",
    description:
      'Owners. `spending_limit` (credits per UTC month), `daily_limit` (credits per UTC day), each a whole number or null for none, and/or `networks` (a non-empty subset of the seven); runs, the listing and the balance see the change on their next request, and a run whose charge has not landed yet is held to the new limits. Other members 403; anyone else 404.',
    tag: 'Workspaces',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'ListMembers',
    method: 'GET',
    path: '/organizations/{organization_id}/members',
    entry: 'functions/list-members.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    indexes: [SWEEP_INDEX],
    secrets: ['cursorSigningKey'],
    summary: "List an organization's members",
    description:
      "Owners. Each member's role, monthly and daily limits and spend this UTC month and day (`spent`, `spent_today`), and the `email` it accepted an invitation with (null for a member added by id), by user id, paged by `cursor` (`next_cursor`, `has_more`). Read from an index: a member added a moment ago may take a moment to appear. Other members 403; anyone else 404.",
    tag: 'Workspaces',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'PutMember',
    method: 'PUT',
    path: '/organizations/{organization_id}/members/{user_id}',
    entry: 'functions/put-member.ts',
    audit: { writes: ['member.added', 'member.updated'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem', 'dynamodb:Query'],
    indexes: [SWEEP_INDEX],
    summary: 'Add a member, or change its role and limits',
    description:
      "Owners. Adds the user with `role` or changes an existing member's role; `spending_limit` sets its monthly limit and `daily_limit` its daily limit (null: none), each kept when omitted. 200 with the member either way. Demoting the organization's last owner is 409 `last_owner`, exactly under concurrency (one transaction with the owner count). Other members 403; anyone else 404.",
    tag: 'Workspaces',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found', 'last_owner'],
  },
  {
    name: 'DeleteMember',
    method: 'DELETE',
    path: '/organizations/{organization_id}/members/{user_id}',
    entry: 'functions/delete-member.ts',
    audit: { writes: ['member.removed'] },
    tableActions: [
      'dynamodb:UpdateItem',
      'dynamodb:GetItem',
      'dynamodb:DeleteItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:Query',
      'dynamodb:PutItem',
    ],
    indexes: [SWEEP_INDEX],
    summary: 'Remove a member',
    description:
      "Owners. 204; the member's spend history stays. An unknown member 404; the last owner 409 `last_owner`. Other members 403; anyone else 404.",
    tag: 'Workspaces',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found', 'last_owner'],
  },
  {
    // The caller's membership, the organization (its name), the address's member and the pending
    // invitations (GetItem each, one round trip), then one transaction: the owner and the address
    // (ConditionCheckItem), the pending invitations (UpdateItem), the invitation, its inbox entry,
    // its token and the audit event (PutItem); then SES.
    name: 'CreateInvitation',
    method: 'POST',
    path: '/organizations/{organization_id}/invitations',
    entry: 'functions/create-invitation.ts',
    audit: { writes: ['invitation.created'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:PutItem'],
    sendsEmail: true,
    summary: 'Invite someone by email',
    description:
      "Owners, with a user's token. `email` (trimmed and lower-cased), `role`, the member's `spending_limit` and `daily_limit` (null by default) and `expires_in_days` (1 to 30, default 7) → 201 the invitation, and one email to the address with a link to the console (`<console>#invitation=<token>`; the token is in no answer). Then, in order: a member with that address → 409 `already_member`; a pending invitation to it → 409 `invitation_pending` (`data.invitation_id`: resend or revoke it); 50 pending already → 409 `invitation_limit_reached`; each exact under concurrency. The email service failing: 500 `upstream_failed` with `data.invitation_id` (the invitation stands: resend it). API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. See docs/invitations.md.",
    tag: 'Workspaces',
    errors: [
      'forbidden',
      'api_key_not_allowed',
      'not_found',
      'already_member',
      'invitation_pending',
      'invitation_limit_reached',
      'upstream_failed',
    ],
    notProduced: { 402: NEVER_402 },
  },
  {
    // One round trip: rate-limit counter, membership and the page's Query together.
    name: 'ListInvitations',
    method: 'GET',
    path: '/organizations/{organization_id}/invitations',
    entry: 'functions/list-invitations.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    secrets: ['cursorSigningKey'],
    summary: "List an organization's invitations",
    description:
      "Owners, with a user's token. Newest first (ties by id), of one `status` (`pending`, `accepted`, `revoked`, `expired`: a pending one past `expires_at`) or all; each listed until 90 days after it was accepted, revoked or expired. Paged by `cursor`. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404.",
    tag: 'Workspaces',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
    notProduced: { 402: NEVER_402, 409: NEVER_409_READ },
  },
  {
    // As a creation's: the caller's membership, the invitation and the pending invitations (one
    // round trip), then one transaction (the invitation UpdateItem, the audit event PutItem), then SES.
    name: 'ResendInvitation',
    method: 'POST',
    path: '/organizations/{organization_id}/invitations/{invitation_id}/resend',
    entry: 'functions/resend-invitation.ts',
    audit: { writes: ['invitation.resent'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:PutItem'],
    sendsEmail: true,
    summary: 'Resend an invitation: a new link, a new expiry, one more email',
    description:
      "Owners, with a user's token; no body. 200 the invitation, `pending` with a new token (the previous link dead at once) and `expires_at` now plus the days it was created with, and one more email. An expired invitation revives, refused like a creation by `invitation_pending` and `invitation_limit_reached`; a revoked or accepted one 409 `invitation_not_pending`. The email service failing: 500 `upstream_failed` with `data.invitation_id`. Unknown, or another organization's: 404. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404.",
    tag: 'Workspaces',
    errors: [
      'forbidden',
      'api_key_not_allowed',
      'not_found',
      'invitation_pending',
      'invitation_limit_reached',
      'invitation_not_pending',
      'upstream_failed',
    ],
    notProduced: { 402: NEVER_402 },
  },
  {
    // The caller's membership and the invitation (GetItem, one round trip), then one transaction: the owner
    // (ConditionCheckItem), the invitation and the pending ones (UpdateItem), the inbox entry (DeleteItem),
    // the audit event (PutItem).
    name: 'RevokeInvitation',
    method: 'DELETE',
    path: '/organizations/{organization_id}/invitations/{invitation_id}',
    entry: 'functions/revoke-invitation.ts',
    audit: { writes: ['invitation.revoked'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem'],
    summary: 'Revoke an invitation',
    description:
      "Owners, with a user's token. 204: a pending or expired invitation becomes `revoked`, its link dead at once; a revoked one 204 again, nothing changed; an accepted one 409 `invitation_not_pending`. Unknown, or another organization's: 404. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404.",
    tag: 'Workspaces',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found', 'invitation_not_pending'],
    notProduced: { 402: NEVER_402 },
  },
  {
    // The token's item or the inbox entry (GetItem), then the invitation and the caller's
    // membership (GetItem), then one transaction: the invitation, the owner count and the pending
    // ones (UpdateItem), the membership, the address and the two audit events (PutItem), the
    // organization and the inviter (ConditionCheckItem), the inbox entry (DeleteItem). An organization older than the owner
    // count has it counted first (Query on the members index).
    name: 'AcceptInvitation',
    method: 'POST',
    path: '/invitations/accept',
    entry: 'functions/accept-invitation.ts',
    audit: { writes: ['invitation.accepted', 'member.added'] },
    tableActions: [
      'dynamodb:UpdateItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:Query',
    ],
    indexes: [SWEEP_INDEX],
    summary: 'Accept an invitation: become a member',
    description:
      "A user's token (API keys 403 `api_key_not_allowed`), member of any organization or of none. Exactly one of `token` (from the email's link) or `invitation_id` (as `GET /me` lists it). In order: an unknown, expired, revoked or accepted invitation → 404, one body for all (by `invitation_id`, one addressed to anyone but the caller's verified address too); with a token, no verified address (the token's `email` with `email_verified` true) → 403 `email_not_verified`, another address → 403 `email_mismatch`; a member already → 409 `already_member` (the invitation stays pending). Else 200: one transaction makes the membership with exactly the invitation's role and limits, and marks it accepted; of two acceptances at once one answers 200 and the other 404, and one racing a revocation or a resend is wholly one or the other. An invitation whose inviter no longer holds a role at least the invited one is answered 404 too. See docs/invitations.md.",
    tag: 'Workspaces',
    errors: ['api_key_not_allowed', 'not_found', 'email_not_verified', 'email_mismatch', 'already_member'],
    notProduced: { 402: NEVER_402 },
  },
  {
    name: 'CreateApiKey',
    method: 'POST',
    path: '/organizations/{organization_id}/api-keys',
    entry: 'functions/create-api-key.ts',
    audit: { writes: ['api_key.created'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem'],
    signsApiKeys: true,
    summary: 'Create an API key for an agent or a script',
    description:
      "Owners, with a user's token. A key acts in this organization only, as a member with its `role` (`viewer` or `editor`, never `owner`), within its own monthly `spending_limit` and `daily_limit` (and the organization's), from the addresses of `allowed_ips` (else 403 `ip_not_allowed`), at its own `rate_limit` if set, until it expires (`expires_in_days`, default 90, at most 365) or is revoked. 201 with the key and its `token`, a bearer JWT this service signs: shown in this answer only. Use it like any token, on every route and on `/mcp`. An API key cannot manage keys, members or settings (403 `api_key_not_allowed`). Other members 403; anyone else 404.",
    tag: 'API keys',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'ListApiKeys',
    method: 'GET',
    path: '/organizations/{organization_id}/api-keys',
    entry: 'functions/list-api-keys.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    secrets: ['cursorSigningKey'],
    summary: "List an organization's API keys",
    description:
      "Owners, with a user's token. Every key by id, revoked and expired ones included, each with its limits, addresses and rate, its spend this UTC month and day (`spent`, `spent_today`) and `last_used_at` (to within 15 minutes); never a token. Paged by `cursor`. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404.",
    tag: 'API keys',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    // The caller's role and the key's spend counter, then the one conditional write (ALL_NEW).
    name: 'UpdateApiKey',
    method: 'PATCH',
    path: '/organizations/{organization_id}/api-keys/{key_id}',
    entry: 'functions/update-api-key.ts',
    audit: { writes: ['api_key.updated'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
    summary: 'Change an API key: its name, role, limits, addresses or rate',
    description:
      "Owners, with a user's token. Any of `name`, `role`, `spending_limit`, `daily_limit`, `allowed_ips`, `rate_limit` (each as `POST` takes it; null removes a limit, the address binding or the key's own rate); the others are kept, and an empty body is 400. 200 with the key (never its token). In force from the key's next request, on every instance, and for its runs in flight: a run whose charge has not landed yet is held to the new limits and role. A revoked or unknown key 404. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404.",
    tag: 'API keys',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'RevokeApiKey',
    method: 'DELETE',
    path: '/organizations/{organization_id}/api-keys/{key_id}',
    entry: 'functions/revoke-api-key.ts',
    audit: { writes: ['api_key.revoked'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
    summary: 'Revoke an API key',
    description:
      "Owners, with a user's token. 204; the key's very next request is refused (401, reason `revoked`), on every instance, and a run it started after this instant is not charged. Revoking a revoked key again is 204 too; an unknown key 404. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404.",
    tag: 'API keys',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'GetAlertSettings',
    method: 'GET',
    path: '/organizations/{organization_id}/alerts',
    entry: 'functions/get-alert-settings.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    summary: "Read an organization's alert settings",
    description:
      'Any member (an API key of the organization too). `low_balance` (null: none) and `thresholds` (percentages of a spending limit, default `[80, 100]`). Anyone else 404. See docs/alerts.md.',
    tag: 'Alerts',
    errors: ['not_found'],
  },
  {
    name: 'PutAlertSettings',
    method: 'PUT',
    path: '/organizations/{organization_id}/alerts',
    entry: 'functions/put-alert-settings.ts',
    audit: { writes: ['alerts.updated'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem'],
    summary: "Replace an organization's alert settings",
    description:
      "Owners, with a user's token. Replaces both: `low_balance` an integer ≥ 0 or null; `thresholds` 1 to 5 distinct integer percentages from 1 to 100, answered sorted (400 naming the field otherwise). 200 the settings. `credits.balance_low` is then armed afresh. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404.",
    tag: 'Alerts',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'CreateWebhook',
    method: 'POST',
    path: '/organizations/{organization_id}/webhooks',
    entry: 'functions/create-webhook.ts',
    audit: { writes: ['webhook.created'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem'],
    summary: 'Add a notification endpoint',
    description:
      "Owners, with a user's token. `url` receives the organization's events of the types in `events` (`credits.balance_low`, `spending_limit.threshold_reached`, `job.completed`, or `[\"*\"]` for all) as signed POSTs (Standard Webhooks, like a job's webhook: `https` to a public address, retried with backoff, the event id as `webhook-id`). 201 with the endpoint and its `secret`, shown in this answer only. At most 10 per organization: 409 `webhook_limit_reached`. A bad `url` or `events` 400 naming it. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. See docs/alerts.md.",
    tag: 'Alerts',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found', 'webhook_limit_reached'],
  },
  {
    name: 'ListWebhooks',
    method: 'GET',
    path: '/organizations/{organization_id}/webhooks',
    entry: 'functions/list-webhooks.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    secrets: ['cursorSigningKey'],
    summary: "List an organization's notification endpoints",
    description:
      "Owners, with a user's token. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. Every endpoint by id, never its secret. Paged by `cursor`.",
    tag: 'Alerts',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'DeleteWebhook',
    method: 'DELETE',
    path: '/organizations/{organization_id}/webhooks/{webhook_id}',
    entry: 'functions/delete-webhook.ts',
    audit: { writes: ['webhook.deleted'] },
    tableActions: [
      'dynamodb:UpdateItem',
      'dynamodb:GetItem',
      'dynamodb:DeleteItem',
      'dynamodb:Query',
      'dynamodb:BatchWriteItem',
      'dynamodb:PutItem',
    ],
    summary: 'Delete a notification endpoint',
    description:
      "Owners, with a user's token. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. 204: the endpoint and its deliveries are gone, and a delivery still queued sends nothing. Then 404.",
    tag: 'Alerts',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'TestWebhook',
    method: 'POST',
    path: '/organizations/{organization_id}/webhooks/{webhook_id}/test',
    entry: 'functions/test-webhook.ts',
    audit: { none: 'a test delivery changes no setting' },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    sendsWebhooks: true,
    summary: 'Send a test event to a notification endpoint',
    description:
      "Owners, with a user's token. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. 202 with the queued delivery of a `webhook.test` event (data: `{ webhook_id }`), whatever the endpoint's `events`: delivered like any event, and listed in its deliveries.",
    tag: 'Alerts',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'ListWebhookDeliveries',
    method: 'GET',
    path: '/organizations/{organization_id}/webhooks/{webhook_id}/deliveries',
    entry: 'functions/list-webhook-deliveries.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    secrets: ['cursorSigningKey'],
    summary: "List a notification endpoint's deliveries",
    description:
      "Owners, with a user's token. API keys 403 `api_key_not_allowed`; other members 403; anyone else 404. Newest first: each event sent to the endpoint with its `status` (`pending`, `delivered`, `failed` after the last attempt), `attempts`, `last_status_code` and `next_attempt_at`. Kept 30 days. Paged by `cursor`.",
    tag: 'Alerts',
    errors: ['forbidden', 'api_key_not_allowed', 'not_found'],
  },
  {
    name: 'GetJwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    entry: 'functions/get-jwks.ts',
    tableActions: ['dynamodb:Query'],
    public: true,
    summary: "The public keys of this service's API keys (JWKS)",
    description:
      "No token needed, not rate limited. The RS256 public keys (RFC 7517) that sign this deployment's API keys: the current one, and any earlier one whose keys may still be valid.",
    tag: 'API keys',
    errors: [],
  },
  {
    name: 'GetSocialStatus',
    method: 'GET',
    path: '/social/status',
    entry: 'functions/get-social-status.ts',
    tableActions: ['dynamodb:Query'],
    public: true,
    summary: "Every social operation's status and its providers' health",
    description:
      "No token needed; cacheable 30 s. In Statuspage's words: the page's `indicator` (`none`, `minor`, `major`, `critical`), and for each of the 52 operations in catalog order its `status` (`operational`, `degraded_performance`, `partial_outage`: a provider is out and the others serve it, `major_outage`: every provider out, or none configured here), `since`, and its providers in failover order with their status, success rate and p50 over the last hour. From the runs themselves: a breaker's change shows within 60 s. A run of an operation in `major_outage` answers 503 `operation_unavailable`, nothing charged.",
    tag: 'Social operations',
    errors: [],
  },
  {
    name: 'ListTrash',
    method: 'GET',
    path: '/organizations/{organization_id}/trash',
    entry: 'functions/list-trash.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    indexes: [SWEEP_INDEX],
    secrets: ['cursorSigningKey'],
    summary: "List the organization's trash: what the caller could restore",
    description:
      'Editors and owners. The soft-deleted resources still inside the restore window that the caller could restore (owners: all; editors: what is not private, and their own), newest deletion first, each with `restore_until`; `kind` keeps one kind. Paged by `cursor`. Read from an index: a resource deleted or restored a moment ago may take a moment to show. Viewers 403; anyone else 404.',
    tag: 'Workspaces',
    errors: ['forbidden', 'not_found'],
  },
  {
    name: 'GetServiceIndex',
    method: 'GET',
    path: '/',
    entry: 'functions/get-service-index.ts',
    tableActions: [],
    public: true,
    summary: 'Where to start: the reference page and the API description',
    description:
      "No token needed, not rate limited. `{ name, docs, openapi }`: the URLs of this deployment's reference page (`/docs`) and of this document (`/openapi.json`). A browser (`Accept` naming `text/html`) is redirected to `/docs` instead (302).",
    tag: 'API description',
    errors: [],
  },
  {
    name: 'GetOpenApiDocument',
    method: 'GET',
    path: '/openapi.json',
    entry: 'functions/get-openapi-document.ts',
    tableActions: [],
    public: true,
    assets: ['./openapi.json'],
    summary: 'This API description (OpenAPI 3.1)',
    description:
      'No token needed, not rate limited. The same document as `openapi.json` in the repository, its `servers` naming the URL it was read from.',
    tag: 'API description',
    errors: [],
  },
  {
    name: 'GetDocsPage',
    method: 'GET',
    path: '/docs',
    entry: 'functions/get-docs-page.ts',
    tableActions: [],
    public: true,
    summary: 'The API reference page',
    description: 'A human-readable reference built from `/openapi.json` in the browser; no token needed, not rate limited.',
    tag: 'API description',
    errors: [],
  },
  {
    name: 'GetDocsAsset',
    method: 'GET',
    path: '/docs/{asset}',
    entry: 'functions/get-docs-asset.ts',
    tableActions: [],
    public: true,
    assets: DOCS_ASSETS.map((asset) => asset.source),
    // Any other name answers 404.
    pathParameters: { asset: { type: 'string', enum: DOCS_ASSETS.map((asset) => asset.name), description: 'the script or style sheet' } },
    summary: 'A script or style sheet of the reference page',
    description: 'The page loads nothing from anywhere else. An unknown asset name answers 404 `not_found`.',
    tag: 'API description',
    errors: ['not_found'],
  },
  {
    name: 'GetConsolePage',
    method: 'GET',
    path: '/console',
    entry: 'functions/get-console-page.ts',
    tableActions: [],
    public: true,
    page: true,
    hostedUi: true,
    assets: CONSOLE_ASSETS.map((asset) => asset.source),
    summary: 'The web console',
    description:
      'A page for people: sign in, then see and manage the workspace through the public API with your own token (docs/console.md). Not part of the API.',
    tag: 'Console',
    errors: [],
  },
  {
    name: 'GetConsoleAsset',
    method: 'GET',
    path: '/console/{asset}',
    entry: 'functions/get-console-asset.ts',
    tableActions: [],
    public: true,
    page: true,
    assets: CONSOLE_ASSETS.map((asset) => asset.source),
    summary: "The console's script or style sheet, by the hashed name its page links, or an icon MCP clients show",
    description:
      'Cached for a year; the icons (`icon-<network>.<hash>.svg`, `icon-service.<hash>.svg`) are the SVGs MCP listings name (docs/mcp.md). Any other name answers 404 `not_found`.',
    tag: 'Console',
    errors: ['not_found'],
  },
  {
    // One function for every method: POST speaks MCP (the run path's table actions, plus the
    // listing's); any other method answers 405 (see functions/mcp.ts).
    name: 'Mcp',
    method: 'ANY',
    path: '/mcp',
    entry: 'functions/mcp.ts',
    audit: { none: 'its tools run operations and jobs: spending, recorded as billing events' },
    // … and the job tools': a job's items (BatchWriteItem), a page of them (Query), its messages.
    tableActions: [
      'dynamodb:UpdateItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:Query',
    ],
    sendsJobs: true,
    // Consent tokens are sealed with a key of their own (lib/mcp/consent-token.ts).
    secrets: ['providerKeys', 'cursorSigningKey', 'mcpConsentKey'],
    summary: 'The social operations as MCP tools (Model Context Protocol)',
    description:
      'Streamable HTTP, stateless, JSON answers: `initialize`, `tools/list` (the operations `GET /social/operations` lists, any member, then `start_job`, `get_job`, `get_budget` and `get_status`) and `tools/call` (the operations for editors and owners, charged, limited and refunded like `POST /social/{operation}`; `start_job` as `POST /social/{operation}/jobs`, `get_job` as `GET /social/jobs/{job_id}` with a page of its items, `get_budget` as the balance and limits of the caller, `get_status` as `GET /social/status`). A refused call is a tool result with `isError: true`; protocol errors are JSON-RPC errors. Only POST; GET and DELETE answer 405. A request whose `Origin` is not allowed (by the CORS configuration, or as its own origin on a loopback address) answers 403 `forbidden` before authentication (DNS rebinding). A notification or a response of the client answers 202 with no body. Serves MCP 2026-07-28 beside 2025-11-25 and earlier, chosen per request: a request whose `params._meta` names `io.modelcontextprotocol/protocolVersion` is 2026-07-28 (`server/discover`, `tools/list`, `tools/call`, and `tasks/get`, `tasks/update`, `tasks/cancel` for bulk jobs as tasks); its refusals are JSON-RPC errors at 400 (`-32602`, `-32020`, `-32021`, `-32022`) or 404 (`-32601`, a method not served). See docs/mcp.md.',
    tag: 'AI agents (MCP)',
    errors: ['forbidden', 'method_not_allowed'],
  },
  {
    name: 'OAuthProtectedResource',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    entry: 'functions/oauth-protected-resource.ts',
    tableActions: [],
    public: true,
    summary: 'Where an MCP client finds the token issuer (RFC 9728)',
    description:
      'No token needed, not rate limited. Names the MCP resource and this service itself as its authorization server (see `/.well-known/oauth-authorization-server`).',
    tag: 'AI agents (MCP)',
    errors: [],
  },
  {
    name: 'OAuthAuthorizationServer',
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    entry: 'functions/oauth-authorization-server.ts',
    tableActions: [],
    public: true,
    summary: 'This service as the OAuth authorization server of /mcp (RFC 8414)',
    description:
      'No token needed, not rate limited. The endpoints and what they support: the code flow with PKCE `S256` only, public clients (`token_endpoint_auth_method` `none`), client ID metadata documents and dynamic registration. See docs/mcp.md, "Connecting by OAuth".',
    tag: 'AI agents (MCP)',
    errors: [],
  },
  {
    // GET: the client (its registration's GetItem, or its metadata document fetched and counted
    // per address: UpdateItem). POST: the person's memberships (Query; the signing keys too, for a
    // pasted API key, which is refused), then the grant's key, its code and the ticket's nonce
    // (PutItem each) in one transaction with the membership's check. One `ANY` route for both: a
    // person's GET and POSTs share all their code and follow one another, warm.
    name: 'OAuthAuthorize',
    method: 'ANY',
    path: '/oauth/authorize',
    entry: 'functions/oauth-authorize.ts',
    audit: { writes: ['api_key.created'] },
    tableActions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem'],
    public: true,
    page: true,
    // The consent screen signs people in through the console's hosted UI (lib/oauth/hosted-sign-in.ts).
    hostedUi: true,
    assets: CONSOLE_ASSETS.map((asset) => asset.source),
    // Seals the consent ticket and the sign-in state; nothing else reads it.
    secrets: ['oauthSealingKey'],
    summary: 'The sign-in and consent pages of an OAuth authorization (for people)',
    description:
      'Not part of the API description: `GET` validates an authorization request (RFC 6749 §4.1.1 with PKCE `S256` and an RFC 8707 `resource`) and shows the sign-in page; its `POST`s are its own forms: the sign-in, then the consent, which sends the person back to the client with a one-time code. Other methods: 405 `method_not_allowed`. See docs/mcp.md, "Connecting by OAuth".',
    tag: 'AI agents (MCP)',
    errors: ['route_not_found', 'method_not_allowed'],
  },
  {
    // The code's single use (UpdateItem); the grant's refresh token on its key (UpdateItem) and
    // the token's item (PutItem); for a refresh token that is no longer current, its item
    // (GetItem); a reuse's revocation (UpdateItem); the signing key's publication (UpdateItem).
    name: 'OAuthToken',
    method: 'POST',
    path: '/oauth/token',
    entry: 'functions/oauth-token.ts',
    audit: { writes: ['api_key.revoked'] },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:GetItem'],
    public: true,
    page: true,
    signsApiKeys: true,
    summary: 'The OAuth token endpoint: a code or a refresh token for an access token',
    description:
      'Not part of the API description: RFC 6749 §4.1.3 and §6, form-encoded, public clients (no secret); `authorization_code` or `refresh_token`; errors are RFC 6749 §5.2 bodies (`{error, error_description}`). See docs/mcp.md, "Connecting by OAuth".',
    tag: 'AI agents (MCP)',
    errors: [],
  },
  {
    // The source address's counter (UpdateItem), then the client (PutItem).
    name: 'RegisterOAuthClient',
    method: 'POST',
    path: '/oauth/register',
    entry: 'functions/register-oauth-client.ts',
    audit: { none: "a client's registration belongs to no organization: nothing of one changes" },
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:PutItem'],
    public: true,
    page: true,
    summary: 'Register a public OAuth client (RFC 7591)',
    description:
      'Not part of the API description: JSON, RFC 7591 bodies; at most `OAUTH_CLIENT_RATE_LIMIT` (30) an hour per source address (429 `temporarily_unavailable` with `Retry-After`). See docs/mcp.md, "Connecting by OAuth".',
    tag: 'AI agents (MCP)',
    errors: [],
  },
  {
    // The signing keys (Query, once a minute) for an access token; an older refresh token's item
    // (GetItem); the grant's revocation (UpdateItem).
    name: 'OAuthRevoke',
    method: 'POST',
    path: '/oauth/revoke',
    entry: 'functions/oauth-revoke.ts',
    audit: {
      none: "RFC 7009: a client ends its own grant (the key's revoked_at records it); one conditional write, pinned at one round trip, cannot carry the event's key name",
    },
    tableActions: ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
    public: true,
    page: true,
    summary: 'Revoke an OAuth grant by either of its tokens (RFC 7009)',
    description:
      'Not part of the API description: form-encoded, RFC 7009; either token of a grant revokes the grant; 200 also for a token the service does not know. See docs/mcp.md, "Connecting by OAuth".',
    tag: 'AI agents (MCP)',
    errors: [],
  },
  {
    name: 'RouteNotFound',
    method: 'ANY',
    path: '$default',
    entry: 'functions/route-not-found.ts',
    audit: { none: 'answers 404 or 405: changes nothing' },
    tableActions: [],
    public: true,
    summary: 'Any other method and path',
    description:
      'Answers before authentication: 405 `method_not_allowed` with `Allow` when another route names the path with other methods, else 404 `route_not_found`.',
    tag: 'API description',
    errors: ['route_not_found', 'method_not_allowed'],
  },
];

/**
 * What the chain itself does to the table on every route that takes a token (endpoint()): the
 * rate-limit counter (UpdateItem) and, for an API key, its record and its organization (BatchGetItem),
 * the published signing keys when a new `kid` is seen (Query) and `last_used_at` (UpdateItem).
 */
export const CHAIN_TABLE_ACTIONS = ['dynamodb:UpdateItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const;

/** Every table action a route's function needs: its handler's, and the chain's when it takes a token (least-privilege IAM). */
export const tableActionsOf = (route: Route): string[] =>
  route.public ? [...route.tableActions] : [...new Set([...route.tableActions, ...CHAIN_TABLE_ACTIONS])];

/**
 * Every route's function timeout (the stack's, and the bundled local server's): API Gateway (HTTP
 * API) answers 503 after 30 s whatever the function does.
 */
export const FUNCTION_TIMEOUT_SECONDS = 25;

/** The API Gateway route key: "GET /path" or "$default". */
export const routeKey = (route: Route): string => (route.path === '$default' ? '$default' : `${route.method} ${route.path}`);

/** Route key → route name (the `route` of log lines and metrics; lib/http/observability.ts). */
export const routeNames = (table: readonly Route[] = routes): Record<string, string> =>
  Object.fromEntries(table.map((route) => [routeKey(route), route.name]));

export { routePattern };

/** A malformed escape (`%E0%A4%A`) stays as sent; validation then refuses it with a 400. */
function decodeOrKeep(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// Routes naming their method first: API Gateway prefers them to an `ANY` route of the same path.
const compiled = routes
  .filter((route) => route.path !== '$default')
  .sort((a, b) => Number(a.method === 'ANY') - Number(b.method === 'ANY'))
  .map((route) => ({ route, pattern: routePattern(route.path) }));

/**
 * The route API Gateway would pick for a request, with its path parameters (decoded), or the
 * `$default` route when none matches.
 */
export function matchRoute(method: string, pathname: string): { route: Route; pathParameters?: Record<string, string> } {
  for (const { route, pattern } of compiled) {
    const match = route.method === method || route.method === 'ANY' ? pattern.exec(pathname) : null;
    if (match) {
      const pathParameters = Object.fromEntries(Object.entries(match.groups ?? {}).map(([name, value]) => [name, decodeOrKeep(value)]));
      return { route, pathParameters };
    }
  }
  return {
    route: defined(
      routes.find((route) => route.path === '$default'),
      'the $default route',
    ),
  };
}
