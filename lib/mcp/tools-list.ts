/**
 * tools/list: the listing of the caller's tools as a JSON-RPC response, each listing serialized
 * once per instance and per set of operations it lists, as GET /social/operations does.
 */

import { confirmAboveOf } from '../billing/balance.ts';
import { boundedMemo } from '../bounded-memo.ts';
import { type IconName, iconsOf } from '../icons.ts';
import { logger } from '../log.ts';
import type { OperationDescriptor } from '../social/catalog/descriptors.ts';
import { type ListedOperation, listingAndOrganization, listingKey } from '../social/list.ts';
import { BUDGET_TOOL } from './budget-tool.ts';
import { CONFIRM_TOKEN_ARGUMENT } from './consent.ts';
import { JOB_TOOLS } from './job-tools.ts';
import { errorResponse, type RequestId, resultResponse, type ThrownError } from './jsonrpc.ts';
import { protocolError } from './protocol-errors.ts';
import type { McpScope } from './scope.ts';
import { STATUS_TOOL } from './status-tool.ts';
import { toolOf } from './tools.ts';
import type { Tool } from './types.ts';

/**
 * The operations this caller may list as tools (the available ones: an agent is offered only
 * what it can call), and whether a consent threshold applies to it, or the JSON-RPC error that
 * refuses the listing.
 */
async function listedOperations(scope: McpScope): Promise<{ operations: ListedOperation[]; asks: boolean }> {
  logger.appendKeys({ mcp_method: 'tools/list' });
  try {
    const [{ listing, org }, grant] = await Promise.all([listingAndOrganization(scope.caller, scope.orgId), scope.caller.apiKey?.grant]);
    return { operations: listing.operations, asks: confirmAboveOf(org, grant) !== null };
  } catch (error) {
    throw protocolError(error, scope);
  }
}

/** The listing as an object: what the SDK's server is given by test/support/mcp-sdk-oracle.ts, the tests' reference. */
export const listTools = async (scope: McpScope) => {
  const { operations, asks } = await listedOperations(scope);
  return { tools: toolsOf(operations, scope.baseUrl, asks) };
};

/** The argument that brings a confirmation token back, on the tools that spend while a threshold applies (lib/mcp/consent.ts). */
const CONFIRM_TOKEN_SCHEMA = {
  type: 'string',
  maxLength: 2048,
  description:
    "Only after a confirmation_required refusal and the user's consent: its data.confirm_token, with the same arguments otherwise (valid 10 minutes, once).",
};

/** A tool that spends, with the `_confirm_token` argument. */
function withConfirmToken(tool: Tool): Tool {
  return {
    ...tool,
    inputSchema: { ...tool.inputSchema, properties: { ...tool.inputSchema.properties, [CONFIRM_TOKEN_ARGUMENT]: CONFIRM_TOKEN_SCHEMA } },
  };
}

/** A tool with its icon, placed where the SDK's ToolSchema puts `icons` (after `title`), so the bytes stay the SDK's. */
function withIcon(tool: Tool, icon: IconName, baseUrl: string): Tool {
  const { name, title, ...rest } = tool;
  return { name, title, icons: iconsOf(icon, baseUrl), ...rest };
}

/**
 * The operations' tools (each with its network's icon), then the two job tools
 * (lib/mcp/job-tools.ts), the budget (lib/mcp/budget-tool.ts) and the status
 * (lib/mcp/status-tool.ts), with the service's.
 */
const toolsOf = (operations: OperationDescriptor[], baseUrl: string, asks = false) => {
  const spends = (tool: Tool) => (asks ? withConfirmToken(tool) : tool);
  return [
    ...operations.map((operation) => withIcon(spends(toolOf(operation)), operation.network ?? 'service', baseUrl)),
    ...[...JOB_TOOLS, BUDGET_TOOL, STATUS_TOOL].map((tool) =>
      withIcon(tool.name === 'start_job' ? spends(tool) : tool, 'service', baseUrl),
    ),
  ];
};

/**
 * Each listing's `{"tools":[…]}`, by the operations it lists (at most 2^7 sets of networks) and
 * the origin its icons are on (one per deployment, besides tests' hosts).
 */
const listings = boundedMemo<string>(32);

/**
 * The JSON-RPC response to a tools/list whose params are valid: the SDK's bytes, from the
 * serialized listing. `extra`: members a 2026-07-28 answer adds after `tools` (lib/mcp/modern.ts).
 */
export async function toolsListAnswer(id: RequestId, scope: McpScope, extra?: Record<string, unknown>): Promise<string> {
  let listed: Awaited<ReturnType<typeof listedOperations>>;
  try {
    listed = await listedOperations(scope);
  } catch (error) {
    return errorResponse(id, error as ThrownError);
  }
  const { operations, asks } = listed;
  const listing = listings(`${scope.baseUrl} ${listingKey(operations)}${asks ? ' asks' : ''}`, () =>
    JSON.stringify({ tools: toolsOf(operations, scope.baseUrl, asks) }),
  );
  // The cached text is not parsed again (~170 KB): the extra members are appended before its closing brace.
  return resultResponse(id, extra ? `${listing.slice(0, -1)},${JSON.stringify(extra).slice(1)}` : listing);
}
