/**
 * The 2026-07-28 revision's methods, for a request lib/mcp/era.ts let through: stateless, tools
 * only, every result with its `resultType` and the server's identity in `_meta`. Errors a method
 * raises are answered at HTTP 200, but -32021 (a capability the request did not declare), at 400.
 */
import { mcpMaxResultChars } from '../config.ts';
import type { JobView } from '../jobs/view.ts';
import { declaresFormElicitation, InputRequired } from './consent.ts';
import { declaresTasks, META_KEYS, MODERN_VERSION, ModernErrorCode, TASKS_EXTENSION } from './era.ts';
import { INSTRUCTIONS, serverInfo } from './initialize.ts';
import { ErrorCode, errorResponse, type JsonRpcRequest, resultResponse, type ThrownError } from './jsonrpc.ts';
import { JsonRpcError } from './protocol-errors.ts';
import type { McpScope } from './scope.ts';
import { cancelTask, getTask, taskOf, updateTask } from './tasks.ts';
import { callTool } from './tools-call.ts';
import { toolsListAnswer } from './tools-list.ts';
import { inSchemaOrder } from './types.ts';

/** How long a client may keep the answer of server/discover (any caller) and of tools/list (this caller). */
export const DISCOVER_TTL_MS = 3_600_000;
export const TOOLS_LIST_TTL_MS = 300_000;

/** Who answers, as every modern result's `_meta` names it. */
const serverMeta = (scope: McpScope) => ({ [META_KEYS.serverInfo]: serverInfo(scope.baseUrl) });

const complete = (result: Record<string, unknown>, scope: McpScope) => {
  const meta = result._meta as Record<string, unknown> | undefined;
  return { resultType: 'complete', ...result, _meta: { ...meta, ...serverMeta(scope) } };
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const invalidParams = (message: string) => new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`);

/** An HTTP status and a JSON-RPC response body. */
export interface ModernAnswer {
  status: number;
  text: string;
}

async function resultOf(request: JsonRpcRequest, capabilities: Record<string, unknown>, scope: McpScope): Promise<Record<string, unknown>> {
  const params = request.params ?? {};
  switch (request.method) {
    case 'server/discover':
      return complete(
        {
          supportedVersions: [MODERN_VERSION],
          capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
          instructions: INSTRUCTIONS,
          ttlMs: DISCOVER_TTL_MS,
          cacheScope: 'public',
        },
        scope,
      );
    case 'tools/call': {
      if (typeof params.name !== 'string') throw invalidParams('params.name must be a string');
      if (params.arguments !== undefined && !isPlainObject(params.arguments)) throw invalidParams('params.arguments must be an object');
      const meta = isPlainObject(params._meta) ? params._meta : undefined;
      // A call above its owner's threshold asks first: by form elicitation where the request declares it.
      const consent = {
        elicit: declaresFormElicitation(capabilities),
        requestState: params.requestState,
        inputResponses: params.inputResponses,
      };
      let result: Awaited<ReturnType<typeof callTool>>;
      try {
        result = await callTool(scope, params.name, params.arguments as Record<string, unknown> | undefined, meta, consent);
      } catch (error) {
        if (error instanceof InputRequired) return { ...error.result, _meta: serverMeta(scope) };
        throw error;
      }
      // With the tasks extension, a job started is answered as its task (its id is the job's).
      if (params.name === 'start_job' && declaresTasks(capabilities) && !result.isError && result.structuredContent) {
        return { resultType: 'task', ...taskOf(result.structuredContent as unknown as JobView), _meta: serverMeta(scope) };
      }
      return complete(inSchemaOrder(result), scope);
    }
    default: {
      // tasks/get, tasks/update, tasks/cancel (era.ts lets no other method through).
      if (!declaresTasks(capabilities)) {
        throw new JsonRpcError(
          ModernErrorCode.MissingRequiredClientCapability,
          `${request.method} needs the ${TASKS_EXTENSION} extension declared in the request's client capabilities`,
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        );
      }
      if (request.method === 'tasks/get') return complete(await getTask(scope, params.taskId, mcpMaxResultChars()), scope);
      await (request.method === 'tasks/cancel' ? cancelTask(scope, params.taskId) : updateTask(scope, params.taskId));
      return complete({}, scope);
    }
  }
}

/** The answer to a modern request: its result, or the error a method raised (HTTP 200, but 400 for -32021). */
export async function answerModern(request: JsonRpcRequest, capabilities: Record<string, unknown>, scope: McpScope): Promise<ModernAnswer> {
  try {
    if (request.method === 'tools/list') {
      const extra = { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private', resultType: 'complete', _meta: serverMeta(scope) };
      return { status: 200, text: await toolsListAnswer(request.id, scope, extra) };
    }
    return { status: 200, text: resultResponse(request.id, JSON.stringify(await resultOf(request, capabilities, scope))) };
  } catch (error) {
    const status = (error as ThrownError).code === ModernErrorCode.MissingRequiredClientCapability ? 400 : 200;
    return { status, text: errorResponse(request.id, error as ThrownError) };
  }
}
