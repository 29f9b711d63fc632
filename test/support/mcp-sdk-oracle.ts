/**
 * The reference for our MCP server (lib/mcp/server.ts): the MCP SDK 1.32.2's `Server` and
 * `WebStandardStreamableHTTPServerTransport`, configured exactly as the function configured them
 * before it stopped bundling the SDK (stateless, JSON answers, tools only, our server info and
 * instructions, our tools/list and tools/call handlers), behind the one rule of ours that comes
 * first (batches refused). test/mcp/sdk-parity.test.ts and test/mcp/tools-parity.test.ts ask it
 * and our server the same requests.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { WebRequestParts } from '../../lib/http/web-request.ts';
import { CAPABILITIES, INSTRUCTIONS, serverInfo } from '../../lib/mcp/initialize.ts';
import type { McpScope } from '../../lib/mcp/scope.ts';
import { jsonBody, type McpAnswer } from '../../lib/mcp/server.ts';
import { callTool } from '../../lib/mcp/tools-call.ts';
import { listTools } from '../../lib/mcp/tools-list.ts';
import { batchRefused } from '../../lib/mcp/transport.ts';

/** The server validated nothing against JSON Schema (only elicitation answers, never asked for): no Ajv per request. */
const noClientSchemas: jsonSchemaValidator = {
  getValidator: () => {
    throw new Error('this server validates no client data against JSON Schema');
  },
};

/** The Request of those parts; without its body when the transport is handed it parsed. */
const toWebRequest = ({ method, url, headers, body }: WebRequestParts, withBody: boolean): Request =>
  new Request(url, { method, headers, ...(withBody && body !== undefined ? { body } : {}) });

/** The SDK's answer to one HTTP request, read whole (as the function passed it on). */
export async function serveWithSdk(request: WebRequestParts, scope: McpScope): Promise<McpAnswer> {
  const message = jsonBody(request.body);
  if (Array.isArray(message)) return batchRefused();
  const server = new Server(serverInfo(scope.baseUrl), {
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: noClientSchemas,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => listTools(scope));
  server.setRequestHandler(CallToolRequestSchema, (call) => callTool(scope, call.params.name, call.params.arguments, call.params._meta));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    // The transport reads the body itself only when it was not parsed (to answer its parse error).
    const response = await transport.handleRequest(
      toWebRequest(request, message === undefined),
      message === undefined ? undefined : { parsedBody: message },
    );
    return { status: response.status, headers: Object.fromEntries(response.headers.entries()), text: await response.text() };
  } finally {
    await server.close();
  }
}
