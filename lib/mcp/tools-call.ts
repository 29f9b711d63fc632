/**
 * tools/call: the run path of POST /social/{operation} as an MCP tool, and its JSON-RPC response.
 */

import { withBillingUrl } from '../billing/billing-url.ts';
import { MAX_CREDITS_RULE, maxCreditsNumber } from '../billing/max-credits.ts';
import { mcpMaxResultChars } from '../config.ts';
import { type Issue, validationFailed } from '../errors.ts';
import { logger } from '../log.ts';
import { MAX_CACHED_AGE_SECONDS } from '../model.ts';
import { descriptors } from '../social/catalog/index.ts';
import { OPERATION_NAMES } from '../social/catalog/names.ts';
import { canonicalFields, type FieldsParam } from '../social/fields.ts';
import { runSocialOperation } from '../social/run.ts';
import { BUDGET_TOOL_NAME, callBudgetTool } from './budget-tool.ts';
import {
  answerOf,
  argumentsDigest,
  CONFIRM_TOKEN_ARGUMENT,
  type ConsentCall,
  ConsentNeeded,
  confirmationRequired,
  consentGate,
  InputRequired,
  inputRequired,
} from './consent.ts';
import { callJobTool, isJobTool } from './job-tools.ts';
import { errorResponse, type RequestId, resultResponse, type ThrownError } from './jsonrpc.ts';
import { asServiceError, JsonRpcError, unknownTool } from './protocol-errors.ts';
import type { McpScope } from './scope.ts';
import { callStatusTool, STATUS_TOOL_NAME } from './status-tool.ts';
import { refusalResult, successResult } from './tools.ts';
import { type CallToolResult, inSchemaOrder } from './types.ts';

const knownTool = (name: string): boolean =>
  (OPERATION_NAMES as readonly string[]).includes(name) || isJobTool(name) || name === BUDGET_TOOL_NAME || name === STATUS_TOOL_NAME;

/**
 * The request's `_meta.max_age` (seconds, 0 to 86400): what `Cache-Control: max-age` is to a REST
 * run, for agents whose host passes `_meta` and not headers.
 */
function maxAgeOf(meta: Record<string, unknown> | undefined): number | undefined {
  const value = meta?.max_age;
  if (value === undefined) return undefined;
  if (Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_CACHED_AGE_SECONDS) return value as number;
  throw validationFailed([
    {
      path: ['_meta', 'max_age'],
      code: 'invalid_value',
      message: `_meta.max_age: must be a whole number of seconds, 0 to ${MAX_CACHED_AGE_SECONDS}`,
    },
  ]);
}

/** Where a tool takes `fields`: its `_fields` argument, beside the operation's own (which never start with "_"). */
const FIELDS_AT: Issue['path'] = ['arguments', '_fields'];

/** The `_fields` argument (a string), and the arguments without it. */
function fieldsArgumentOf(args: Record<string, unknown> | undefined): {
  fields: FieldsParam | undefined;
  rest: Record<string, unknown>;
} {
  const { _fields, ...rest } = args ?? {};
  if (_fields === undefined) return { fields: undefined, rest };
  if (typeof _fields !== 'string') {
    throw validationFailed([
      { path: [...FIELDS_AT], code: 'invalid_type', message: 'must be a string of comma-separated paths, e.g. "items.*.id,items.*.text"' },
    ]);
  }
  return { fields: { text: _fields, at: FIELDS_AT }, rest };
}

/**
 * The request's `_meta.max_credits` (0 to 1,000,000): what `Max-Credits` is to a REST run, the
 * most this call may be charged (402 `max_credits_exceeded` above it, nothing charged).
 */
function maxCreditsOf(meta: Record<string, unknown> | undefined): number | undefined {
  const value = meta?.max_credits;
  if (value === undefined) return undefined;
  const parsed = maxCreditsNumber().safeParse(value);
  if (parsed.success) return parsed.data;
  throw validationFailed([{ path: ['_meta', 'max_credits'], code: 'invalid_value', message: MAX_CREDITS_RULE }]);
}

/**
 * How a call may be asked for consent: with `elicit` (a 2026-07-28 request declaring form
 * elicitation) by an `input_required` result, whose retry brings `requestState` and
 * `inputResponses` back; otherwise by a `confirmation_required` refusal with a token.
 */
export interface ConsentOptions {
  elicit: boolean;
  requestState?: unknown;
  inputResponses?: unknown;
}

/** The call as its consent sees it: the token taken out of the arguments, the rest digested. */
function consentCallOf(name: string, args: Record<string, unknown>, meta: Record<string, unknown> | undefined, options?: ConsentOptions) {
  const { [CONFIRM_TOKEN_ARGUMENT]: token, ...rest } = args;
  const call: ConsentCall = { tool: name, digest: argumentsDigest(name, rest, meta) };
  if (options?.elicit && options.requestState !== undefined) {
    call.presented = { form: 'state', value: options.requestState, answer: answerOf(options.inputResponses) };
  } else if (token !== undefined) {
    call.presented = { form: 'token', value: token };
  }
  return { call, rest };
}

/** The run path of POST /social/{operation}, whole: role, network, credits and limits, consent, cache, charge, provider, refund. */
export async function callTool(
  scope: McpScope,
  name: string,
  args: Record<string, unknown> | undefined,
  meta?: Record<string, unknown>,
  consent?: ConsentOptions,
): Promise<CallToolResult> {
  logger.appendKeys({ mcp_method: 'tools/call' });
  // Only a name the catalog does not know is a protocol error; a known operation this workspace
  // may not run is a refusal the agent can read (operation_not_enabled).
  if (!knownTool(name)) throw unknownTool(name);
  logger.appendKeys({ tool: name });
  try {
    // Read before anything runs: a bad setting must not leave a paid run without its answer.
    const maxChars = mcpMaxResultChars();
    // Checked on every tool: start_job takes it as its job's cap, the tools that charge nothing ignore it.
    const maxCredits = maxCreditsOf(meta);
    if (name === BUDGET_TOOL_NAME) return await callBudgetTool(scope, args);
    if (name === STATUS_TOOL_NAME) return await callStatusTool(args);
    if (name !== 'start_job' && isJobTool(name)) return await callJobTool(scope, name, args, maxChars, maxCredits);
    // The tools that spend: their consent is asked and spent on the way to the charge (lib/mcp/consent.ts).
    const { call, rest: paidArgs } = consentCallOf(name, args ?? {}, meta, consent);
    try {
      return await callPaidTool(scope, name, paidArgs, meta, maxChars, maxCredits, consentGate(scope, call));
    } catch (error) {
      if (!(error instanceof ConsentNeeded)) throw error;
      if (consent?.elicit) throw new InputRequired(await inputRequired(scope, call, paidArgs, error));
      throw await confirmationRequired(scope, call, error);
    }
  } catch (error) {
    // Protocol answers, not refusals: the question of a modern call, a requestState refused (-32602).
    if (error instanceof InputRequired || error instanceof JsonRpcError) throw error;
    // Out of credits: where an owner buys them, in the text's `data` and in `_meta` (refusalResult).
    const refusal = asServiceError(withBillingUrl(error, scope.baseUrl, scope.orgId), scope);
    logger.appendKeys({ tool_error: refusal.code });
    return refusalResult(refusal, scope.requestId);
  }
}

/** start_job, or an operation's run. */
async function callPaidTool(
  scope: McpScope,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  maxChars: number,
  maxCredits: number | undefined,
  consent: ReturnType<typeof consentGate>,
): Promise<CallToolResult> {
  if (name === 'start_job') return await callJobTool(scope, name, args, maxChars, maxCredits, consent);
  const { fields, rest } = fieldsArgumentOf(args);
  const result = await runSocialOperation({
    caller: scope.caller,
    orgId: scope.orgId,
    operationName: name,
    input: rest,
    maxAgeSeconds: maxAgeOf(meta),
    fields,
    maxCredits,
    requestId: scope.requestId,
    deadlineMs: scope.deadlineMs,
    consent,
  });
  const descriptor = descriptors().get(name);
  return successResult(result, {
    tool: name,
    fields: fields && canonicalFields(fields.text),
    outputSchema: descriptor?.output_schema ?? {},
    cachedCost: descriptor?.cached_cost ?? 0,
    maxChars,
  });
}

/**
 * The JSON-RPC response to a tools/call whose params are valid (lib/mcp/dispatch.ts): the result,
 * or the JSON-RPC error thrown (an unknown tool), as the SDK's Server wrote them. The SDK checked
 * the result against its `CallToolResultSchema` before answering it; ours are built to that shape
 * (lib/mcp/types.ts, checked by the compiler against the SDK's type), so only the schema's key
 * order is kept.
 */
export async function toolsCallAnswer(
  id: RequestId,
  params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
  scope: McpScope,
): Promise<string> {
  let result: CallToolResult;
  try {
    result = await callTool(scope, params.name, params.arguments, params._meta);
  } catch (error) {
    return errorResponse(id, error as ThrownError);
  }
  return resultResponse(id, JSON.stringify(inSchemaOrder(result)));
}
