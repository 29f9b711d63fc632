/**
 * How a refusal or a failure becomes a JSON-RPC error (a listing refused, a failure outside a
 * tool's run), the same for the SDK's server and for the tools/list fast path.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { internalError, ServiceError } from '../errors.ts';
import { logError } from '../log.ts';
import type { McpScope } from './scope.ts';

/** A ServiceError as it is; anything else is a bug or an outage: logged, and told as a plain internal_error. */
export function asServiceError(error: unknown, scope: McpScope): ServiceError {
  if (error instanceof ServiceError) return error;
  logError('unhandled error in an MCP request', error, { request_id: scope.requestId });
  return internalError();
}

/** A listing refused (not a member) or failed: a JSON-RPC error carrying the documented error body. */
export function protocolError(error: unknown, scope: McpScope): McpError {
  const failure = asServiceError(error, scope);
  const code = failure.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
  return new McpError(code, `${failure.code}: ${failure.message}`, {
    code: failure.code,
    message: failure.message,
    request_id: scope.requestId,
  });
}
