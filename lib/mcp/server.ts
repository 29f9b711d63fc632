/**
 * The MCP server of one HTTP request: Streamable HTTP in its stateless form (no session, JSON
 * answers, no server-to-client stream), so that any Lambda instance can answer any request and
 * a request is one invocation. Each request gets its own protocol server and transport (the
 * SDK's stateless mode requires it; both are plain objects, cheap to make).
 *
 * Built on the SDK's low-level `Server`: our tools already carry JSON Schemas (the catalog's),
 * so the high-level McpServer's zod-to-JSON-Schema machinery would only cost bundle size.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { SERVICE_NAME } from '../config.ts';
import { internalError, ServiceError } from '../errors.ts';
import { logError, logger } from '../log.ts';
import type { Caller } from '../model.ts';
import { OPERATION_NAMES } from '../social/catalog/names.ts';
import { listSocialOperations } from '../social/list.ts';
import { runSocialOperation } from '../social/run.ts';
import { refusalResult, successResult, toolOf } from './tools.ts';

/** Who asks, for which workspace, and by when the answer must be out. */
export interface McpScope {
  caller: Caller;
  orgId: string;
  /** Epoch ms by which a tool call must have answered (the function's own deadline). */
  deadlineMs: number;
  /** The HTTP request's id: in refusals' text, as in every error body. */
  requestId: string;
}

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

const knownTool = (name: string): boolean => (OPERATION_NAMES as readonly string[]).includes(name);

async function listTools(scope: McpScope) {
  logger.appendKeys({ mcp_method: 'tools/list' });
  try {
    const { operations } = await listSocialOperations(scope.caller, scope.orgId);
    return { tools: operations.map(toolOf) };
  } catch (error) {
    throw protocolError(error, scope);
  }
}

/** The run path of POST /social/{operation}, whole: role, network, credits and limits, charge, provider, refund. */
async function callTool(scope: McpScope, name: string, args: Record<string, unknown> | undefined) {
  logger.appendKeys({ mcp_method: 'tools/call' });
  // Only a name the catalog does not know is a protocol error; a known operation this workspace
  // may not run is a refusal the agent can read (operation_not_enabled).
  if (!knownTool(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 100)}`);
  logger.appendKeys({ tool: name });
  try {
    const result = await runSocialOperation({
      caller: scope.caller,
      orgId: scope.orgId,
      operationName: name,
      input: args ?? {},
      deadlineMs: scope.deadlineMs,
    });
    return successResult(result);
  } catch (error) {
    const refusal = asServiceError(error, scope);
    logger.appendKeys({ tool_error: refusal.code });
    return refusalResult(refusal, scope.requestId);
  }
}

/** A ServiceError as it is; anything else is a bug or an outage: logged, and told as a plain internal_error. */
function asServiceError(error: unknown, scope: McpScope): ServiceError {
  if (error instanceof ServiceError) return error;
  logError('unhandled error in an MCP request', error, { request_id: scope.requestId });
  return internalError();
}

/** A listing refused (not a member) or failed: a JSON-RPC error carrying the documented error body. */
function protocolError(error: unknown, scope: McpScope): McpError {
  const failure = asServiceError(error, scope);
  const code = failure.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
  return new McpError(code, `${failure.code}: ${failure.message}`, {
    code: failure.code,
    message: failure.message,
    request_id: scope.requestId,
  });
}

/** The body as JSON, or undefined when it is not (the transport then answers its parse error). */
async function jsonBody(request: Request): Promise<unknown> {
  try {
    return JSON.parse(await request.clone().text());
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

/** Answers one HTTP request of the MCP Streamable HTTP transport. */
export async function serveMcp(request: Request, scope: McpScope): Promise<Response> {
  const message = await jsonBody(request);
  if (Array.isArray(message)) return batchRefused();
  const server = new Server(
    { name: SERVICE_NAME, title: 'Workspace Service', version: '1.0.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: noClientSchemas },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => listTools(scope));
  server.setRequestHandler(CallToolRequestSchema, (call) => callTool(scope, call.params.name, call.params.arguments));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, message === undefined ? undefined : { parsedBody: message });
  } finally {
    await server.close();
  }
}
