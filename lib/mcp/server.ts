/**
 * The MCP server of one HTTP request: Streamable HTTP in its stateless form (no session, JSON
 * answers, no server-to-client stream), so that any Lambda instance can answer any request and
 * a request is one invocation. Our own, not the MCP SDK's `Server` and transport: those were a
 * large share of the function's bundle and cold start (the SDK's `types.js` builds every MCP
 * message schema with classic zod at import; docs/performance.md has the figures), for the few
 * methods a tools-only server answers. It answers every request as the SDK 1.32.2 did with our
 * configuration: test/mcp/sdk-parity.test.ts asks both.
 *
 * transport.ts: the HTTP checks and 202s; dispatch.ts: the JSON-RPC methods; tools-list.ts and
 * tools-call.ts: the tools.
 */
import type { WebRequestParts } from '../http/web-request.ts';
import { answerRequest } from './dispatch.ts';
import { answerModern } from './modern.ts';
import type { McpScope } from './scope.ts';
import { batchRefused, type McpAnswer, receive } from './transport.ts';

export type { McpAnswer };

/** The body as JSON, or undefined when it is not (the transport then answers its parse error). */
export function jsonBody(body: string | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** Answers one POST of the MCP Streamable HTTP transport. */
export async function serveMcp(request: WebRequestParts, scope: McpScope): Promise<McpAnswer> {
  const message = jsonBody(request.body);
  if (Array.isArray(message)) return batchRefused();
  const received = receive(request.headers, request.body, message);
  if ('answer' in received) return received.answer;
  if ('modern' in received) {
    const { status, text } = await answerModern(received.modern, received.capabilities, scope);
    return { status, headers: { 'content-type': 'application/json' }, text };
  }
  // A JSON-RPC response as the SDK's transport sends one in JSON mode: 200, application/json.
  return { status: 200, headers: { 'content-type': 'application/json' }, text: await answerRequest(received.request, scope) };
}
