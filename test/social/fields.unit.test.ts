/**
 * The projection of lib/social/fields.ts on real outputs: for each of the seven networks, its
 * largest output from the sample provider (pages at their largest `count`) and from the
 * ScrapeCreators fixtures (through the http provider's mappings). Each is projected with every
 * path of its schema (the output comes back whole, in its own order), each top-level field alone,
 * and mixed selections, compared with a path-by-path reference; every projection conforms to the
 * tool's outputSchema (no property required). Then what never fails: outputs with missing or
 * extra fields, nulls along a path, a stored result of an older shape.
 */
import { describe, expect, it } from 'vitest';
import { requiringNothing, toolOf } from '../../lib/mcp/tools.ts';
import { CATALOG, descriptor, type OperationDefinition } from '../../lib/social/catalog/index.ts';
import { exampleFields, examplePath, type Keep, parseFields, project } from '../../lib/social/fields.ts';
import { MAPPINGS } from '../../lib/social/providers/scrapecreators/index.ts';
import { testAjv } from '../support/ajv.ts';
import { runMapping } from '../support/scrapecreators/run.ts';
import { largestSampleOutput } from '../support/social.ts';

const ajv = testAjv({ strict: false });

type Json = any;
const AT = ['query', 'fields'];
const keepOf = (operation: OperationDefinition, text: string): Keep =>
  parseFields({ text, at: AT }, descriptor(operation).output_schema).keep;

/** Every path to a leaf of a JSON Schema (a scalar, or an array of scalars), through arrays of objects with `*`. */
function leafPaths(schema: Json, prefix = ''): string[] {
  const branches: Json[] = (schema.anyOf ?? [schema]).filter((branch: Json) => branch.type !== 'null');
  const object = branches.find((branch) => branch.properties);
  if (object) return Object.entries(object.properties).flatMap(([key, child]) => leafPaths(child, prefix ? `${prefix}.${key}` : key));
  const array = branches.find((branch) => branch.type === 'array');
  if (array?.items && leafPaths(array.items, 'x').some((path) => path !== 'x')) return leafPaths(array.items, `${prefix}.*`);
  return [prefix];
}

/** The reference: each path taken alone from the output, the pieces merged. Slow and obvious. */
function pick(value: Json, segments: string[]): Json {
  if (segments.length === 0 || value === null) return value;
  const [segment, ...rest] = segments as [string, ...string[]];
  if (segment === '*') return Array.isArray(value) ? value.map((element) => pick(element, rest)) : undefined;
  if (typeof value !== 'object' || !Object.hasOwn(value, segment)) return {};
  return { [segment]: pick(value[segment], rest) };
}
function merge(a: Json, b: Json): Json {
  if (Array.isArray(a) && Array.isArray(b)) return a.map((element, i) => merge(element, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    return Object.fromEntries(
      [...new Set([...Object.keys(a), ...Object.keys(b)])].map((key) => [
        key,
        key in a ? (key in b ? merge(a[key], b[key]) : a[key]) : b[key],
      ]),
    );
  }
  return a;
}
const reference = (output: Json, paths: string[]) => paths.map((path) => pick(output, path.split('.'))).reduce(merge);

/** Per network, the operation whose output is the largest (its JSON), with that output. */
function largestByNetwork(outputs: [OperationDefinition, Json][]): [string, OperationDefinition, Json][] {
  const largest = new Map<string, [OperationDefinition, Json, number]>();
  for (const [operation, output] of outputs) {
    const size = JSON.stringify(output).length;
    const network = operation.network;
    if (network && size > (largest.get(network)?.[2] ?? -1)) largest.set(network, [operation, output, size]);
  }
  return [...largest.entries()].map(([network, [operation, output]]) => [network, operation, output]);
}

const definitions = [...CATALOG.values()];
const samples = largestByNetwork(
  await Promise.all(definitions.map(async (operation) => [operation, await largestSampleOutput(operation)] as [OperationDefinition, Json])),
);
const vendor = largestByNetwork(
  definitions.filter((operation) => operation.name in MAPPINGS).map((operation) => [operation, runMapping(operation.name as never).output]),
);

describe.each([
  ['the sample provider', samples],
  ['the ScrapeCreators fixtures', vendor],
])('the largest output of each network, from %s', (_, cases) => {
  it('covers the seven networks', () => {
    expect(cases.map(([network]) => network).sort()).toEqual(['facebook', 'instagram', 'linkedin', 'reddit', 'tiktok', 'x', 'youtube']);
  });

  describe.each(
    cases.map(([network, operation, output]) => [`${network} (${operation.name})`, operation, output] as const),
  )('%s', (_, operation, output) => {
    const schema = descriptor(operation).output_schema;
    const outputSchema = toolOf(descriptor(operation)).outputSchema as object;
    const paths = leafPaths(schema);

    it('with every path of its schema, is the output itself, byte for byte', () => {
      expect(JSON.stringify(project(output, keepOf(operation, paths.join(','))))).toBe(JSON.stringify(output));
    });

    it('with each top-level field alone, is that field', () => {
      for (const key of Object.keys(output)) {
        expect(project(output, keepOf(operation, key))).toEqual({ [key]: output[key] });
      }
    });

    it('with mixed selections, is what each path takes, merged, and conforms to the tool’s output schema', () => {
      const selections = [
        exampleFields(schema),
        examplePath(schema) ?? '',
        paths.filter((_path, i) => i % 3 === 0).join(','),
        paths
          .filter((_path, i) => i % 4 === 1)
          .reverse()
          .join(','),
        paths.slice(-5).join(','),
        // A longer path under a shorter one: the shorter keeps its whole.
        [paths[0], paths[0]?.split('.')[0]].join(','),
      ].filter((selection) => selection !== '');
      for (const selection of selections) {
        const projected = project(output, keepOf(operation, selection));
        expect(projected, selection).toEqual(reference(output, selection.split(',')));
        expect(ajv.validate(outputSchema, projected), `${selection}: ${ajv.errorsText()}`).toBe(true);
      }
      // The catalog's own schema still requires what it did: the answer is a subset of it.
      expect(ajv.validate(schema, project(output, keepOf(operation, paths[0] ?? '')))).toBe(false);
    });
  });
});

describe('what a projection never fails on', () => {
  const posts = CATALOG.get('x_user_posts')!;
  const keep = keepOf(posts, 'items.*.id,items.*.author.username,items.*.metrics.likes,next_cursor');

  it('keeps a null along a path as null, and leaves out what the output lacks', () => {
    const output = {
      items: [{ id: '1', author: null, metrics: { likes: 3 } }, { id: '2', metrics: {} }, { author: { username: 'u', extra: 1 } }],
      has_more: false,
    };

    expect(project(output, keep)).toEqual({
      items: [{ id: '1', author: null, metrics: { likes: 3 } }, { id: '2', metrics: {} }, { author: { username: 'u' } }],
    });
  });

  it('leaves out a value of another shape than the schema’s (a result stored under an older schema)', () => {
    const output = { items: [{ id: '1', author: 'someone', metrics: [1] }, 'not a post'], next_cursor: { page: 2 } };

    expect(project(output, keep)).toEqual({ items: [{ id: '1' }, null], next_cursor: { page: 2 } });
    expect(project({ items: 'none' }, keep)).toEqual({});
    expect(project(null, keep)).toBeNull();
  });

  it('never copies a field that was not asked for, extra fields included', () => {
    const output = { items: [{ id: '1', secret: 's', text: 't' }], next_cursor: null, has_more: true, extra: 'x' };

    expect(JSON.stringify(project(output, keepOf(posts, 'items.*.id,has_more')))).toBe('{"items":[{"id":"1"}],"has_more":true}');
  });
});

describe('the examples the docs and tools show', () => {
  it.each(
    definitions.map((operation) => [operation.name, operation] as const),
  )('%s: its example paths are valid for its own schema', (_, operation) => {
    const schema = descriptor(operation).output_schema;

    expect(exampleFields(schema)).not.toBe('');
    expect(() => keepOf(operation, exampleFields(schema))).not.toThrow();
    expect(() => keepOf(operation, examplePath(schema) ?? '')).not.toThrow();
    expect(requiringNothing(schema)).not.toHaveProperty('required');
  });
});
