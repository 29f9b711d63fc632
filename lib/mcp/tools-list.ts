/**
 * tools/list: the listing of the caller's tools as a JSON-RPC response, each listing serialized
 * once per instance and per set of operations it lists, as GET /social/operations does.
 */
import { boundedMemo } from '../bounded-memo.ts';
import { logger } from '../log.ts';
import type { OperationDescriptor } from '../social/catalog/descriptors.ts';
import { type ListedOperation, listingKey, listSocialOperations } from '../social/list.ts';
import { BUDGET_TOOL } from './budget-tool.ts';
import { JOB_TOOLS } from './job-tools.ts';
import { errorResponse, type RequestId, resultResponse, type ThrownError } from './jsonrpc.ts';
import { protocolError } from './protocol-errors.ts';
import type { McpScope } from './scope.ts';
import { toolOf } from './tools.ts';

/**
 * The operations this caller may list as tools (the available ones: an agent is offered only
 * what it can call), or the JSON-RPC error that refuses the listing.
 */
async function listedOperations(scope: McpScope): Promise<ListedOperation[]> {
  logger.appendKeys({ mcp_method: 'tools/list' });
  try {
    return (await listSocialOperations(scope.caller, scope.orgId)).operations;
  } catch (error) {
    throw protocolError(error, scope);
  }
}

/** The listing as an object: what the SDK's server is given by test/support/mcp-sdk-oracle.ts, the tests' reference. */
export const listTools = async (scope: McpScope) => ({ tools: toolsOf(await listedOperations(scope)) });

/** The operations' tools, then the two job tools (lib/mcp/job-tools.ts) and the budget (lib/mcp/budget-tool.ts). */
const toolsOf = (operations: OperationDescriptor[]) => [...operations.map(toolOf), ...JOB_TOOLS, BUDGET_TOOL];

/** Each listing's `{"tools":[…]}`, by the operations it lists: at most 2^7 sets of networks. */
const listings = boundedMemo<string>(32);

/** The JSON-RPC response to a tools/list whose params are valid: the SDK's bytes, from the serialized listing. */
export async function toolsListAnswer(id: RequestId, scope: McpScope): Promise<string> {
  let operations: ListedOperation[];
  try {
    operations = await listedOperations(scope);
  } catch (error) {
    return errorResponse(id, error as ThrownError);
  }
  return resultResponse(
    id,
    listings(listingKey(operations), () => JSON.stringify({ tools: toolsOf(operations) })),
  );
}
