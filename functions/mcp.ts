import * as z from 'zod/mini';
import { methodNotAllowed, originNotAllowed } from '../lib/errors.ts';
import { foreignOrigin } from '../lib/http/cors.ts';
import { baseChain, endpoint, JsonText, Reply } from '../lib/http/endpoint.ts';
import { organizationId } from '../lib/http/params.ts';
import type { HttpEvent, ServiceContext } from '../lib/http/types.ts';
import { webRequestParts } from '../lib/http/web-request.ts';
import { baseUrl, MCP_PATH, resourceMetadataUrl } from '../lib/mcp/discovery.ts';
import { serveMcp } from '../lib/mcp/server.ts';

/**
 * POST /mcp?organization_id= — the workspace's social operations as MCP tools (Streamable HTTP,
 * stateless, JSON answers; docs/mcp.md). Authentication, version header, rate limit (one count
 * per HTTP request) and error mapping are the same chain as every endpoint; the body is the
 * MCP transport's business, its answer is passed on as it is.
 */
const post = endpoint(
  { schemas: { query: z.object({ organization_id: organizationId }) }, resourceMetadataUrl },
  async ({ query }, context, event) => {
    const { status, headers, text } = await serveMcp(webRequestParts(event, `${baseUrl(event)}${MCP_PATH}?${event.rawQueryString}`), {
      caller: context.caller,
      orgId: query.organization_id,
      deadlineMs: context.deadlineMs,
      requestId: context.requestId,
      baseUrl: baseUrl(event),
    });
    // A notification or a client's response: 202, no body and so no Content-Type (a proxy that
    // trusted an application/json on an empty body answered 500).
    if (!text) return new Reply(undefined, {}, status);
    // The JSON-RPC response as the MCP server wrote it (a tool listing is ~170 KB: no parse and serialize again).
    return new Reply(new JsonText(text), { 'Content-Type': headers['content-type'] ?? 'application/json' }, status);
  },
);

/**
 * Stateless: no server-to-client stream to open with GET, no session to end with DELETE. 405
 * (which the MCP clients expect) before authentication, as for an unknown route.
 */
const notAllowed = baseChain().handler(async (event) => {
  throw methodNotAllowed(event.requestContext.http.method, MCP_PATH, ['POST']);
});

/**
 * A present `Origin` that is not an allowed one: 403 before anything else, as the MCP transport
 * requires against DNS rebinding (a page whose name was rebound to this server's address).
 */
const originRefused = baseChain().handler(async (event) => {
  throw originNotAllowed(foreignOrigin(event) ?? '');
});

export const handler = Object.assign(
  (event: HttpEvent, context: ServiceContext) =>
    foreignOrigin(event) !== undefined
      ? originRefused(event, context)
      : event.requestContext.http.method === 'POST'
        ? post(event, context)
        : notAllowed(event, context),
  // The API description reads what POST validates (the OpenAPI generator, lib/openapi/).
  { endpoint: post.endpoint },
);

/** For the API description: the methods it describes this `ANY` route under, and its answers besides 200. */
export const methods = ['POST'];
export const otherResponses = {
  '202': 'A notification or a response from the client was accepted; no body.',
  '404': 'A 2026-07-28 request naming a method this server does not serve: a JSON-RPC error `-32601` (docs/mcp.md).',
};

/**
 * The request body, for the API description (the MCP transport validates it, not this schema):
 * one JSON-RPC message, or a batch, which is answered 400. The bounds are generous for what MCP
 * sends (its longest method name is 36 characters; ids are numbers or short strings) and give a
 * gateway generated from the document a limit; the server answers longer values as the SDK does.
 */
const jsonRpcId = z.union([z.string().check(z.maxLength(256)), z.int()]);
const method = z.string().check(z.maxLength(128)).register(z.globalRegistry, { description: 'the MCP method, e.g. tools/call' });
const params = z.optional(z.record(z.string().check(z.maxLength(256)), z.unknown()));
const jsonRpcMessage = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: jsonRpcId, method, params }).register(z.globalRegistry, { title: 'Request' }),
  z.object({ jsonrpc: z.literal('2.0'), method, params }).register(z.globalRegistry, { title: 'Notification (answered 202)' }),
  z
    .object({ jsonrpc: z.literal('2.0'), id: jsonRpcId, result: z.record(z.string().check(z.maxLength(256)), z.unknown()) })
    .register(z.globalRegistry, { title: 'Response from the client (answered 202)' }),
  z
    .object({
      jsonrpc: z.literal('2.0'),
      id: z.nullable(jsonRpcId),
      error: z.object({ code: z.int(), message: z.string().check(z.maxLength(4096)), data: z.optional(z.unknown()) }),
    })
    .register(z.globalRegistry, { title: 'Error response from the client (answered 202)' }),
]);
export const requestBodySchema = z.union([
  jsonRpcMessage,
  z
    .array(jsonRpcMessage)
    .check(z.minLength(1), z.maxLength(100))
    .register(z.globalRegistry, { title: 'Batch (answered 400: send one message per request)' }),
]);
export const requestBodyExample = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'instagram_profile', arguments: { handle: 'nasa' } },
};

/** The 200 answer: one JSON-RPC response (batches are refused; a notification gets 202 and no body). */
export const responseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]),
  result: z.optional(z.record(z.string(), z.unknown())),
  error: z.optional(z.object({ code: z.number(), message: z.string(), data: z.optional(z.unknown()) })),
});
