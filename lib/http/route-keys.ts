import { routePattern } from '../route-pattern.ts';

/**
 * Route key (`GET /path`, `$default`) → route name. A bundled function gets it as a build-time
 * constant (infra/bundling.ts replaces `process.env.WORKSPACE_ROUTE_NAMES` with the JSON of the
 * map), so that it does not carry the route table and its API descriptions
 * (docs/performance.md#bundles-size-and-cold-start); under tsx and vitest the variable is unset and the table is read.
 */
export const routeNames: Readonly<Record<string, string>> =
  typeof process.env.WORKSPACE_ROUTE_NAMES === 'string'
    ? JSON.parse(process.env.WORKSPACE_ROUTE_NAMES)
    : (await import('../routes.ts')).routeNames();

/** The order `Allow` lists methods in. */
const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

let templates: { method: string; pattern: RegExp }[] | undefined;

/**
 * The methods the route table answers on this path, from the route keys (no route table in the
 * bundle): empty for a path no route names. The `$default` function answers 405 with these as
 * `Allow` when there are some, 404 otherwise.
 */
export function allowedMethods(pathname: string): string[] {
  templates ??= Object.keys(routeNames)
    .filter((key) => key !== '$default')
    .map((key) => {
      const [method = '', path = ''] = key.split(' ');
      return { method, pattern: routePattern(path) };
    });
  const methods = new Set(templates.filter(({ pattern }) => pattern.test(pathname)).map(({ method }) => method));
  return METHOD_ORDER.filter((method) => methods.has(method));
}
