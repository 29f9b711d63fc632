/**
 * The error catalog is the one place a code gets its status. It must hold every code DESIGN.md
 * lists under the status DESIGN.md gives it, and docs/api-conventions.md must show it as it is.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as errors from '../lib/errors.ts';
import { ERROR_CATALOG, ServiceError } from '../lib/errors.ts';
import { errorBody, errorHeaders } from '../lib/http/error-mapper.ts';
import { errorCatalogTable } from '../scripts/error-catalog-table.ts';

/** DESIGN.md, "Error body": the codes, by status (copied here: CI has only this repository). */
const DESIGN_CODES: Record<number, string[]> = {
  400: ['validation_failed', 'invalid_json', 'unsupported_api_version'],
  401: ['unauthenticated'],
  402: ['insufficient_credits', 'spending_limit_exceeded', 'max_credits_exceeded'],
  403: ['forbidden', 'operation_not_enabled', 'api_key_not_allowed', 'ip_not_allowed'],
  404: ['not_found', 'route_not_found'],
  409: ['slug_taken', 'name_taken', 'parent_deleted', 'idempotency_key_reused', 'last_owner', 'job_limit_reached', 'webhook_limit_reached'],
  429: ['rate_limited'],
  500: ['internal_error', 'upstream_failed'],
};

/** DESIGN.md, part 4 ("Beyond the spec, part 4"): the codes of its features built so far, by status. */
const PART_4_CODES: Record<number, string[]> = {
  // "MCP clients of 2026", consent: refusals of MCP tool calls (tool results, never HTTP answers).
  403: ['email_not_verified', 'email_mismatch', 'consent_declined'],
  428: ['confirmation_required'],
  409: [
    'confirmation_invalid',
    'already_member',
    'invitation_pending',
    'invitation_limit_reached',
    'invitation_not_pending',
    'purchase_limit_reached',
    'payment_method_required',
  ],
  // "Every operation, a status, and failover": every provider of the operation skipped by its open breaker.
  503: ['operation_unavailable'],
};

/** Codes beyond DESIGN.md, each for an answer DESIGN.md does not cover (see docs/api-conventions.md). */
const ADDED_CODES: Record<string, number> = {
  // The local server's edges, where API Gateway answers on its own when deployed.
  bad_request: 400,
  headers_too_large: 431,
  // Lambda's 6 MB invocation payload, answered by the local server in this shape (DESIGN.md lists
  // it with the features of part 2).
  payload_too_large: 413,
  // A known path asked with a method it does not answer (GET or DELETE /mcp).
  method_not_allowed: 405,
};

describe('the error catalog', () => {
  it.each(
    [...Object.entries(DESIGN_CODES), ...Object.entries(PART_4_CODES)].flatMap(([status, codes]) =>
      codes.map((code) => [code, Number(status)] as const),
    ),
  )('holds %s with status %i', (code, status) => {
    expect(ERROR_CATALOG[code as errors.ErrorCode]?.status).toBe(status);
  });

  it('holds no code but those DESIGN.md lists and the documented additions', () => {
    expect(Object.keys(ERROR_CATALOG).sort()).toEqual(
      [...Object.values(DESIGN_CODES).flat(), ...Object.values(PART_4_CODES).flat(), ...Object.keys(ADDED_CODES)].sort(),
    );
    for (const [code, status] of Object.entries(ADDED_CODES)) expect(ERROR_CATALOG[code as errors.ErrorCode].status).toBe(status);
  });

  it('is the table docs/api-conventions.md shows', () => {
    const docs = readFileSync(resolve(import.meta.dirname, '../docs/api-conventions.md'), 'utf8');
    const table = /<!-- error-catalog:start -->\n([\s\S]*?)\n<!-- error-catalog:end -->/.exec(docs)?.[1];
    expect(table, 'regenerate with: npm run --silent docs:errors').toBe(errorCatalogTable());
  });

  it('gives every error made by a factory the status of its code', () => {
    const made: ServiceError[] = [
      errors.validationFailed([{ path: ['query', 'days'], code: 'too_big', message: 'must be at most 30' }]),
      errors.invalidJson('must be a JSON document'),
      errors.unsupportedApiVersion('no'),
      errors.badRequest('no'),
      errors.headersTooLarge(10_240),
      errors.payloadTooLarge('request', 6_291_456),
      errors.payloadTooLarge('response', 6_291_456),
      errors.methodNotAllowed('GET', '/mcp', ['POST']),
      errors.unauthenticated(),
      errors.invalidToken('expired', 'the token has expired'),
      errors.insufficientCredits(1, 2),
      errors.spendingLimitExceeded({
        scope: 'member',
        period: 'month',
        spending_limit: 5,
        spent: 5,
        cost: 1,
        resets_at: '2026-12-01T00:00:00.000Z',
      }),
      errors.maxCreditsExceeded(5, 4),
      errors.ipNotAllowed('203.0.113.9'),
      errors.notAMember(),
      errors.mayNotRun(),
      errors.mayNotRestore(),
      errors.onlyOwnersListEvents(),
      errors.operationNotEnabled('x_search', 'x'),
      errors.operationNotOffered('x_search', 'ScrapeCreators'),
      errors.unknownOperation('instagram_profil', 'instagram_profile'),
      errors.notFound(),
      errors.notFoundUpstream('no such account'),
      errors.routeNotFound('GET', '/nope'),
      errors.conflict('slug_taken', 'taken'),
      errors.idempotencyKeyReused(),
      errors.idempotencyKeyInProgress(),
      errors.idempotencyResponseTooLarge(),
      errors.rateLimited(3),
      errors.internalError(),
      errors.upstreamFailed(),
      errors.upstreamFailedRefundPending(),
      errors.emailNotVerified(),
      errors.emailMismatch(),
      errors.alreadyMember(),
      errors.invitationPending('inv_0123456789abcdef0123456789abcdef'),
      errors.invitationLimitReached(50),
      errors.invitationNotPending('accepted'),
      errors.invitationEmailNotSent('inv_0123456789abcdef0123456789abcdef'),
    ];
    for (const error of made) expect(error.status).toBe(ERROR_CATALOG[error.code].status);
  });
});

describe('error bodies and headers (pure)', () => {
  it('lists issues under data, with the first one as the message', () => {
    const error = errors.validationFailed([
      { path: ['query', 'days'], code: 'too_big', message: 'must be an integer from 1 to 30' },
      { path: ['query', 'limit'], code: 'too_big', message: 'must be an integer from 1 to 100' },
    ]);
    expect(errorBody(error, 'req-1')).toEqual({
      code: 'validation_failed',
      message: 'query.days: must be an integer from 1 to 30',
      data: { issues: error.details.issues },
      request_id: 'req-1',
    });
  });

  it('merges facts and issues into data, and leaves data out when there is neither', () => {
    const withFacts = new ServiceError('insufficient_credits', 'too few', { data: { balance: 0, cost: 1 } });
    expect(errorBody(withFacts, 'r')).toEqual({
      code: 'insufficient_credits',
      message: 'too few',
      data: { balance: 0, cost: 1 },
      request_id: 'r',
    });
    expect(errorBody(errors.notFound(), 'r')).toEqual({ code: 'not_found', message: 'no such resource', request_id: 'r' });
  });

  it('turns retryAfterSeconds into Retry-After and keeps protocol headers', () => {
    expect(errorHeaders(errors.rateLimited(7))).toEqual({ 'Retry-After': '7' });
    expect(errorHeaders(errors.idempotencyKeyInProgress())).toEqual({ 'Retry-After': '1' });
    expect(errorHeaders(errors.unauthenticated())).toEqual({ 'WWW-Authenticate': 'Bearer' });
    expect(errorHeaders(errors.notFound())).toEqual({});
  });
});
