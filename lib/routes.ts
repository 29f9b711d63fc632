/**
 * The route table: the one list of endpoints. The CDK stack builds one function per entry,
 * the local server routes by it, the OpenAPI document describes it, and the tests check all
 * three against it.
 * `tableActions` is exactly what the handler does to the table (least-privilege IAM).
 */
import type { ErrorCode } from './errors.ts';
import { DOCS_ASSETS } from './openapi/assets.ts';

export interface Route {
  /** Logical name; also the CDK construct id. */
  name: string;
  method: 'GET' | 'POST' | 'ANY';
  /** API Gateway path template; `$default` catches every request no other route matches. */
  path: string;
  /** Module under functions/ exporting `handler`. */
  entry: string;
  tableActions: readonly string[];
  /** Indexes the handler queries (`dynamodb:Query` is then allowed on those index ARNs only). */
  indexes?: readonly string[];
  /** Secrets the handler reads (IAM read on that secret, and its ARN in the environment). */
  secrets?: readonly RouteSecret[];
  /**
   * Files the handler reads at run time: package paths (`swagger-ui-dist/swagger-ui.css`) or
   * files of the repository (`./openapi.json`). The stack copies each beside the function's
   * bundle, where lib/openapi/read-asset.ts finds them.
   */
  assets?: readonly string[];
  /** The OpenAPI document's summary of the route (lib/openapi/document.ts). */
  summary: string;
  /** What a client should know beyond the summary: who may call, what it answers. Markdown. */
  description: string;
  /** The group the route is listed under in the document and on the docs page. */
  tag: string;
  /**
   * The error codes the handler itself can answer. The chain's own are added from what the
   * handler was built with: endpoint() adds 401, 400 `unsupported_api_version`, 429 and
   * 400 `validation_failed`/`invalid_json`; every route can answer 500 `internal_error`.
   */
  errors: readonly ErrorCode[];
}

/** `providerApiKey`: the social provider's API key (env SCRAPECREATORS_API_KEY_SECRET_ARN). */
export type RouteSecret = 'providerApiKey';

const RESTORE =
  'Brings back a soft-deleted resource within the restore window (30 days by default): `deleted_at` and `deleted_by_id` become null, `updated_at` now, nothing else changes. A resource that is not deleted answers 200 unchanged, so retries are safe. Owners restore anything of the organization, editors what they created and what is not private, viewers nothing (403); whoever cannot read the resource gets 404.';

export const routes: readonly Route[] = [
  {
    name: 'ListBillingEvents',
    method: 'GET',
    path: '/organizations/{organization_id}/billing/events',
    entry: 'functions/list-billing-events.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    summary: "List the organization's billing events",
    description:
      'Owners only. Events created within the last `days` days, newest first (ties by id), at most `limit`. A caller who is not a member gets 404, as for an organization that does not exist.',
    tag: 'Billing',
    errors: ['forbidden', 'not_found'],
  },
  // Restore: rate-limit counter (UpdateItem), resource (GetItem) and the caller's memberships
  // (Query), then one write. A transaction needs the action of each of its items: PutItem for
  // a slug/name claim, ConditionCheckItem for a conversation's project.
  {
    name: 'RestoreAsset',
    method: 'POST',
    path: '/assets/{asset_id}/restore',
    entry: 'functions/restore-asset.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
    summary: 'Restore a deleted asset',
    description: RESTORE,
    tag: 'Restore',
    errors: ['forbidden', 'not_found'],
  },
  {
    name: 'RestoreSkill',
    method: 'POST',
    path: '/skills/{skill_id}/restore',
    entry: 'functions/restore-skill.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
    summary: 'Restore a deleted custom skill',
    description: `${RESTORE} Only skills with \`source: custom\` can be restored (others: 404); 409 \`name_taken\` if a live custom skill holds its name. The skill comes wrapped: \`{ "skill": … }\`.`,
    tag: 'Restore',
    errors: ['forbidden', 'not_found', 'name_taken'],
  },
  {
    name: 'RestoreConversation',
    method: 'POST',
    path: '/conversations/{conversation_id}/restore',
    entry: 'functions/restore-conversation.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
    summary: 'Restore a deleted conversation',
    description: `${RESTORE} 409 \`parent_deleted\` if its project is deleted: restore the project first.`,
    tag: 'Restore',
    errors: ['forbidden', 'not_found', 'parent_deleted'],
  },
  {
    name: 'RestoreProject',
    method: 'POST',
    path: '/projects/{project_id}/restore',
    entry: 'functions/restore-project.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
    summary: 'Restore a deleted project',
    description: `${RESTORE} 409 \`slug_taken\` if a live project holds its slug. An archived project comes back archived.`,
    tag: 'Restore',
    errors: ['forbidden', 'not_found', 'slug_taken'],
  },
  {
    name: 'ListSocialOperations',
    method: 'GET',
    path: '/social/operations',
    entry: 'functions/list-social-operations.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
    summary: 'List the social operations this organization can run',
    description:
      'Any member. The operations of the networks enabled for the organization (plus `resolve_mention`) that the configured provider serves, in catalog order, each with its description (cost included) and the JSON Schemas (draft 2020-12) of its input and output. Not a member: 403.',
    tag: 'Social operations',
    errors: ['forbidden'],
  },
  {
    // TransactWriteItems is authorized per item as the item's own action (UpdateItem,
    // ConditionCheckItem, PutItem); DeleteItem releases an Idempotency-Key after a refund.
    name: 'RunSocialOperation',
    method: 'POST',
    path: '/social/{operation}',
    entry: 'functions/run-social-operation.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'],
    secrets: ['providerApiKey'],
    summary: 'Run a social operation',
    description:
      'Editors and owners. The body is the operation input, the 200 body its output (each operation is also described as its own path, with its schemas and cost). The run is charged its cost before the provider is called (`Credits-Charged`, `Credits-Remaining`) and refunded if the provider fails (500 `upstream_failed`). With an `Idempotency-Key`, the same request within 24 hours replays the first answer without a second charge.',
    tag: 'Social operations',
    errors: [
      'insufficient_credits',
      'spending_limit_exceeded',
      'forbidden',
      'operation_not_enabled',
      'not_found',
      'idempotency_key_reused',
      'upstream_failed',
    ],
  },
  {
    name: 'GetOpenApiDocument',
    method: 'GET',
    path: '/openapi.json',
    entry: 'functions/get-openapi-document.ts',
    tableActions: [],
    assets: ['./openapi.json'],
    summary: 'This API description (OpenAPI 3.1)',
    description: 'No token needed, not rate limited. The same document as `openapi.json` in the repository.',
    tag: 'API description',
    errors: [],
  },
  {
    name: 'GetDocsPage',
    method: 'GET',
    path: '/docs',
    entry: 'functions/get-docs-page.ts',
    tableActions: [],
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
    assets: DOCS_ASSETS.map((asset) => asset.source),
    summary: 'A script or style sheet of the reference page',
    description: 'The page loads nothing from anywhere else. An unknown asset name answers 404 `not_found`.',
    tag: 'API description',
    errors: ['not_found'],
  },
  {
    name: 'RouteNotFound',
    method: 'ANY',
    path: '$default',
    entry: 'functions/route-not-found.ts',
    tableActions: [],
    summary: 'Any other method and path',
    description: 'Answers 404 `route_not_found`, before authentication.',
    tag: 'API description',
    errors: ['route_not_found'],
  },
];

/** The API Gateway route key: "GET /path" or "$default". */
export const routeKey = (route: Route): string => (route.path === '$default' ? '$default' : `${route.method} ${route.path}`);

/** `/a/{x}/b` → a regex with one named group per path parameter. */
export function routePattern(path: string): RegExp {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${source}$`);
}

/** A malformed escape (`%E0%A4%A`) stays as sent; validation then refuses it with a 400. */
function decodeOrKeep(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const compiled = routes.filter((route) => route.path !== '$default').map((route) => ({ route, pattern: routePattern(route.path) }));

/**
 * The route API Gateway would pick for a request, with its path parameters (decoded), or the
 * `$default` route when none matches.
 */
export function matchRoute(method: string, pathname: string): { route: Route; pathParameters?: Record<string, string> } {
  for (const { route, pattern } of compiled) {
    const match = route.method === method ? pattern.exec(pathname) : null;
    if (match) {
      const pathParameters = Object.fromEntries(Object.entries(match.groups ?? {}).map(([name, value]) => [name, decodeOrKeep(value)]));
      return { route, pathParameters };
    }
  }
  return { route: routes.find((route) => route.path === '$default')! };
}
