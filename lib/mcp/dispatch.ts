/**
 * The answer to one JSON-RPC request, as the MCP SDK's Protocol and Server (1.32.2) give it with
 * this server's configuration (tools only, no task store): a method with no handler is -32601
 * "Method not found"; a request asking for a task is refused (the server declares no task
 * capability); the params are validated as the SDK's request schema for the method
 * (lib/mcp/request-schemas.ts), an invalid one answered as the SDK answers it (-32603, zod's
 * issues as the message: the SDK lets the schema's error through as a plain error); then the
 * method's handler. test/mcp/sdk-parity.test.ts holds it to the SDK's answers.
 */
import type * as z from 'zod/mini';
import { initializeResult } from './initialize.ts';
import { ErrorCode, errorResponse, type JsonRpcRequest, resultResponse } from './jsonrpc.ts';
import { requestedTask } from './messages.ts';
import { callToolRequest, initializeRequest, listToolsRequest } from './request-schemas.ts';
import type { McpScope } from './scope.ts';
import { toolsCallAnswer } from './tools-call.ts';
import { toolsListAnswer } from './tools-list.ts';

/** A method's handler: the request (its params not yet validated) to the JSON-RPC response's text. */
type Handler = (request: JsonRpcRequest, scope: McpScope) => Promise<string>;

/**
 * The request parsed by its method's schema, or the JSON-RPC error the SDK answers: the zod
 * error thrown as it is (no code: -32603 Internal error; its message: the issues as JSON).
 */
function validated<T>(schema: z.ZodMiniType<T>, request: JsonRpcRequest): { data: T } | { error: string } {
  const result = schema.safeParse(request);
  return result.success ? { data: result.data } : { error: errorResponse(request.id, { message: result.error.message }) };
}

const HANDLERS = new Map<string, Handler>([
  [
    'initialize',
    async (request, scope) => {
      const parsed = validated(initializeRequest(), request);
      if ('error' in parsed) return parsed.error;
      return resultResponse(request.id, JSON.stringify(initializeResult(parsed.data.params.protocolVersion, scope.baseUrl)));
    },
  ],
  // PingRequestSchema asks nothing the message schema has not already checked.
  ['ping', async (request) => resultResponse(request.id, '{}')],
  [
    'tools/list',
    async (request, scope) => {
      const parsed = validated(listToolsRequest(), request);
      return 'error' in parsed ? parsed.error : toolsListAnswer(request.id, scope);
    },
  ],
  [
    'tools/call',
    async (request, scope) => {
      const parsed = validated(callToolRequest(), request);
      return 'error' in parsed ? parsed.error : toolsCallAnswer(request.id, parsed.data.params, scope);
    },
  ],
]);

/** The JSON-RPC response to a request (a 200 with this body, as the SDK's transport sends it in JSON mode). */
export async function answerRequest(request: JsonRpcRequest, scope: McpScope): Promise<string> {
  const handler = HANDLERS.get(request.method);
  if (!handler) return errorResponse(request.id, { code: ErrorCode.MethodNotFound, message: 'Method not found' });
  // The SDK's Protocol checks a task asked for against the server's task capability (none) before the handler runs.
  if (requestedTask(request.params)) {
    return errorResponse(request.id, new Error(`Server does not support task creation (required for ${request.method})`));
  }
  return handler(request, scope);
}
