/**
 * The social operations as MCP tools: a descriptor becomes a tool, a run's result or refusal
 * becomes a tool result. Pure functions; lib/mcp/server.ts wires them to the protocol.
 */
import { type ServiceError, validationFailed } from '../errors.ts';
import { errorBody } from '../http/error-mapper.ts';
import { MAX_CACHED_AGE_SECONDS, NETWORK_LABELS } from '../model.ts';
import type { OperationDescriptor } from '../social/catalog/index.ts';
import { exampleFields, MAX_FIELD_PATHS, MAX_FIELDS_CHARS } from '../social/fields.ts';
import type { RunResult } from '../social/run.ts';
import { type Cut, sizedResult } from './result-size.ts';
import type { CallToolResult, ObjectSchema, Tool } from './types.ts';

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

/**
 * A schema whose objects require nothing: what a tool's `outputSchema` says, since `_fields` and
 * the cut to MCP_MAX_RESULT_CHARS answer a subset of the output, and MCP clients validate
 * `structuredContent` against it. The REST catalog's schemas keep their `required` lists.
 */
export function requiringNothing(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(requiringNothing);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      // A `required` list, not a property named "required" (whose schema is an object).
      .filter(([key, value]) => !(key === 'required' && Array.isArray(value)))
      .map(([key, value]) => [key, DATA.has(key) ? value : requiringNothing(value)]),
  );
}

/** The `_fields` argument every operation tool takes, with an example of its own output's paths. */
export const fieldsArgument = (outputSchema: Record<string, unknown>, what: string) => ({
  type: 'string',
  maxLength: MAX_FIELDS_CHARS,
  description: `Optional: answer only these parts of ${what}, to save context. Comma-separated dotted paths into the output schema, "*" for every element of an array, e.g. "${exampleFields(outputSchema)}"; a path that ends at an object or an array keeps it whole. Same cost; at most ${MAX_FIELD_PATHS} paths; a path the output schema does not have is refused.`,
});

/** Each operation's schemas as tools give them, rendered once per instance (52 at most). */
const toolSchemas = new Map<string, Pick<Tool, 'inputSchema' | 'outputSchema'>>();
function toolSchemasOf(descriptor: OperationDescriptor): Pick<Tool, 'inputSchema' | 'outputSchema'> {
  let schemas = toolSchemas.get(descriptor.name);
  if (!schemas) {
    const input = portableSchema(descriptor.input_schema) as ObjectSchema;
    schemas = {
      inputSchema: { ...input, properties: { ...input.properties, _fields: fieldsArgument(descriptor.output_schema, 'the output') } },
      outputSchema: requiringNothing(portableSchema(descriptor.output_schema)) as ObjectSchema,
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

/** What a call was, for the advice of a result cut to fit (MCP_MAX_RESULT_CHARS). */
export interface CallContext {
  tool: string;
  /** The `_fields` it was called with (canonical), if any. */
  fields: string | undefined;
  /** The operation's output schema, for an example of `_fields`. */
  outputSchema: Record<string, unknown>;
  /** Credits a run answered from the cached result costs. */
  cachedCost: number;
  maxChars: number;
}

/** How to get what a cut left out: the same call from the cache (free, or at the cached cost), asking for fewer paths. */
export const operationAdvice =
  (call: CallContext, output: Record<string, unknown>) =>
  (cuts: readonly Cut[]): string => {
    const price = call.cachedCost === 0 ? 'for free' : `at its cached cost (${call.cachedCost} credit${call.cachedCost === 1 ? '' : 's'})`;
    const example = exampleFields(call.outputSchema);
    const narrower = call.fields
      ? `"_fields" narrower than "${call.fields}"`
      : `"_fields" naming only what you need${example ? `, e.g. "${example}"` : ''}`;
    const paging =
      typeof output.next_cursor === 'string' && cuts.some((cut) => cut.path === 'items')
        ? ' Read the elements left out before following next_cursor: it continues after the whole page, not after the elements shown.'
        : '';
    return `To get the rest, call ${call.tool} again with the same arguments, ${narrower}, and "_meta": {"max_age": ${MAX_CACHED_AGE_SECONDS}} to read this workspace's cached result ${price} instead of running it again.${paging}`;
  };

/**
 * A run that delivered: its output as structured content, and the same JSON as text for hosts
 * that read only text; cut to fit `maxChars` (lib/mcp/result-size.ts) with a note and `_meta`
 * saying how to get the rest.
 */
export function successResult(result: RunResult, call: CallContext): CallToolResult {
  const output = result.output as Record<string, unknown>;
  const { truncation, ...sized } = sizedResult(output, call.maxChars, { rest: operationAdvice(call, output) });
  return {
    ...sized,
    _meta: {
      credits_charged: result.charged,
      ...(result.remaining === undefined ? {} : { credits_remaining: result.remaining }),
      ...(result.chargeId === undefined ? {} : { charge_id: result.chargeId }),
      ...(result.cacheStatus === undefined ? {} : { cache_status: result.cacheStatus }),
      ...(result.ageSeconds === undefined ? {} : { age: result.ageSeconds }),
      ...(result.sampleData ? { sample_data: true } : {}),
      ...(result.provider === undefined ? {} : { provider: result.provider }),
      ...truncation,
    },
  };
}

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
 * the error body POST /social/{operation} would have answered with; out of credits, `_meta.billing_url`
 * repeats `data.billing_url`.
 */
export function refusalResult(error: ServiceError, requestId: string): CallToolResult {
  const text = JSON.stringify(errorBody(inToolTerms(error), requestId));
  // Out of credits: the link also in `_meta`, where a host shows it without parsing the text.
  const billingUrl = error.details.data?.billing_url;
  return {
    ...(typeof billingUrl === 'string' ? { _meta: { billing_url: billingUrl } } : {}),
    content: [{ type: 'text', text }],
    isError: true,
  };
}
