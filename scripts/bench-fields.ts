/**
 * `npm run bench:fields`: what `fields` and the MCP cut cost, in process, without a database
 * (docs/social-operations.md, "Fields"). A page of x_user_posts built from the sample provider's
 * posts (distinct ids) up to `BENCH_FIELDS_BYTES` of JSON (default 1 MB), then, each timed
 * `BENCH_FIELDS_RUNS` times (default 200) after a warm-up: parsing and checking a `fields` value,
 * projecting the page with three paths, with whole elements and with every path of the schema,
 * and cutting it to the default MCP_MAX_RESULT_CHARS. Prints the median and the 95th percentile.
 * Aim (issue 32): a projection of a 1 MB output under 5 ms. A shared, busy machine inflates
 * the figures: compare runs on one machine, not across machines.
 */
import { performance } from 'node:perf_hooks';
import { DEFAULTS } from '../lib/config.ts';
import { sizedResult } from '../lib/mcp/result-size.ts';
import { allDescriptors } from '../lib/social/catalog/descriptors.ts';
import { CATALOG, descriptor } from '../lib/social/catalog/index.ts';
import { parseFields, project } from '../lib/social/fields.ts';

const bytes = Number(process.env.BENCH_FIELDS_BYTES ?? 1_000_000);
const runs = Number(process.env.BENCH_FIELDS_RUNS ?? 200);

process.env.SOCIAL_PROVIDER ??= 'sample';
// First use in an instance: the descriptors' JSON Schemas are unpacked (once per instance).
const unpackStart = performance.now();
allDescriptors();
const unpackMs = performance.now() - unpackStart;

const { sampleProvider } = await import('../lib/social/providers/sample.ts');
const operation = CATALOG.get('x_user_posts');
if (!operation) throw new Error('x_user_posts is not in the catalog');
const schema = descriptor(operation).output_schema;

/** A page of distinct posts whose JSON is at least `size` characters. */
async function pageOf(size: number): Promise<{ items: Record<string, unknown>[]; next_cursor: string | null; has_more: boolean }> {
  const items: Record<string, unknown>[] = [];
  let length = 0;
  for (let round = 0; length < size; round += 1) {
    const input = operation!.input.parse({ handle: `bench${round}`, count: 50 }) as Record<string, unknown>;
    const page = (await sampleProvider.run({ operation: operation!, input, signal: new AbortController().signal })) as {
      items: Record<string, unknown>[];
    };
    for (const post of page.items) {
      items.push(post);
      length += JSON.stringify(post).length + 1;
    }
  }
  return { items, next_cursor: 'sample-page-2', has_more: true };
}

function leafPaths(node: Record<string, unknown>, prefix: string): string[] {
  const branches = ((node.anyOf as Record<string, unknown>[] | undefined) ?? [node]).filter((branch) => branch.type !== 'null');
  const object = branches.find((branch) => branch.properties);
  if (object) {
    return Object.entries(object.properties as Record<string, Record<string, unknown>>).flatMap(([key, child]) =>
      leafPaths(child, prefix ? `${prefix}.${key}` : key),
    );
  }
  const array = branches.find((branch) => branch.type === 'array');
  const items = array?.items as Record<string, unknown> | undefined;
  if (items && (items.properties || (items.anyOf as unknown[] | undefined)?.length)) return leafPaths(items, `${prefix}.*`);
  return [prefix];
}

function time(name: string, work: () => unknown): { name: string; medianMs: number; p95Ms: number } {
  for (let i = 0; i < 20; i += 1) work();
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    work();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? Number.NaN;
  return { name, medianMs: at(0.5), p95Ms: at(0.95) };
}

const page = await pageOf(bytes);
const json = JSON.stringify(page);
const at = ['query', 'fields'];
const three = 'items.*.id,items.*.text,items.*.metrics.likes';
const every = leafPaths(schema, '').join(',');
const keep = {
  three: parseFields({ text: three, at }, schema).keep,
  whole: parseFields({ text: 'items.*', at }, schema).keep,
  every: parseFields({ text: every, at }, schema).keep,
};
const results = [
  time(`parse and check "${three}"`, () => parseFields({ text: three, at }, schema)),
  time(`parse and check every path (${every.split(',').length})`, () => parseFields({ text: every, at }, schema)),
  time('project: 3 paths', () => project(page, keep.three)),
  time('project: whole elements (items.*)', () => project(page, keep.whole)),
  time('project: every path of the schema', () => project(page, keep.every)),
  time(`MCP cut to ${DEFAULTS.mcpMaxResultChars.toLocaleString('en-US')} characters`, () =>
    sizedResult(page, DEFAULTS.mcpMaxResultChars, { rest: () => 'the rest' }),
  ),
];

console.log(
  `x_user_posts page: ${page.items.length} posts, ${json.length.toLocaleString('en-US')} characters of JSON; ${runs} runs each; node ${process.version}`,
);
console.log(`descriptors unpacked on first use: ${unpackMs.toFixed(1)} ms (once per instance)`);
console.log(`${'what'.padEnd(48)} ${'median ms'.padStart(10)} ${'p95 ms'.padStart(8)}`);
for (const { name, medianMs, p95Ms } of results) {
  console.log(`${name.slice(0, 48).padEnd(48)} ${medianMs.toFixed(3).padStart(10)} ${p95Ms.toFixed(3).padStart(8)}`);
}
