/**
 * `/a/{x}/b` → a regex with one named group per path parameter (API Gateway's path templates).
 * Beside the route table rather than in it: the chain (lib/http/route-keys.ts) matches paths
 * with it from the route keys alone, so that no bundle carries the table.
 */
export function routePattern(path: string): RegExp {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${source}$`);
}
