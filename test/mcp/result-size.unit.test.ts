/**
 * Tool results that fit MCP_MAX_RESULT_CHARS (lib/mcp/result-size.ts; docs/mcp.md, "Results that
 * fit"): a result at or under the limit is untouched; over it, arrays are cut to prefixes of whole
 * elements, in turn, as far as they fit, the text and the structured content alike, with a note
 * for the model and `_meta` for code; a single huge string is shortened only when nothing else
 * fits. Every operation's output, cut to the smallest limit allowed, fits and conforms to its
 * tool's outputSchema.
 */
import { describe, expect, it } from 'vitest';
import { MIN_MCP_MAX_RESULT_CHARS } from '../../lib/config.ts';
import { cutToFit, sizedResult } from '../../lib/mcp/result-size.ts';
import { operationAdvice, successResult, toolOf } from '../../lib/mcp/tools.ts';
import { CATALOG, descriptor } from '../../lib/social/catalog/index.ts';
import type { RunResult } from '../../lib/social/run.ts';
import { testAjv } from '../support/ajv.ts';
import { largestSampleOutput } from '../support/social.ts';

const ajv = testAjv({ strict: false });

type Json = any;
const rest = () => 'Ask again for the rest.';
const textOf = (result: { content: { text: string }[] }) => result.content.map((block) => block.text).join('');
const element = (i: number, size = 100) => ({ id: String(i), text: 'x'.repeat(size) });
const page = (count: number, size = 100) => ({
  items: Array.from({ length: count }, (_, i) => element(i, size)),
  next_cursor: 'c2',
  has_more: true,
});

describe('sizedResult', () => {
  it('leaves a result at the limit as it is: one text block, the same JSON, nothing in _meta', () => {
    const value = page(10);
    const limit = JSON.stringify(value).length;

    expect(sizedResult(value, limit, { rest })).toEqual({
      content: [{ type: 'text', text: JSON.stringify(value) }],
      structuredContent: value,
    });
  });

  it('one character over the limit, cuts', () => {
    const value = page(10);

    expect(sizedResult(value, JSON.stringify(value).length - 1, { rest }).truncation).toMatchObject({ truncated: true });
  });

  it('over the limit, cuts the array to the longest prefix of whole elements that fits with its note', () => {
    const value = page(100);
    const full = JSON.stringify(value).length;

    const result = sizedResult(value, 10_000, { rest });

    const [json, note] = result.content;
    expect(textOf(result).length).toBeLessThanOrEqual(10_000);
    expect(JSON.parse(json!.text)).toEqual(result.structuredContent);
    const kept = (result.structuredContent as Json).items.length;
    expect((result.structuredContent as Json).items).toEqual(value.items.slice(0, kept));
    expect(result.structuredContent).toMatchObject({ next_cursor: 'c2', has_more: true });
    // One more element would not have fitted.
    expect(JSON.stringify({ ...value, items: value.items.slice(0, kept + 1) }).length + note!.text.length).toBeGreaterThan(10_000);
    expect(result.truncation).toEqual({
      truncated: true,
      full_chars: full,
      max_chars: 10_000,
      cut: [{ path: 'items', kept, total: 100, unit: 'elements' }],
      rest: 'Ask again for the rest.',
    });
    expect(note!.text).toBe(
      `[This result was cut to fit the 10,000-character limit of a tool result; the whole result is ${full.toLocaleString('en-US')} characters. items keeps its first ${kept} of 100 elements. Ask again for the rest.]`,
    );
  });

  it('takes the elements of several arrays in turn, so that a large one does not empty the others', () => {
    const value = { post: { media: page(50, 400).items, hashtags: Array.from({ length: 200 }, (_, i) => `tag${i}`) }, title: 't' };

    const { value: cut, cuts } = cutToFit(value, 8_000);

    expect(cut.post).toMatchObject({ media: value.post.media.slice(0, (cut.post as Json).media.length) });
    expect((cut.post as Json).media.length).toBeGreaterThan(5);
    expect((cut.post as Json).hashtags.length).toBeGreaterThan(5);
    expect(cuts).toEqual([
      { path: 'post.media', kept: (cut.post as Json).media.length, total: 50, unit: 'elements' },
      { path: 'post.hashtags', kept: (cut.post as Json).hashtags.length, total: 200, unit: 'elements' },
    ]);
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(8_000);
  });

  it('keeps no element rather than part of one, when the first is over the limit by itself', () => {
    const value = page(3, 20_000);

    const result = sizedResult(value, 10_000, { rest });

    expect(result.structuredContent).toEqual({ items: [], next_cursor: 'c2', has_more: true });
    expect(result.truncation?.cut).toEqual([{ path: 'items', kept: 0, total: 3, unit: 'elements' }]);
  });

  it('shortens the longest strings, no shorter than 100 characters, only when the value without its arrays is still over', () => {
    const value = { id: '1', text: `${'é'.repeat(30_000)}😀${'z'.repeat(30_000)}`, title: 'short', media: [element(1)] };

    const result = sizedResult(value, 10_000, { rest });

    expect(textOf(result).length).toBeLessThanOrEqual(10_000);
    const cut = result.structuredContent as Json;
    expect(cut).toMatchObject({ id: '1', title: 'short', media: [] });
    expect(cut.text.endsWith('…')).toBe(true);
    expect(value.text.startsWith(cut.text.slice(0, -1))).toBe(true);
    expect(result.truncation?.cut).toEqual([
      { path: 'media', kept: 0, total: 1, unit: 'elements' },
      { path: 'text', kept: expect.any(Number), total: 60_002, unit: 'characters' },
    ]);
  });

  it('never splits a surrogate pair when it shortens a string', () => {
    const value = { text: '😀'.repeat(20_000) };

    const cut = cutToFit(value, 5_001).value as Json;

    expect(cut.text.endsWith('…')).toBe(true);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(cut.text)).toBe(false);
  });
});

describe('the advice of a cut operation result', () => {
  const schema = descriptor(CATALOG.get('x_user_posts')!).output_schema;
  const call = { tool: 'x_user_posts', fields: undefined, outputSchema: schema, cachedCost: 0, maxChars: 10_000 };
  const cut = [{ path: 'items', kept: 3, total: 20, unit: 'elements' as const }];

  it('says how to get the rest for free from the cache, with an example of _fields, and not to page on past it', () => {
    expect(operationAdvice(call, { next_cursor: 'c2' })(cut)).toBe(
      'To get the rest, call x_user_posts again with the same arguments, "_fields" naming only what you need, e.g. "items.*.id,items.*.url,items.*.type", and "_meta": {"max_age": 86400} to read this workspace\'s cached result for free instead of running it again. Read the elements left out before following next_cursor: it continues after the whole page, not after the elements shown.',
    );
  });

  it('asks for narrower _fields than those given, names a cached cost, and leaves paging out on a last page', () => {
    expect(operationAdvice({ ...call, fields: 'items.*', cachedCost: 2 }, { next_cursor: null })(cut)).toBe(
      'To get the rest, call x_user_posts again with the same arguments, "_fields" narrower than "items.*", and "_meta": {"max_age": 86400} to read this workspace\'s cached result at its cached cost (2 credits) instead of running it again.',
    );
  });
});

/** Every string of `value` made `length` characters long: the worst a provider could answer. */
const stretched = (value: Json, length: number): Json =>
  typeof value === 'string'
    ? value.padEnd(length, 'w')
    : Array.isArray(value)
      ? value.map((element) => stretched(element, length))
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([key, child]) => [key, stretched(child, length)]))
        : value;

describe.each([...CATALOG.values()].map((operation) => [operation.name, operation] as const))('%s', (name, operation) => {
  const tool = toolOf(descriptor(operation));
  const run = (output: unknown): RunResult => ({
    output,
    charged: 1,
    remaining: 1,
    replayed: false,
    chargeId: 'evt_1',
    cacheStatus: undefined,
    ageSeconds: undefined,
    sampleData: true,
  });
  const call = {
    tool: name,
    fields: undefined,
    outputSchema: descriptor(operation).output_schema,
    cachedCost: 0,
    maxChars: MIN_MCP_MAX_RESULT_CHARS,
  };

  it('cut to the smallest limit allowed, fits, and its structured content conforms to the tool’s outputSchema', async () => {
    const output = await largestSampleOutput(operation);
    const doubled = Array.isArray(output.items) ? { ...output, items: [...output.items, ...output.items, ...output.items] } : output;

    const result = successResult(run(doubled), call);

    expect(textOf(result).length).toBeLessThanOrEqual(MIN_MCP_MAX_RESULT_CHARS);
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
    expect(ajv.validate(tool.outputSchema as object, result.structuredContent), ajv.errorsText()).toBe(true);
  });

  it('fits the smallest limit allowed even with every string 20,000 characters long', async () => {
    const result = successResult(run(stretched(await largestSampleOutput(operation), 20_000)), call);

    expect(textOf(result).length).toBeLessThanOrEqual(MIN_MCP_MAX_RESULT_CHARS);
    expect(result._meta).toMatchObject({ truncated: true, max_chars: MIN_MCP_MAX_RESULT_CHARS });
  });
});
