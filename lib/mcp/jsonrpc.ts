/**
 * JSON-RPC 2.0 as MCP uses it: the error codes, and a response written the way the MCP SDK's
 * Protocol writes one (1.32.2, shared/protocol.js), key order included, since clients and
 * test/mcp/tools-parity.test.ts read the same bytes the SDK wrote.
 */

/** The error codes this server answers with (JSON-RPC's, and the SDK transport's -32000). */
export const ErrorCode = {
  /** The SDK's transport answers its HTTP-level refusals (406, 415, 400, 413) with this code. */
  TransportError: -32000,
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

export type RequestId = string | number;

/** A JSON-RPC request as validated (lib/mcp/messages.ts): what a method's handler is handed. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/** A result in a JSON-RPC response, as the SDK's Protocol writes it (`result` first). */
export const resultResponse = (id: RequestId, resultJson: string): string =>
  `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;

/** What the SDK's Protocol reads of an error a handler threw (our JsonRpcError, an Error, a zod error). */
export interface ThrownError {
  code?: unknown;
  message?: string;
  data?: unknown;
}

/**
 * A handler's error in a JSON-RPC response, as the SDK's Protocol writes it: the error's own
 * `code` when it is an integer (a plain Error has none: -32603), its message, its `data` if any.
 */
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
