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
}

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
