/**
 * Every header the service reads or writes, as the API description states it once
 * (components.headers / components.parameters). Which response carries which is decided in
 * document.ts from the route (chain, codes) and the function module (`responseHeaders`).
 */
import { MAX_VERSION_LENGTH } from '../http/api-version.ts';
import { API_VERSION } from '../http/request-context.ts';

export interface HeaderDescription {
  description: string;
  /** Present on every response that lists it. */
  required?: boolean;
  schema: Record<string, unknown>;
  example?: string | number;
}

const seconds = { type: 'integer', minimum: 1 };
const count = { type: 'integer', minimum: 0 };

export const RESPONSE_HEADERS = {
  'x-request-id': {
    description:
      "This request's id (API Gateway's, or a UUID): the error body's `request_id`, and the key to the service's logs. Quote it when you report a problem.",
    required: true,
    schema: { type: 'string' },
    example: 'Lq3Z1gHqoAMEbXw=',
  },
  'Endless-Api-Version': {
    description: 'The major API version that answered. Every response carries it.',
    required: true,
    schema: { type: 'string', const: API_VERSION },
  },
  'RateLimit-Limit': {
    description: 'Requests allowed per caller in the current window.',
    schema: count,
    example: 300,
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: count,
    example: 299,
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window ends.',
    schema: seconds,
    example: 42,
  },
  'Retry-After': {
    description:
      'Whole seconds to wait before retrying: always on a 429, and on a 409 for an `Idempotency-Key` whose first request is still running.',
    schema: seconds,
    example: 12,
  },
  'WWW-Authenticate': {
    description: '`Bearer` when no token was sent; `Bearer error="invalid_token"` when the token was refused.',
    required: true,
    schema: { type: 'string' },
    example: 'Bearer error="invalid_token"',
  },
  'Credits-Charged': {
    description:
      "Credits this request charged: the operation's cost (`x-credit-cost`), its cached cost (`x-cached-credit-cost`) for a result answered from the cache, or 0 for a replay.",
    schema: count,
    example: 1,
  },
  'Credits-Remaining': {
    description: "The organization's balance right after the run; absent if it could not be read (the output is never withheld for it).",
    schema: count,
    example: 499,
  },
  'Idempotent-Replayed': {
    description: '`true` when this answer replays the first response to the same `Idempotency-Key`.',
    schema: { type: 'string', const: 'true' },
  },
  'Charge-Id': {
    description:
      "The id of this request's `social_operation.charged` billing event (its `metadata.charge_id`, and the charge its refund names); absent when nothing was charged.",
    schema: { type: 'string', pattern: '^evt_' },
    example: 'evt_6f1d0c1e-3b5a-4d7e-9a43-0a8f5e2c9b71',
  },
  'Cache-Status': {
    description:
      "RFC 9211: `workspace; hit` when the answer is this organization's cached result of the same input (sent `Cache-Control: max-age`), otherwise `workspace; fwd=<bypass|miss|request>` (no `max-age` sent; nothing usable stored; stored but older than `max-age`) followed by `; stored`, or `; detail=too-large` / `; detail=store-failed` when the fresh result was not stored. Absent on a replay.",
    schema: { type: 'string' },
    example: 'workspace; fwd=miss; stored',
  },
  'Social-Provider': {
    description:
      "The provider that produced the output (`ScrapeCreators`, `TikHub`, `Facebook Scraper3`, `sample`): the first of the operation's providers that answered, after failing over from those that failed; on a cached result, the provider that produced it. Absent on a replay and on results cached before providers were named.",
    schema: { type: 'string' },
    example: 'TikHub',
  },
  'Sample-Data': {
    description:
      '`true` when the output is generated sample data: this deployment runs the `sample` provider (locally, or a test stack). Never sent with real data.',
    schema: { type: 'string', const: 'true' },
  },
  Allow: {
    description: 'On a 405: the methods this path answers (RFC 9110), comma-separated.',
    required: true,
    schema: { type: 'string' },
    example: 'GET, POST',
  },
  Age: {
    description: "On a cache hit: the cached result's age in seconds (RFC 9111).",
    schema: count,
    example: 42,
  },
  Location: {
    description:
      "Where the created resource is read (a job's `/social/jobs/{job_id}`), or where a redirect leads (`GET /` sends a browser to `/docs`).",
    schema: { type: 'string' },
    example: '/social/jobs/job_0123456789abcdef0123456789abcdef',
  },
  Link: {
    description:
      'On a CSV page of a paged listing: `<url of the next page>; rel="next"` while more remain (RFC 8288), the URL carrying the `cursor` a JSON answer gives as `next_cursor`.',
    schema: { type: 'string' },
    example: '</organizations/org_demo/billing/events?days=30&limit=25&cursor=v1.abc.def>; rel="next"',
  },
  'Cache-Control': {
    description:
      "How long the answer may be kept (RFC 9111): `no-store` when it carries a secret (a new API key's token), `public, max-age=<seconds>` for a public document.",
    schema: { type: 'string' },
    example: 'no-store',
  },
} satisfies Record<string, HeaderDescription>;

/** Request headers every authenticated route reads (Authorization is the security scheme). */
export const REQUEST_HEADERS = {
  'Endless-Api-Version': {
    description: `The major API version to serve, optionally with a minor (\`1\`, \`1.4\`); absent means the current one (${API_VERSION}). Any other major answers 400 \`unsupported_api_version\`.`,
    schema: { type: 'string', maxLength: MAX_VERSION_LENGTH, pattern: '^\\s*\\d+(\\.\\d+)?\\s*$' },
    example: API_VERSION,
  },
  'Service-Api-Version': {
    description: 'Alias of `Endless-Api-Version`; if both are sent they must name the same version.',
    schema: { type: 'string', maxLength: MAX_VERSION_LENGTH, pattern: '^\\s*\\d+(\\.\\d+)?\\s*$' },
  },
} satisfies Record<string, HeaderDescription>;
