/**
 * tools/list, twice: the SDK server's handler, and a fast path that answers the same bytes
 * without the SDK. A listing is the largest answer of the service (~170 KB of JSON Schemas for
 * every network), and through the SDK each one cost a Server and a transport, the
 * `JSON.stringify` of the whole response and a Web Response built from it and read back: 2.25×
 * the DynamoDB floor of the request (docs/performance.md, "MCP"). The fast path serializes each
 * listing once per instance, keyed by the operations it lists (as GET /social/operations does),
 * and writes the JSON-RPC response around it.
 *
 * It answers only a request the SDK would answer with the listing, judged by the SDK's own
 * checks and schemas (`isPlainToolsList`); anything else (a wrong header, an odd message, a
 * batch, any other method) goes to the SDK, so every error answer stays the SDK's own.
 * test/mcp/tools-list.test.ts checks both paths answer byte for byte the same.
 */
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  ErrorCode,
  isJSONRPCRequest,
  isTaskAugmentedRequestParams,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  type McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { boundedMemo } from '../bounded-memo.ts';
import { logger } from '../log.ts';
import type { OperationDescriptor } from '../social/catalog/descriptors.ts';
import { listingKey, listSocialOperations } from '../social/list.ts';
import { protocolError } from './protocol-errors.ts';
import type { McpScope } from './scope.ts';
import { toolOf } from './tools.ts';

/** The operations this caller may list as tools, or the JSON-RPC error that refuses the listing. */
async function listedOperations(scope: McpScope): Promise<OperationDescriptor[]> {
  logger.appendKeys({ mcp_method: 'tools/list' });
  try {
    return (await listSocialOperations(scope.caller, scope.orgId)).operations;
  } catch (error) {
    throw protocolError(error, scope);
  }
}

/** The SDK server's tools/list handler: the listing as an object (the SDK serializes it). */
export const listTools = async (scope: McpScope) => ({ tools: (await listedOperations(scope)).map(toolOf) });

type RequestId = string | number;

/**
 * Whether the SDK's Streamable HTTP transport and server would answer this POST with the tool
 * listing: the transport's checks (Accept lists JSON and SSE, a JSON Content-Type, a valid
 * JSON-RPC message, a supported MCP-Protocol-Version or none; stateless: no session), a
 * tools/list request valid against the SDK's schema, and no task asked for (the server has no
 * task capability, so the SDK refuses one).
 */
export function isPlainToolsList(headers: Headers, message: unknown): message is { id: RequestId } {
  const accept = headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return false;
  if (!isJsonContentType(headers.get('content-type'))) return false;
  const version = headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false;
  const parsed = JSONRPCMessageSchema.safeParse(message);
  if (!parsed.success || !isJSONRPCRequest(parsed.data) || parsed.data.method !== 'tools/list') return false;
  const { params } = parsed.data;
  // The SDK's Protocol asks for a task capability when the params carry a `task` (then refused).
  const task = isTaskAugmentedRequestParams(params) ? params.task : undefined;
  return !task && ListToolsRequestSchema.safeParse(parsed.data).success;
}

/** Each listing's `{"tools":[…]}`, by the operations it lists: at most 2^7 sets of networks. */
const listings = boundedMemo<string>(32);

/**
 * The JSON-RPC response to a plain tools/list, as the SDK writes it: `{"result":…,"jsonrpc":"2.0","id":…}`,
 * or, refused, `{"jsonrpc":"2.0","id":…,"error":{"code","message","data"}}` (the SDK's Protocol).
 */
export async function toolsListAnswer(id: RequestId, scope: McpScope): Promise<string> {
  let operations: OperationDescriptor[];
  try {
    operations = await listedOperations(scope);
  } catch (error) {
    return JSON.stringify({ jsonrpc: '2.0', id, error: errorOf(error as McpError) });
  }
  const tools = listings(listingKey(operations), () => JSON.stringify({ tools: operations.map(toolOf) }));
  return `{"result":${tools},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** A thrown error as the SDK's Protocol puts it in a JSON-RPC error response. */
const errorOf = (error: McpError) => ({
  code: Number.isSafeInteger(error.code) ? error.code : ErrorCode.InternalError,
  message: error.message ?? 'Internal error',
  ...(error.data !== undefined && { data: error.data }),
});
