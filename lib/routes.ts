/**
 * The route table: the one list of endpoints. The CDK stack builds one function per entry,
 * the local server routes by it, and the tests check both against it.
 * `tableActions` is exactly what the handler does to the table (least-privilege IAM).
 */
export interface Route {
  /** Logical name; also the CDK construct id. */
  name: string;
  method: 'GET' | 'POST' | 'ANY';
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
  /** Secrets the handler reads (IAM read on that secret, and its ARN in the environment). */
  secrets?: readonly RouteSecret[];
  /** Served without a token and not rate limited (the API description, the docs page). */
  public?: boolean;
}

/** `providerApiKey`: the social provider's API key (env SCRAPECREATORS_API_KEY_SECRET_ARN). */
export type RouteSecret = 'providerApiKey';

export const routes: readonly Route[] = [
  {
    name: 'ListBillingEvents',
    method: 'GET',
    path: '/organizations/{organization_id}/billing/events',
    entry: 'functions/list-billing-events.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query'],
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
  },
  {
    name: 'RestoreSkill',
    method: 'POST',
    path: '/skills/{skill_id}/restore',
    entry: 'functions/restore-skill.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
  },
  {
    name: 'RestoreConversation',
    method: 'POST',
    path: '/conversations/{conversation_id}/restore',
    entry: 'functions/restore-conversation.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  },
  {
    name: 'RestoreProject',
    method: 'POST',
    path: '/projects/{project_id}/restore',
    entry: 'functions/restore-project.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem'],
  },
  {
    name: 'ListSocialOperations',
    method: 'GET',
    path: '/social/operations',
    entry: 'functions/list-social-operations.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
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
  },
  {
    // One function for every method: POST speaks MCP (the run path's table actions, plus the
    // listing's); any other method answers 405 (see functions/mcp.ts).
    name: 'Mcp',
    method: 'ANY',
    path: '/mcp',
    entry: 'functions/mcp.ts',
    tableActions: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'],
    secrets: ['providerApiKey'],
  },
  {
    name: 'OAuthProtectedResource',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    entry: 'functions/oauth-protected-resource.ts',
    tableActions: [],
    public: true,
  },
  {
    name: 'RouteNotFound',
    method: 'ANY',
    path: '$default',
    entry: 'functions/route-not-found.ts',
    tableActions: [],
    public: true,
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
  return { route: routes.find((route) => route.path === '$default')! };
}
