import type { Context } from 'aws-lambda';
import { methodNotAllowed, routeNotFound } from '../lib/errors.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import type { HttpEvent, HttpResult } from '../lib/http/types.ts';
import { handler as authorize } from './oauth-authorize.ts';
import { handler as revoke } from './oauth-revoke.ts';
import { handler as token } from './oauth-token.ts';
import { handler as register } from './register-oauth-client.ts';
import { handler as preflightOrNotFound } from './route-not-found.ts';

type Handler = (event: HttpEvent, context: Context) => Promise<HttpResult>;

const ENDPOINTS: Record<string, { handler: Handler; methods: string[] }> = {
  authorize: { handler: authorize as unknown as Handler, methods: ['GET', 'POST'] },
  token: { handler: token as unknown as Handler, methods: ['POST'] },
  register: { handler: register as unknown as Handler, methods: ['POST'] },
  revoke: { handler: revoke as unknown as Handler, methods: ['POST'] },
};

const refuse = baseChain().handler(async (event) => {
  const { method } = event.requestContext.http;
  const endpoint = ENDPOINTS[event.pathParameters?.endpoint ?? ''];
  throw endpoint ? methodNotAllowed(method, event.rawPath, endpoint.methods) : routeNotFound(method, event.rawPath);
}) as unknown as Handler;

/**
 * ANY /oauth/{endpoint} — the authorization server's endpoints (docs/mcp.md, "Connecting by
 * OAuth"), each its own chain: `authorize` (GET, POST), `token`, `register` and `revoke` (POST).
 * One route and one function for the four: the stack is at CloudFormation's 500 resources (about 9 per
 * route). A preflight is answered as the `$default` route answers it; any other endpoint is 404
 * `route_not_found`, another method 405 `method_not_allowed`.
 */
export const handler = (event: HttpEvent, context: Context): Promise<HttpResult> => {
  const { method } = event.requestContext.http;
  if (method === 'OPTIONS') return (preflightOrNotFound as unknown as Handler)(event, context);
  const endpoint = ENDPOINTS[event.pathParameters?.endpoint ?? ''];
  return (endpoint?.methods.includes(method) ? endpoint.handler : refuse)(event, context);
};
