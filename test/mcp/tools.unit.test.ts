/**
 * One source, two renderings: GET /social/operations lists the catalog's JSON Schemas as zod
 * writes them (a nullable field is `type: [T, "null"]`, legal JSON Schema); MCP tools carry the
 * same schemas with each type array split into `anyOf` branches of one `type` each, which the
 * MCP Inspector accepts without a portability warning and single-`type` hosts can map. Both
 * renderings accept the same values.
 */
import * as sdk from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import { forbidden } from '../../lib/errors.ts';
import { JOB_TOOLS } from '../../lib/mcp/job-tools.ts';
import { portableSchema, refusalResult, requiringNothing, successResult, toolOf } from '../../lib/mcp/tools.ts';
import { type CallToolResult, inSchemaOrder, type Tool } from '../../lib/mcp/types.ts';
import { allDescriptors } from '../../lib/social/catalog/descriptors.ts';
import { EXAMPLE_INPUTS } from '../../lib/social/catalog/examples.ts';
import { CATALOG } from '../../lib/social/catalog/index.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { testAjv } from '../support/ajv.ts';

const ajv = testAjv({ strict: false });
const descriptors = [...allDescriptors().values()];

/** Every `type` array under a schema, by where it is. */
function typeArrays(node: unknown, at = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => typeArrays(item, `${at}[${i}]`));
  if (node === null || typeof node !== 'object') return [];
  const here = Array.isArray((node as { type?: unknown }).type) ? [at] : [];
  return [...here, ...Object.entries(node).flatMap(([key, value]) => typeArrays(value, `${at}.${key}`))];
}

describe('portableSchema', () => {
  const listed = {
    type: 'object',
    properties: {
      name: { type: ['string', 'null'], description: 'the name', minLength: 1 },
      verified: { type: ['boolean', 'null'] },
      tags: { type: 'array', items: { type: ['string', 'null'] } },
      kind: { type: 'string', enum: ['a', 'b'] },
      // A property named like a keyword is a property.
      type: { type: ['string', 'null'] },
    },
    required: ['name', 'type'],
  };

  it('splits each type array into anyOf branches, annotations beside, constraints inside', () => {
    expect(portableSchema(listed)).toEqual({
      type: 'object',
      properties: {
        name: { description: 'the name', anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] },
        verified: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
        tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        kind: { type: 'string', enum: ['a', 'b'] },
        type: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['name', 'type'],
    });
  });

  it('accepts and refuses the same values as the listing', () => {
    const [listing, tool] = [ajv.compile(listed), ajv.compile(portableSchema(listed) as object)];
    const values = [
      { name: 'x', verified: true, tags: ['a', null], kind: 'a', type: 't' },
      { name: null, verified: null, tags: [], kind: 'b', type: null },
      { name: '', verified: null, tags: [], type: null },
      { name: 5, verified: null, tags: [], type: null },
      { name: 'x', verified: 'yes', tags: [], type: null },
      { name: 'x', verified: null, tags: [1], type: null },
      { name: 'x', verified: null, tags: [], kind: 'c', type: null },
      { name: 'x', verified: null, tags: [], type: 3 },
      { verified: null, tags: [], type: null },
    ];

    expect(values.map((value) => tool(value))).toEqual(values.map((value) => listing(value)));
    expect(values.map((value) => tool(value))).toEqual([true, true, false, false, false, false, false, false, false]);
  });
});

describe('requiringNothing', () => {
  it('drops every required list, and keeps a property named "required"', () => {
    const schema = {
      type: 'object',
      properties: {
        required: { type: 'boolean' },
        inner: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'null' }] },
        list: { type: 'array', items: { type: 'object', properties: { b: { enum: ['required'] } }, required: ['b'] } },
      },
      required: ['required', 'inner', 'list'],
    };

    expect(requiringNothing(schema)).toEqual({
      type: 'object',
      properties: {
        required: { type: 'boolean' },
        inner: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'null' }] },
        list: { type: 'array', items: { type: 'object', properties: { b: { enum: ['required'] } } } },
      },
    });
  });
});

describe('the 52 tools', () => {
  it('carry no type array, while the listing keeps its JSON Schemas (568 type arrays)', () => {
    const listing = descriptors.flatMap((descriptor) => [...typeArrays(descriptor.input_schema), ...typeArrays(descriptor.output_schema)]);
    const tools = descriptors.map(toolOf).flatMap((tool) => [...typeArrays(tool.inputSchema), ...typeArrays(tool.outputSchema)]);

    expect(descriptors).toHaveLength(52);
    expect(listing).toHaveLength(568);
    expect(tools).toEqual([]);
  });

  it('take _fields, and their output schemas require nothing (a projected or cut result conforms)', () => {
    const requiredLists = (node: unknown): number =>
      Array.isArray(node)
        ? node.reduce((sum: number, item) => sum + requiredLists(item), 0)
        : node !== null && typeof node === 'object'
          ? Object.entries(node).reduce(
              (sum, [key, value]) => sum + (key === 'required' && Array.isArray(value) ? 1 : requiredLists(value)),
              0,
            )
          : 0;
    const tools = descriptors.map(toolOf);

    expect(tools.filter((tool) => tool.inputSchema.properties?._fields === undefined)).toEqual([]);
    expect(tools.map((tool) => requiredLists(tool.outputSchema))).toEqual(tools.map(() => 0));
    // The listing keeps them.
    expect(descriptors.every((descriptor) => requiredLists(descriptor.output_schema) > 0)).toBe(true);
  });

  it.each(
    descriptors.map((descriptor) => [descriptor.name, descriptor] as const),
  )('%s: its sample output is valid against both renderings of its output schema', async (name, descriptor) => {
    const operation = CATALOG.get(name)!;
    const input = z.parse(operation.input, EXAMPLE_INPUTS[name]) as Record<string, unknown>;
    const output = await sampleProvider.run({ operation, input, signal: new AbortController().signal });

    expect(ajv.validate(descriptor.output_schema, output)).toBe(true);
    expect(ajv.validate(toolOf(descriptor).outputSchema as object, output)).toBe(true);
  });
});

describe("the MCP shapes, against the SDK's", () => {
  it("are the SDK's types, narrowed", () => {
    expectTypeOf<Tool>().toExtend<sdk.Tool>();
    expectTypeOf<CallToolResult>().toExtend<sdk.CallToolResult>();
  });

  it("lists every tool as the SDK's schema reads it, unchanged", () => {
    const tools = [...descriptors.map(toolOf), ...JOB_TOOLS];

    expect(tools.map((tool) => sdk.ToolSchema.parse(tool))).toEqual(tools);
  });

  it("orders a tool result's keys as the SDK's CallToolResultSchema does (its answers' bytes)", () => {
    const run = {
      output: { network: 'x' },
      charged: 1,
      remaining: 4,
      replayed: false,
      chargeId: 'evt_1',
      cacheStatus: 'hit',
      ageSeconds: 3,
    };
    const call = { tool: 'x_profile', fields: undefined, outputSchema: {}, cachedCost: 0, maxChars: 100_000 };
    const results: CallToolResult[] = [
      successResult({ ...run, sampleData: true }, call),
      successResult(
        {
          ...run,
          remaining: undefined,
          chargeId: undefined,
          cacheStatus: undefined,
          ageSeconds: undefined,
          sampleData: false,
        },
        call,
      ),
      refusalResult(forbidden('no'), 'req-1'),
      { content: [{ type: 'text', text: '{}' }], structuredContent: { a: 1 } },
      { isError: true, structuredContent: { b: 2 }, content: [], _meta: { c: 3 } },
    ];

    expect(results.map((result) => JSON.stringify(inSchemaOrder(result)))).toEqual(
      results.map((result) => JSON.stringify(sdk.CallToolResultSchema.parse(result))),
    );
  });
});
