import { routeNotFound } from '../lib/errors.ts';
import { baseChain } from '../lib/http/base-chain.ts';

/**
 * API Gateway's $default route: any method and path the route table does not name. It answers
 * before authentication, as there is no resource to protect, with the documented error body.
 */
export const handler = baseChain().handler(async (event) => {
  throw routeNotFound(event.requestContext.http.method, event.rawPath);
});
