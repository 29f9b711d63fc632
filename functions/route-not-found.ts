import { methodNotAllowed, routeNotFound } from '../lib/errors.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { preflight } from '../lib/http/cors.ts';
import { allowedMethods } from '../lib/http/route-keys.ts';

/**
 * API Gateway's $default route: any method and path the route table does not name. It answers
 * before authentication, as there is no resource to protect, with the documented error body: 405
 * `method_not_allowed` with `Allow` when the route table names the path for other methods (read
 * from the route keys every bundle carries, not from the route table), else 404. With CORS on it
 * also answers preflights (`OPTIONS`, which no route names), as API Gateway does deployed: so
 * `npm start` behaves like a deployed stack.
 */
export const handler = baseChain().handler(async (event) => {
  const answer = preflight(event);
  if (answer) return answer;
  const { method } = event.requestContext.http;
  const allowed = allowedMethods(event.rawPath);
  throw allowed.length > 0 ? methodNotAllowed(method, event.rawPath, allowed) : routeNotFound(method, event.rawPath);
});
