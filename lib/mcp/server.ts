/**
 * The MCP server of one HTTP request: Streamable HTTP in its stateless form (no session, JSON
 * answers, no server-to-client stream), so that any Lambda instance can answer any request and
 * a request is one invocation. A plain tools/list or tools/call is answered without the SDK
 * (lib/mcp/fast-path.ts); any other request gets its own protocol server and transport (the
 * SDK's stateless mode requires it).
 *
 * Built on the SDK's low-level `Server`: our tools already carry JSON Schemas (the catalog's),
 * so the high-level McpServer's zod-to-JSON-Schema machinery would only cost bundle size.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { SERVICE_NAME } from '../config.ts';
import { readWebResponse, toWebRequest, type WebRequestParts } from '../http/web-request.ts';
import { plainRequest } from './fast-path.ts';
import type { McpScope } from './scope.ts';
import { callTool, toolsCallAnswer } from './tools-call.ts';
import { listTools, toolsListAnswer } from './tools-list.ts';

const INSTRUCTIONS = [
  "Social data tools of one workspace (the organization_id in this server's URL).",
  'Every call spends workspace credits (the cost is in each description) and is refunded if the data provider fails.',
  'A refused call returns isError with a JSON body {code, message, data}: validation_failed names the argument to fix;',
  'insufficient_credits, spending_limit_exceeded, forbidden and operation_not_enabled will not change by retrying;',
  'upstream_failed and internal_error may succeed if retried later; not_found means the account or item does not exist.',
].join(' ');

/**
 * The server validates nothing a client sends against JSON Schema (it would only for
 * elicitation, which it never asks for). Without this the SDK would build an Ajv instance per
 * server, that is per request; and the Lambda bundle has only a stub of Ajv (infra/stubs/ajv.ts).
 */
const noClientSchemas: jsonSchemaValidator = {
  getValidator: () => {
    throw new Error('this server validates no client data against JSON Schema');
  },
};

/** The body as JSON, or undefined when it is not (the transport then answers its parse error). */
function jsonBody(body: string | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * A JSON-RPC batch would run up to 100 tool calls on one count of the caller's rate limit.
 * MCP dropped batching in its 2025-06-18 revision and the SDK's clients never send one.
 */
const batchRefused = (): Response =>
  Response.json(
    {
      jsonrpc: '2.0',
      id: null,
      error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: send one JSON-RPC message per HTTP request (no batches)' },
    },
    { status: 400 },
  );

/** An HTTP answer read whole: status, headers (lower-case names) and body text (empty for none). */
export interface McpAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Answers one HTTP request of the MCP Streamable HTTP transport: a plain tools/list or
 * tools/call without the SDK (lib/mcp/fast-path.ts), anything else through its server and
 * transport.
 */
export async function serveMcp(request: WebRequestParts, scope: McpScope): Promise<McpAnswer> {
  const message = jsonBody(request.body);
  if (Array.isArray(message)) return readWebResponse(batchRefused());
  const plain = plainRequest(request.headers, message);
  if (plain?.method === 'tools/list' && ListToolsRequestSchema.safeParse(plain).success) {
    return jsonAnswer(await toolsListAnswer(plain.id, scope));
  }
  const call = plain?.method === 'tools/call' ? CallToolRequestSchema.safeParse(plain) : undefined;
  if (plain && call?.success) return jsonAnswer(await toolsCallAnswer(plain.id, call.data.params, scope));
  // The transport reads the body itself only when it was not parsed here (to answer its parse error).
  return readWebResponse(await serveWithSdk(toWebRequest(request, message === undefined), message, scope));
}

/** A JSON-RPC response as the SDK's transport sends one in JSON mode: 200, application/json. */
const jsonAnswer = (text: string): McpAnswer => ({ status: 200, headers: { 'content-type': 'application/json' }, text });

/** The SDK's answer to one HTTP request (exported for the tests that compare it with the fast path's). */
export async function serveWithSdk(request: Request, message: unknown, scope: McpScope): Promise<Response> {
  const server = new Server(
    { name: SERVICE_NAME, title: 'Workspace Service', version: '1.0.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: noClientSchemas },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => listTools(scope));
  server.setRequestHandler(CallToolRequestSchema, (call) => callTool(scope, call.params.name, call.params.arguments, call.params._meta));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, message === undefined ? undefined : { parsedBody: message });
  } finally {
    await server.close();
  }
}
