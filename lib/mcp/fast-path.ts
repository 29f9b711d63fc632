/**
 * The two hot MCP methods, tools/list and tools/call, answered without the SDK's server and
 * transport: through them, a request cost a `Server` and a transport, zod parses of the message
 * again and again, the `JSON.stringify` of the response and a Web Response built from it and
 * read back; a listing (~170 KB) 2.25× the DynamoDB floor of its request (docs/performance.md).
 *
 * A request takes the fast path only when the SDK would answer it by calling our handler, judged
 * by the SDK's own checks, in its order, with its own functions and schemas (`plainRequest`);
 * anything else (a wrong header, an odd message, a task, any other method) goes to the SDK, so
 * every refusal of the protocol stays the SDK's own. The fast path then writes the JSON-RPC
 * response as the SDK's Protocol does, byte for byte: test/mcp/fast-path.test.ts compares both.
 */
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  ErrorCode,
  isJSONRPCRequest,
  isTaskAugmentedRequestParams,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

export type RequestId = string | number;

/**
 * The JSON-RPC request, when the SDK's Streamable HTTP transport and server would hand it to the
 * handler of its method: the transport's checks (Accept lists JSON and SSE, a JSON Content-Type,
 * a supported MCP-Protocol-Version or none; stateless: no session), a valid JSON-RPC request, and
 * no task asked for (the server has no task capability, so the SDK refuses one). The caller then
 * parses it with its method's schema, as the SDK's `setRequestHandler` does. Otherwise undefined.
 */
export function plainRequest(headers: Headers, message: unknown): JSONRPCRequest | undefined {
  const accept = headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(headers.get('content-type'))) return undefined;
  const version = headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  const parsed = JSONRPCMessageSchema.safeParse(message);
  if (!parsed.success || !isJSONRPCRequest(parsed.data)) return undefined;
  // The SDK's Protocol asks for a task capability when the params carry a `task` (then refused).
  const { params } = parsed.data;
  return isTaskAugmentedRequestParams(params) && params.task ? undefined : parsed.data;
}

/** A result in a JSON-RPC response, as the SDK's Protocol writes it (`result` first). */
export const resultResponse = (id: RequestId, resultJson: string): string =>
  `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;

/** What the SDK's Protocol reads of an error a handler threw (an McpError, our JsonRpcError). */
export interface ThrownError {
  code: number;
  message?: string;
  data?: unknown;
}

/** A handler's error in a JSON-RPC response, as the SDK's Protocol writes it. */
export const errorResponse = (id: RequestId, error: ThrownError): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      code: Number.isSafeInteger(error.code) ? error.code : ErrorCode.InternalError,
      message: error.message ?? 'Internal error',
      ...(error.data !== undefined && { data: error.data }),
    },
  });
