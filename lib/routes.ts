/**
 * The route table: the one list of endpoints. The CDK stack builds one function per entry,
 * the local server routes by it, and the tests check both against it.
 * `tableActions` is exactly what the handler does to the table (least-privilege IAM).
 */
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
  {
    name: 'RouteNotFound',
    method: 'ANY',
    path: '$default',
    entry: 'functions/route-not-found.ts',
    tableActions: [],
  },
];

/** The API Gateway route key: "GET /path" or "$default". */
export const routeKey = (route: Route): string => (route.path === '$default' ? '$default' : `${route.method} ${route.path}`);

/** `/a/{x}/b` → a regex with one named group per path parameter. */
export function routePattern(path: string): RegExp {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${source}$`);
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
      const pathParameters = Object.fromEntries(
        Object.entries(match.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value)]),
      );
      return { route, pathParameters };
    }
  }
  return { route: routes.find((route) => route.path === '$default')! };
}
