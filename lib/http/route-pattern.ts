/** `/a/{x}/b` → a regex with one named group per path parameter (API Gateway's path templates). */
export function routePattern(path: string): RegExp {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${source}$`);
}
