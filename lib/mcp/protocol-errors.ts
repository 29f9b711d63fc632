/**
 * How a refusal or a failure becomes a JSON-RPC error (a listing refused, an unknown tool, a
 * failure outside a tool's run).
 */
import { internalError, ServiceError } from '../errors.ts';
import { logError } from '../log.ts';
import { ErrorCode } from './jsonrpc.ts';
import type { McpScope } from './scope.ts';

/**
 * A JSON-RPC error our handlers throw, its message as the client should read it. The SDK's
 * `McpError` prefixes its message with "MCP error <code>: ", and the SDK's client prefixes the
 * message it receives again: an agent read "MCP error -32602: MCP error -32602: Unknown tool".
 * A thrown error's `code`, `message` and `data` are written as they are (lib/mcp/jsonrpc.ts
 * `errorResponse`, as the SDK's server did), so this one reaches the client prefixed once, by
 * the client.
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

/** A tool name the catalog does not know: invalid params, naming it (cut to 100 characters). */
export const unknownTool = (name: string): JsonRpcError => new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 100)}`);

/** A ServiceError as it is; anything else is a bug or an outage: logged, and told as a plain internal_error. */
export function asServiceError(error: unknown, scope: McpScope): ServiceError {
  if (error instanceof ServiceError) return error;
  logError('unhandled error in an MCP request', error, { request_id: scope.requestId });
  return internalError();
}

/** A listing refused (not a member) or failed: a JSON-RPC error carrying the documented error body. */
export function protocolError(error: unknown, scope: McpScope): JsonRpcError {
  const failure = asServiceError(error, scope);
  const code = failure.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
  return new JsonRpcError(code, `${failure.code}: ${failure.message}`, {
    code: failure.code,
    message: failure.message,
    request_id: scope.requestId,
  });
}
