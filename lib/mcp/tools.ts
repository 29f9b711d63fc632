/**
 * The social operations as MCP tools: a descriptor becomes a tool, a run's result or refusal
 * becomes a tool result. Pure functions; lib/mcp/server.ts wires them to the protocol.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type ServiceError, validationFailed } from '../errors.ts';
import { errorBody } from '../http/error-mapper.ts';
import { NETWORK_LABELS } from '../model.ts';
import type { OperationDescriptor } from '../social/catalog/index.ts';
import type { RunResult } from '../social/run.ts';

/** `tiktok_user_posts` → "TikTok user posts"; `resolve_mention` → "Resolve mention". */
export function toolTitle(descriptor: OperationDescriptor): string {
  const words = descriptor.name.split('_');
  if (descriptor.network) return [NETWORK_LABELS[descriptor.network], ...words.slice(1)].join(' ');
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}

/**
 * One operation as a tool: its description (with its cost), its input and output JSON Schemas as
 * the listing gives them, and the hints an agent's host uses to decide about confirmation: a
 * social operation only reads (nothing changes anywhere, though it spends credits), and it
 * reaches out to the open web.
 */
export const toolOf = (descriptor: OperationDescriptor): Tool => ({
  name: descriptor.name,
  title: toolTitle(descriptor),
  description: descriptor.description,
  inputSchema: descriptor.input_schema as Tool['inputSchema'],
  outputSchema: descriptor.output_schema as NonNullable<Tool['outputSchema']>,
  annotations: { readOnlyHint: true, openWorldHint: true },
  _meta: { cost: descriptor.cost, cached_cost: descriptor.cached_cost },
});

/** A run that delivered: its output as structured content, and the same JSON as text for hosts that read only text. */
export const successResult = (result: RunResult): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(result.output) }],
  structuredContent: result.output as Record<string, unknown>,
  _meta: {
    credits_charged: result.charged,
    ...(result.remaining === undefined ? {} : { credits_remaining: result.remaining }),
    ...(result.chargeId === undefined ? {} : { charge_id: result.chargeId }),
    ...(result.cacheStatus === undefined ? {} : { cache_status: result.cacheStatus }),
    ...(result.ageSeconds === undefined ? {} : { age: result.ageSeconds }),
    ...(result.sampleData ? { sample_data: true } : {}),
  },
});

/**
 * The run path reports invalid input at `body.<field>` (what POST /social/{operation} takes);
 * a tool's input is its `arguments`, so the issues and the message name that instead.
 */
function inToolTerms(error: ServiceError): ServiceError {
  const issues = error.details.issues;
  if (error.code !== 'validation_failed' || !issues?.length) return error;
  return validationFailed(
    issues.map((issue) => ({ ...issue, path: issue.path[0] === 'body' ? ['arguments', ...issue.path.slice(1)] : issue.path })),
  );
}

/**
 * A refused or failed run (validation, credits, role, network, upstream): a tool result with
 * `isError`, so that the agent reads why and can adapt, rather than a protocol error. The text is
 * the error body POST /social/{operation} would have answered with.
 */
export function refusalResult(error: ServiceError, requestId: string): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(errorBody(inToolTerms(error), requestId)) }], isError: true };
}
