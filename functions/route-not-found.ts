import { routeNotFound } from '../lib/errors.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { preflight } from '../lib/http/cors.ts';

/**
 * API Gateway's $default route: any method and path the route table does not name. It answers
 * before authentication, as there is no resource to protect, with the documented error body.
 * With CORS on it also answers preflights (`OPTIONS`, which no route names), as API Gateway
 * does deployed: so `npm start` behaves like a deployed stack.
 */
export const handler = baseChain().handler(async (event) => {
  const answer = preflight(event);
  if (answer) return answer;
  throw routeNotFound(event.requestContext.http.method, event.rawPath);
});
