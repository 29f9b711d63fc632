/**
 * The error catalog: every code the service answers with, its HTTP status and its default
 * message, and the one error class made from it. Domain and storage code throw these by code;
 * only the error mapper (lib/http/error-mapper.ts) turns them into responses, and nothing else
 * decides a status. docs/api-conventions.md lists the same table (a test keeps them equal).
 */
import type * as z from 'zod/mini';
import { creditsHelp } from './config.ts';
import { issueMessage } from './issue-messages.ts';

export const ERROR_CATALOG = {
  validation_failed: { status: 400, message: 'the request is invalid' },
  bad_request: { status: 400, message: 'the request is not valid HTTP' },
  invalid_json: { status: 400, message: 'body: must be a JSON document' },
  unsupported_api_version: { status: 400, message: 'this API version cannot be served' },
  unauthenticated: { status: 401, message: 'a bearer token is required' },
  insufficient_credits: { status: 402, message: 'the organization has too few credits for this operation' },
  spending_limit_exceeded: { status: 402, message: 'this run would exceed a daily or monthly spending limit' },
  max_credits_exceeded: { status: 402, message: 'this call would be charged more than the Max-Credits it allows' },
  consent_declined: { status: 403, message: 'the user declined this call: nothing was charged' },
  forbidden: { status: 403, message: 'your role does not allow this' },
  operation_not_enabled: { status: 403, message: 'this operation is not enabled for this organization' },
  api_key_not_allowed: {
    status: 403,
    message: 'an API key cannot manage members, organization settings or API keys; use the token of an owner',
  },
  ip_not_allowed: { status: 403, message: 'this API key may not be used from this address' },
  email_not_verified: { status: 403, message: 'your token carries no verified email address: sign in with a verified address to accept' },
  email_mismatch: { status: 403, message: 'this invitation is addressed to another email address than your verified one' },
  not_found: { status: 404, message: 'no such resource' },
  route_not_found: { status: 404, message: 'no such route' },
  method_not_allowed: { status: 405, message: 'this route does not answer this method' },
  slug_taken: { status: 409, message: 'the slug is taken by a live project' },
  name_taken: { status: 409, message: 'the name is taken by a live custom skill' },
  parent_deleted: { status: 409, message: "the conversation's project is deleted" },
  idempotency_key_reused: { status: 409, message: 'this Idempotency-Key was used with another operation or body' },
  confirmation_invalid: {
    status: 409,
    message: 'this confirmation token cannot confirm this call (expired, used, or for another call): nothing was charged',
  },
  last_owner: { status: 409, message: 'an organization keeps at least one owner: add or promote another owner first' },
  payload_too_large: { status: 413, message: 'the request or the response is over the 6 MB a Lambda invocation carries' },
  job_limit_reached: {
    status: 409,
    message: 'the organization has as many jobs queued or running as it may: wait for one to end, or cancel one',
  },
  already_member: { status: 409, message: 'this person is a member of the organization already' },
  invitation_pending: { status: 409, message: 'a pending invitation to this address exists: resend or revoke it' },
  invitation_limit_reached: {
    status: 409,
    message: 'the organization has as many pending invitations as it may: revoke one or let one expire first',
  },
  invitation_not_pending: { status: 409, message: 'this invitation was accepted or revoked: it can no longer change' },
  purchase_limit_reached: {
    status: 409,
    message: 'the organization has as many open checkouts as it may: pay or let one expire first',
  },
  payment_method_required: {
    status: 409,
    message: 'auto-recharge needs a saved card: save one first (POST …/auto-recharge/payment-method)',
  },
  webhook_limit_reached: {
    status: 409,
    message: 'the organization has as many notification endpoints as it may: delete one first',
  },
  confirmation_required: {
    status: 428,
    message: 'this call costs more than the consent threshold set by an owner: ask the user, then call again with the confirmation token',
  },
  rate_limited: { status: 429, message: 'rate limit exceeded' },
  headers_too_large: { status: 431, message: 'the request line and headers are too large' },
  internal_error: { status: 500, message: 'the request failed on the service side; retry with backoff' },
  upstream_failed: { status: 500, message: 'the social data provider failed; the charge was refunded, retry with backoff' },
  operation_unavailable: {
    status: 503,
    message: 'every provider of this operation is failing: nothing was charged, retry after Retry-After (GET /social/status)',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export interface Issue {
  path: (string | number)[];
  code: string;
  message: string;
}

export interface ErrorDetails {
  /** Validation problems (400): the body's `data.issues`. */
  issues?: Issue[];
  /** Facts a client can act on (a 402's balance and cost, …): merged into the body's `data`. */
  data?: Record<string, unknown>;
  /** When to come back (429, a key still in progress): the `Retry-After` header. */
  retryAfterSeconds?: number;
  /** Protocol headers of the HTTP layer itself (`WWW-Authenticate`); domain code never sets them. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error family. Its status comes from the catalog, never from the thrower. */
export class ServiceError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CATALOG[code].message,
    readonly details: ErrorDetails = {},
  ) {
    super(message, { cause: details.cause });
    this.name = 'ServiceError';
    this.status = ERROR_CATALOG[code].status;
  }
}

/**
 * What an error's body says but its request id: `{ code, message, data? }`, `data` holding the
 * facts and the issues. The error mapper answers it with the request id; a job's item keeps it.
 */
export function errorFields(error: ServiceError): { code: ErrorCode; message: string; data?: Record<string, unknown> } {
  const { issues, data } = error.details;
  const hasIssues = issues !== undefined && issues.length > 0;
  return {
    code: error.code,
    message: error.message,
    ...(hasIssues || data ? { data: { ...data, ...(hasIssues ? { issues } : {}) } } : {}),
  };
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

// ---------------------------------------------------------------- 400

/** An error body stays small whatever was sent: at most this many issues, each of bounded size. */
export const MAX_ISSUES = 20;
const MAX_MESSAGE_CHARS = 200;
const MAX_PATH_KEY_CHARS = 64;

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export const validationFailed = (issues: Issue[]): ServiceError => {
  const first = issues[0];
  const message = first
    ? clip(`${first.path.join('.')}: ${first.message}`, 2 * MAX_MESSAGE_CHARS)
    : ERROR_CATALOG.validation_failed.message;
  const kept = issues.slice(0, MAX_ISSUES);
  return new ServiceError('validation_failed', message, {
    issues: kept,
    ...(issues.length > kept.length ? { data: { more_issues: issues.length - kept.length } } : {}),
  });
};

export const invalidJson = (detail: string): ServiceError =>
  new ServiceError('invalid_json', `body: ${detail}`, { issues: [{ path: ['body'], code: 'invalid_json', message: detail }] });

export const unsupportedApiVersion = (message: string): ServiceError => new ServiceError('unsupported_api_version', message);

/** A request API Gateway itself would refuse (a target that is no path, a bad method): the local server's edge. */
export const badRequest = (message: string): ServiceError => new ServiceError('bad_request', message);

/** The request line and headers over API Gateway's 10 KB quota: the local server's edge. */
export const headersTooLarge = (limitBytes: number): ServiceError =>
  new ServiceError('headers_too_large', `the request line and headers exceed ${limitBytes} bytes`);
/** Lambda refuses an invocation whose event, or whose result, is over its payload limit. */
export const payloadTooLarge = (what: 'request' | 'response', limitBytes: number): ServiceError =>
  new ServiceError(
    'payload_too_large',
    what === 'request'
      ? `the request is over the ${limitBytes} bytes a Lambda invocation carries (its body and headers as an API Gateway event)`
      : `the response is over the ${limitBytes} bytes a Lambda invocation returns`,
  );

/**
 * zod issues → documented issues, with the location (`path`, `query`, `header`, `body`) in front,
 * a missing field as `required`, and zod's default wording replaced by the service's (lib/issue-messages.ts).
 */
export function issuesOf(location: string, error: z.core.$ZodError, input: unknown): Issue[] {
  return error.issues.map((issue) => {
    const path = issue.path
      .filter((key): key is string | number => typeof key !== 'symbol')
      .map((key) => (typeof key === 'string' ? clip(key, MAX_PATH_KEY_CHARS) : key));
    const value = valueAt(input, issue.path);
    const missing = issue.code === 'invalid_type' && value === undefined;
    return {
      path: [location, ...path],
      code: missing ? 'required' : issue.code,
      message: missing ? 'is required' : clip(issueMessage(issue, value), MAX_MESSAGE_CHARS),
    };
  });
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

// ---------------------------------------------------------------- 401

/**
 * 401 for a request without a bearer token: `WWW-Authenticate: Bearer` with no error code
 * (RFC 6750 §3.1). `data.reason` is the machine-readable key of docs/authentication.md.
 */
export const unauthenticated = (): ServiceError =>
  new ServiceError('unauthenticated', ERROR_CATALOG.unauthenticated.message, {
    data: { reason: 'missing' },
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

/**
 * 401 for a token that was sent and refused: why, in `WWW-Authenticate` (RFC 6750 §3) and in the
 * message alike, and `data.reason` for code. `description` must be an RFC 6750 error_description
 * (printable ASCII without `"` and `\`): lib/auth/refusals.ts holds every one.
 */
export const invalidToken = (reason: string, description: string): ServiceError =>
  new ServiceError('unauthenticated', description, {
    data: { reason },
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"` },
  });

// ---------------------------------------------------------------- 402

/** 402 with the balance and the cost (`data`), so a client can say how many credits are missing. */
/** With what this deployment says to do about it (`CREDITS_HELP`): in the message and in `data.how_to_add_credits`. */
export const insufficientCredits = (balance: number, cost: number): ServiceError => {
  const help = creditsHelp();
  return new ServiceError(
    'insufficient_credits',
    `the organization has ${plural(balance, 'credit')} and this operation costs ${plural(cost, 'credit')}; ${help}`,
    { data: { balance, cost, how_to_add_credits: help } },
  );
};

export type LimitScope = 'organization' | 'member' | 'api_key';
export type LimitPeriod = 'day' | 'month';

/**
 * What a 402 for a spending limit reports (`data`): whose limit and which (the UTC day's or
 * month's), the limit, what was spent in that period, the cost, and when it resets (ISO 8601).
 */
export interface SpendingLimitFacts {
  scope: LimitScope;
  period: LimitPeriod;
  spending_limit: number;
  spent: number;
  cost: number;
  resets_at: string;
}

export const spendingLimitExceeded = (facts: SpendingLimitFacts): ServiceError => {
  const which = facts.period === 'day' ? 'daily' : 'monthly';
  const whose = {
    organization: `the organization's ${which} spending limit`,
    member: `your ${which} spending limit in this organization`,
    api_key: `this API key's ${which} spending limit`,
  }[facts.scope];
  return new ServiceError(
    'spending_limit_exceeded',
    `this run would exceed ${whose}: ${facts.spent} of ${plural(facts.spending_limit, 'credit')} spent and this operation costs ${facts.cost}; the limit resets at ${facts.resets_at}`,
    { data: { ...facts } },
  );
};

/** 402: what this call would be charged exceeds the cap it was sent with; nothing was charged. */
export const maxCreditsExceeded = (cost: number, maxCredits: number): ServiceError =>
  new ServiceError(
    'max_credits_exceeded',
    `this call would be charged ${plural(cost, 'credit')} and allows at most ${maxCredits} (Max-Credits); nothing was charged`,
    { data: { cost, max_credits: maxCredits } },
  );

/** 402: a job's item would take the job past its `max_credits` (what its standing charges leave); the item was not charged. */
export const jobMaxCreditsExceeded = (cost: number, maxCredits: number, remaining: number): ServiceError =>
  new ServiceError(
    'max_credits_exceeded',
    `this item would be charged ${plural(cost, 'credit')} and its job has ${remaining} of its max_credits ${maxCredits} left; nothing was charged`,
    { data: { cost, max_credits: maxCredits, remaining } },
  );

/** Why a confirmation token confirms nothing (MCP consent, lib/mcp/consent.ts). */
export type ConfirmationProblem = 'expired' | 'used' | 'mismatch' | 'malformed';

const CONFIRMATION_PROBLEMS: Record<ConfirmationProblem, string> = {
  expired: 'it expired (a token is valid 10 minutes)',
  used: 'it was used already (a token confirms one call)',
  mismatch: 'it was issued for another tool, other arguments, another caller or another organization',
  malformed: 'it is not a token this service issued',
};

/** A `_confirm_token` that confirms nothing: call again without it for a new quote and token. */
export const confirmationInvalid = (reason: ConfirmationProblem): ServiceError =>
  new ServiceError(
    'confirmation_invalid',
    `this confirmation token cannot confirm this call: ${CONFIRMATION_PROBLEMS[reason]}; nothing was charged. Call again without "_confirm_token" to get a new quote and token, and ask the user again`,
    { data: { reason } },
  );

// ---------------------------------------------------------------- 403

/** The user declined an MCP call's consent request. */
export const consentDeclined = (): ServiceError => new ServiceError('consent_declined');

export const forbidden = (message: string): ServiceError => new ServiceError('forbidden', message);
export const notAMember = (): ServiceError => forbidden('you are not a member of this organization');
export const mayNotRun = (): ServiceError => forbidden('only editors and owners can run social operations');
export const mayNotRestore = (): ServiceError => forbidden('viewers cannot restore resources; an editor or owner can');
/**
 * A browser page from an origin this deployment does not allow, calling /mcp: the MCP transport
 * requires 403 against DNS rebinding (docs/mcp.md#origin).
 */
export const originNotAllowed = (origin: string): ServiceError =>
  forbidden(
    `the origin ${echo(origin)} is not allowed to call this server; only the origins its CORS configuration names are, and its own on a loopback address`,
  );
export const onlyOwnersListEvents = (): ServiceError => forbidden('only owners of the organization can list its billing events');
export const onlyOwnersReadAuditLog = (): ServiceError => forbidden('only owners of the organization can read its audit log');
/**
 * A change only owners may make (the organization, its members, keys, alert settings and
 * notification endpoints) asked by another member, or by an owner demoted before it was written.
 */
export const onlyOwnersChange = (): ServiceError => forbidden('only owners of the organization can change it, its members and its keys');
export const apiKeyNotAllowed = (): ServiceError => new ServiceError('api_key_not_allowed');

/** An API key bound to addresses (`allowed_ips`) used from another: the address is the one the gateway saw. */
export const ipNotAllowed = (address: string): ServiceError =>
  new ServiceError(
    'ip_not_allowed',
    `this API key may not be used from ${echo(address)}: it is bound to other addresses (allowed_ips); an owner can change them`,
    { data: { ip: address } },
  );

/** The organization has the operation's network turned off (an operator can turn it on). */
export const operationNotEnabled = (operation: string, network: string): ServiceError =>
  new ServiceError(
    'operation_not_enabled',
    `operation ${operation} is not enabled for this organization: its ${network} network is turned off`,
  );

/**
 * The deployment's social data provider has no such operation: no organization can run it here.
 * Names the provider and where a client sees this before calling (docs/social-operations.md).
 */
export const operationNotOffered = (operation: string, provider: string): ServiceError =>
  new ServiceError(
    'operation_not_enabled',
    `operation ${operation} is not served by ${provider}, this deployment's social data provider; GET /social/operations?include=unavailable marks each operation's availability (available: false)`,
  );

/** This deployment has no payments provider configured (docs/funding.md, "Deployed"). */
export const paymentsNotEnabled = (): ServiceError =>
  new ServiceError('operation_not_enabled', 'buying credits is not enabled on this deployment: it has no payments provider configured');

/** Accepting an invitation by its token takes a verified address (the token's `email` with `email_verified` true). */
export const emailNotVerified = (): ServiceError => new ServiceError('email_not_verified');

/** The invitation is addressed to another address than the caller's verified one (which address is not said). */
export const emailMismatch = (): ServiceError => new ServiceError('email_mismatch');

// ---------------------------------------------------------------- 404

/** Same body whatever the reason, so an id cannot be probed. */
export const notFound = (): ServiceError => new ServiceError('not_found');

/** A member who could read the resource asks to restore it after its window: say so (still 404). */
export const restoreWindowPassed = (until: string): ServiceError =>
  new ServiceError('not_found', `the restore window of this resource has passed: it could be restored until ${until}`);

/** The upstream says the account or item does not exist (the run was refunded). */
export const notFoundUpstream = (message: string): ServiceError => new ServiceError('not_found', message);

/** Long enough for any operation name; a longer one is cut in the message (it is the caller's own input). */
const ECHO_LIMIT = 64;
const echo = (value: string) => (value.length > ECHO_LIMIT ? `${value.slice(0, ECHO_LIMIT)}…` : value);

/** Operation names are public (the catalog), so unlike an id, an unknown one is named and a near one suggested. */
export const unknownOperation = (name: string, suggestion: string | undefined): ServiceError =>
  new ServiceError(
    'not_found',
    `no operation is named "${echo(name)}"${suggestion ? `; did you mean ${suggestion}?` : ';'} GET /social/operations lists the operations this organization can run`,
  );

export const routeNotFound = (method: string, path: string): ServiceError =>
  new ServiceError('route_not_found', `no route for ${method} ${path}`);

// ---------------------------------------------------------------- 405

/** A route that exists for other methods (`/mcp` answers POST only); `Allow` lists them (RFC 9110 §15.5.6). */
export const methodNotAllowed = (method: string, path: string, allowed: readonly string[]): ServiceError =>
  new ServiceError('method_not_allowed', `${path} answers ${allowed.join(', ')}, not ${method}`, {
    headers: { Allow: allowed.join(', ') },
  });

// ---------------------------------------------------------------- 409

export const conflict = (code: 'slug_taken' | 'name_taken' | 'parent_deleted', message: string): ServiceError =>
  new ServiceError(code, message);

export const idempotencyKeyReused = (): ServiceError => new ServiceError('idempotency_key_reused');

/** Removing or demoting this member would leave the organization without an owner. */
export const lastOwner = (userId: string): ServiceError =>
  new ServiceError('last_owner', `${userId} is the organization's last owner: add or promote another owner first`);

/** The organization has `max` open checkouts: one must be paid or expire first. */
export const purchaseLimitReached = (max: number): ServiceError =>
  new ServiceError(
    'purchase_limit_reached',
    `the organization has ${plural(max, 'open checkout')}, the most it may: pay or let one expire first`,
    {
      data: { max_open: max },
    },
  );

/** Auto-recharge cannot be enabled without a saved card. */
export const paymentMethodRequired = (): ServiceError =>
  new ServiceError(
    'payment_method_required',
    'auto-recharge needs a saved card: save one with POST /organizations/{organization_id}/auto-recharge/payment-method first',
  );

/** The address is a member's (it accepted an invitation to it), or the accepting caller is a member already. */
export const alreadyMember = (message: string = ERROR_CATALOG.already_member.message): ServiceError =>
  new ServiceError('already_member', message);

/** A pending invitation to the address exists: it is never replaced. */
export const invitationPending = (invitationId: string): ServiceError =>
  new ServiceError('invitation_pending', `a pending invitation to this address exists (${invitationId}): resend or revoke it`, {
    data: { invitation_id: invitationId },
  });

/** The organization has `max` pending invitations (expired ones do not count). */
export const invitationLimitReached = (max: number): ServiceError =>
  new ServiceError(
    'invitation_limit_reached',
    `the organization has ${plural(max, 'pending invitation')}, the most it may: revoke one or let one expire first`,
    { data: { max_pending: max } },
  );

/** A resend or revocation of an invitation accepted (or, for a resend, revoked). */
export const invitationNotPending = (status: 'accepted' | 'revoked'): ServiceError =>
  new ServiceError('invitation_not_pending', `this invitation was ${status}: it can no longer be resent or revoked`, { data: { status } });

/** The organization has `max` jobs queued or running: one must end (or be cancelled) first. */
export const jobLimitReached = (max: number): ServiceError =>
  new ServiceError(
    'job_limit_reached',
    `the organization has ${plural(max, 'job')} queued or running, the most it may: wait for one to end, or cancel one`,
    { data: { max_active_jobs: max } },
  );

export const webhookLimitReached = (max: number): ServiceError =>
  new ServiceError(
    'webhook_limit_reached',
    `the organization has ${plural(max, 'notification endpoint')}, the most it may: delete one first`,
    {
      data: { max_webhooks: max },
    },
  );

export const idempotencyKeyInProgress = (): ServiceError =>
  new ServiceError('idempotency_key_reused', 'a request with this Idempotency-Key is still in progress; retry shortly', {
    retryAfterSeconds: 1,
  });

export const idempotencyResponseTooLarge = (): ServiceError =>
  new ServiceError('idempotency_key_reused', 'the response to this Idempotency-Key was too large to store for replay; use a new key');

// ---------------------------------------------------------------- 429

export const rateLimited = (retryAfterSeconds: number): ServiceError =>
  new ServiceError('rate_limited', `rate limit exceeded, retry in ${retryAfterSeconds} s`, { retryAfterSeconds });

// ---------------------------------------------------------------- 500

export const internalError = (message: string = ERROR_CATALOG.internal_error.message): ServiceError =>
  new ServiceError('internal_error', message);

export const upstreamFailed = (): ServiceError => new ServiceError('upstream_failed');

/**
 * Every provider of the operation is skipped by its open breaker (docs/social-operations.md,
 * "Failover"): nothing charged; `Retry-After` is when the first breaker lets a probe through.
 */
export const operationUnavailable = (operation: string, retryAfterSeconds: number, providers: readonly string[]): ServiceError =>
  new ServiceError(
    'operation_unavailable',
    `every provider of ${operation} (${providers.join(', ')}) is failing: nothing was charged; retry in ${retryAfterSeconds} s, or see GET /social/status`,
    { retryAfterSeconds, data: { operation, providers: [...providers], retry_after: retryAfterSeconds } },
  );

/** The invitation was written, but the email service did not take its email: resend it. */
export const invitationEmailNotSent = (invitationId: string): ServiceError =>
  new ServiceError('upstream_failed', `the invitation ${invitationId} was saved but its email could not be sent; resend it`, {
    data: { invitation_id: invitationId },
  });

/** The payments provider (Stripe) failed while a checkout was being made: nothing was created. */
export const paymentsUpstreamFailed = (): ServiceError =>
  new ServiceError('upstream_failed', 'the payments provider failed; no purchase was made, retry with backoff');

/** A verified payments event could not be recorded (Stripe or the table failed): a 5xx, so that Stripe sends it again. */
export const paymentsEventNotRecorded = (): ServiceError =>
  new ServiceError('upstream_failed', 'the payments provider failed while the event was handled; it was not recorded, send it again');

/** A webhook body larger than any event Stripe sends. */
export const webhookBodyTooLarge = (limitBytes: number): ServiceError =>
  new ServiceError('payload_too_large', `the body is over the ${limitBytes} bytes a payments event may be`);

/** The refund write failed too (logged as REFUND FAILED for an operator): say so rather than claim it. */
export const upstreamFailedRefundPending = (): ServiceError =>
  new ServiceError(
    'upstream_failed',
    'the social data provider failed; the refund of its charge is delayed, do not retry before your balance is back',
  );

/**
 * The charge's write failed without saying whether it was made, and undoing it failed too: it may
 * stand until the sweeper refunds it (docs/charges.md), so a retry now could pay twice.
 */
export const chargeUnconfirmed = (): ServiceError =>
  new ServiceError(
    'internal_error',
    'the request failed on the service side and its charge could not be confirmed; if it was made it is refunded automatically, do not retry before your balance is back',
  );

/**
 * The provider answered but the run could not be recorded as delivered (the settle write failed,
 * or the run outlived its deadline): the result is not delivered, and its charge was given back.
 */
export const resultNotRecorded = (): ServiceError =>
  new ServiceError(
    'internal_error',
    'the request failed on the service side after its charge; the charge was refunded, retry with backoff',
  );

/** As resultNotRecorded, and the refund write failed too: the sweeper refunds the run once due. */
export const resultNotRecordedRefundPending = (): ServiceError =>
  new ServiceError(
    'internal_error',
    'the request failed on the service side after its charge; the refund of its charge is delayed, do not retry before your balance is back',
  );

/**
 * The run's settle found its run no longer held by it: the run outlived its deadline, and the
 * sweeper refunded its charge or a retry with the same Idempotency-Key took it over.
 */
export const runOutlivedDeadline = (): ServiceError =>
  new ServiceError(
    'internal_error',
    'the run outlived its deadline; its charge was refunded or went to a retry with the same Idempotency-Key, retry with backoff',
  );

// ---------------------------------------------------------------- admin paths (CLI, seed)

/**
 * Not API answers: refusals of the operator tools (admin CLI, seed), which print the message and
 * exit 1. A refusal means nothing was written; the message says why and what to do instead.
 */
export class Refusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
export class AlreadyExistsError extends Refusal {}
export class NoSuchOrganizationError extends Refusal {}
export class NoSuchMemberError extends Refusal {}
export class NoSuchApiKeyError extends Refusal {}
/** The change would leave the organization without an owner. */
export class LastOwnerError extends Refusal {}
export class NoSuchResourceError extends Refusal {}
/** An unknown notification endpoint, or a delivery it does not have. */
export class NoSuchWebhookError extends Refusal {}
/** A delivery whose attempts are still under way cannot be resent. */
export class DeliveryPendingError extends Refusal {}
/** An unknown invitation (or another organization's). */
export class NoSuchInvitationError extends Refusal {}
/** What the invitation routes answer with a 409, refused to an operator: the message starts with its code. */
export class InvitationRefusedError extends Refusal {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/** A membership exists already; `member` is the stored one (role, limit), unchanged. */
export class AlreadyMemberError extends Refusal {
  constructor(
    message: string,
    readonly member: { role: string; spending_limit: number | null },
  ) {
    super(message);
  }
}

/** A deduction larger than the balance: balances never go below zero. */
export class InsufficientBalanceError extends Refusal {
  constructor(
    message: string,
    readonly balance: number,
  ) {
    super(message);
  }
}
