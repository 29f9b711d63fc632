/**
 * tools/call: the run path of POST /social/{operation} as the SDK server's handler, and the same
 * answer written without the SDK (the fast path, lib/mcp/fast-path.ts).
 */
import { type CallToolResult, CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { logger } from '../log.ts';
import { OPERATION_NAMES } from '../social/catalog/names.ts';
import { runSocialOperation } from '../social/run.ts';
import { errorResponse, type RequestId, resultResponse } from './fast-path.ts';
import { asServiceError } from './protocol-errors.ts';
import type { McpScope } from './scope.ts';
import { refusalResult, successResult } from './tools.ts';

const knownTool = (name: string): boolean => (OPERATION_NAMES as readonly string[]).includes(name);

/** The run path of POST /social/{operation}, whole: role, network, credits and limits, charge, provider, refund. */
export async function callTool(scope: McpScope, name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
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

/**
 * The JSON-RPC response to a plain tools/call, as the SDK writes it: the SDK's server checks the
 * result against `CallToolResultSchema` and answers the parsed copy (whose key order is the
 * schema's: `_meta`, `content`, `structuredContent`, `isError`), so this does the same.
 */
export async function toolsCallAnswer(
  id: RequestId,
  params: { name: string; arguments?: Record<string, unknown> },
  scope: McpScope,
): Promise<string> {
  let result: CallToolResult;
  try {
    result = await callTool(scope, params.name, params.arguments);
  } catch (error) {
    return errorResponse(id, error as McpError);
  }
  const checked = CallToolResultSchema.safeParse(result);
  if (!checked.success) {
    return errorResponse(id, new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${checked.error.message}`));
  }
  return resultResponse(id, JSON.stringify(checked.data));
}
