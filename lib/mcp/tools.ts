/**
 * The social operations as MCP tools: a descriptor becomes a tool, a run's result or refusal
 * becomes a tool result. Pure functions; lib/mcp/server.ts wires them to the protocol.
 */
import { type ServiceError, validationFailed } from '../errors.ts';
import { errorBody } from '../http/error-mapper.ts';
import { NETWORK_LABELS } from '../model.ts';
import type { OperationDescriptor } from '../social/catalog/index.ts';
import type { RunResult } from '../social/run.ts';
import type { CallToolResult, Tool } from './types.ts';

/** `tiktok_user_posts` → "TikTok user posts"; `resolve_mention` → "Resolve mention". */
export function toolTitle(descriptor: OperationDescriptor): string {
  const words = descriptor.name.split('_');
  if (descriptor.network) return [NETWORK_LABELS[descriptor.network], ...words.slice(1)].join(' ');
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}

/** Keywords about the whole value, kept beside `anyOf` rather than inside a branch. */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
/** Keywords whose values are data, not schemas: copied as they are. */
const DATA = new Set(['enum', 'const', 'default', 'examples', 'required']);

/**
 * A JSON Schema as agent hosts take it: each `type: [T, "null"]` (which zod writes for a
 * nullable field, and which GET /social/operations keeps, as JSON Schema allows) becomes
 * `anyOf: [{ type: T, …its constraints }, { type: "null" }]`. Some hosts map a tool onto a dialect
 * with a single `type` (the OpenAPI subset of Gemini's function declarations) and reject or drop
 * a type array; the MCP Inspector warns about each (568 in our 52 tools). Same values accepted.
 */
export function portableSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portableSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, DATA.has(key) ? value : portableSchema(value)]));
  const { type, ...rest } = copy;
  if (!Array.isArray(type)) return copy;
  const annotations = Object.fromEntries(Object.entries(rest).filter(([key]) => ANNOTATIONS.has(key)));
  const constraints = Object.fromEntries(Object.entries(rest).filter(([key]) => !ANNOTATIONS.has(key)));
  return { ...annotations, anyOf: type.map((one) => (one === 'null' ? { type: 'null' } : { type: one, ...constraints })) };
}

/** Each operation's schemas as tools give them, rendered once per instance (52 at most). */
const toolSchemas = new Map<string, Pick<Tool, 'inputSchema' | 'outputSchema'>>();
function toolSchemasOf(descriptor: OperationDescriptor): Pick<Tool, 'inputSchema' | 'outputSchema'> {
  let schemas = toolSchemas.get(descriptor.name);
  if (!schemas) {
    schemas = {
      inputSchema: portableSchema(descriptor.input_schema) as Tool['inputSchema'],
      outputSchema: portableSchema(descriptor.output_schema) as NonNullable<Tool['outputSchema']>,
    };
    toolSchemas.set(descriptor.name, schemas);
  }
  return schemas;
}

/**
 * One operation as a tool: its description (with its cost), its input and output JSON Schemas
 * (the listing's, rendered portable: `portableSchema`), and the hints an agent's host uses to decide about confirmation: a
 * social operation only reads (nothing changes anywhere, though it spends credits), and it
 * reaches out to the open web.
 */
export const toolOf = (descriptor: OperationDescriptor): Tool => ({
  name: descriptor.name,
  title: toolTitle(descriptor),
  description: descriptor.description,
  ...toolSchemasOf(descriptor),
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
