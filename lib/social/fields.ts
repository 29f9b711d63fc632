/**
 * `fields`: which parts of an operation's output to answer (DESIGN.md, "Outputs sized for
 * agents"; docs/social-operations.md, "Fields"). Comma-separated dotted paths into the output's
 * JSON Schema, `*` standing for every element of an array. Parsed and checked against the schema
 * before anything is read or charged; applied to an output that passed that schema. Pure.
 */
import { type Issue, validationFailed } from '../errors.ts';
import { closestName } from './closest-name.ts';

export const MAX_FIELD_PATHS = 50;
export const MAX_FIELDS_CHARS = 2000;

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema walked by keyword, whose shape JSON Schema (not TypeScript) describes
type Schema = Record<string, any>;

/**
 * What to keep of a value: all of it, some keys of an object (in the schema's order, each with
 * what to keep of its value), or the same of every element of an array. Keys and what to keep of
 * them are parallel arrays: projecting a 1 MB output walks them for every object in it.
 */
export type Keep =
  | { readonly kind: 'whole' }
  | { readonly kind: 'keys'; readonly keys: readonly string[]; readonly children: readonly Keep[] }
  | { readonly kind: 'each'; readonly item: Keep };

/** The paths of a `fields` value, each trimmed, comma-joined: one request's identity, whatever its spaces. */
const splitPaths = (text: string): string[] => text.split(',').map((path) => path.trim());
export const canonicalFields = (text: string): string => splitPaths(text).join(',');

/** A `fields` value and where the request carried it (`query.fields`, `body.fields`, `arguments._fields`), which its 400 names. */
export interface FieldsParam {
  text: string;
  at: Issue['path'];
}

export interface Selection {
  /** The paths as asked, each trimmed, comma-joined: what a request's identity (Idempotency-Key) holds. */
  readonly canonical: string;
  readonly keep: Keep;
}

const WHOLE: Keep = { kind: 'whole' };

/** The alternatives a schema allows, `null` left out (a value null along a path stays null). */
function branches(schema: Schema): Schema[] {
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options)) return options.flatMap((option: Schema) => branches(option));
  if (schema.type === 'null') return [];
  return [schema];
}

const isArray = (schema: Schema): boolean => schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
const propertiesOf = (schema: Schema): Record<string, Schema> | undefined =>
  schema.properties !== null && typeof schema.properties === 'object' ? schema.properties : undefined;

/** A path this schema has, for examples and messages: `id` where there is one, else the first field, through arrays with `*`. */
export function examplePath(schema: Schema, depth = 0): string | undefined {
  for (const branch of branches(schema)) {
    if (isArray(branch)) {
      const rest = depth < 4 && branch.items ? examplePath(branch.items, depth + 1) : undefined;
      return rest === undefined ? '*' : `*.${rest}`;
    }
    const properties = propertiesOf(branch);
    if (properties) {
      const names = Object.keys(properties);
      const name = names.includes('id') ? 'id' : names[0];
      if (name === undefined) return undefined;
      const rest = depth < 4 ? examplePath(properties[name] as Schema, depth + 1) : undefined;
      // A path may end at an array (kept whole): `items` rather than `items.*`.
      return rest === undefined || rest === '*' ? name : `${name}.${rest}`;
    }
  }
  return undefined;
}

/** The scalar fields of an object schema, `id` first, `network` left out (the same in every answer). */
const scalarsOf = (object: Schema): string[] =>
  Object.entries(propertiesOf(object) ?? {})
    .filter(([name, property]) => name !== 'network' && branches(property).every((branch) => !isArray(branch) && !propertiesOf(branch)))
    .map(([name]) => name)
    .sort((a, b) => Number(b === 'id') - Number(a === 'id'));

/**
 * A few paths to leaves of the output: of the elements of its `items` when it is a list, else of
 * the object itself; its own scalar fields first, then those of the objects in it. An example
 * `fields` for the docs, the tools' descriptions and the advice of a cut MCP result.
 */
export function exampleFields(schema: Schema, count = 3): string {
  const [root = {}] = branches(schema);
  const items = propertiesOf(root)?.items;
  const list = items ? branches(items).find(isArray) : undefined;
  const [prefix, element] = list?.items ? ['items.*.', branches(list.items)[0] ?? {}] : ['', root];
  const nested = Object.entries(propertiesOf(element) ?? {}).flatMap(([name, property]) => {
    const object = branches(property).find((branch) => propertiesOf(branch));
    return object ? scalarsOf(object).map((leaf) => `${name}.${leaf}`) : [];
  });
  return [...scalarsOf(element), ...nested]
    .slice(0, count)
    .map((path) => `${prefix}${path}`)
    .join(',');
}

interface Builder {
  whole: boolean;
  /** Object keys, with their position in the schema (answers keep the schema's order). */
  keys: Map<string, { order: number; node: Builder }>;
  each: Builder | undefined;
}

const newBuilder = (): Builder => ({ whole: false, keys: new Map(), each: undefined });

function built(node: Builder): Keep {
  if (node.whole) return WHOLE;
  if (node.each) return { kind: 'each', item: built(node.each) };
  const ordered = [...node.keys.entries()].sort(([, a], [, b]) => a.order - b.order);
  return { kind: 'keys', keys: ordered.map(([key]) => key), children: ordered.map(([, { node: child }]) => built(child)) };
}

/** An issue's message stays short whatever was sent (as lib/errors.ts keeps those of zod's issues). */
const MAX_MESSAGE_CHARS = 200;
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const quoted = (text: string) => JSON.stringify(clip(text, 80));
const named = (segments: readonly string[]) => (segments.length === 0 ? 'the output' : segments.join('.'));

/** Why a path does not fit the schema, or its steps through it: each step the schemas the value may take there. */
function walk(root: Schema, segments: readonly string[]): { issue: Omit<Issue, 'path'> } | { steps: { order: number }[] } {
  let here = branches(root);
  const steps: { order: number }[] = [];
  for (const [index, segment] of segments.entries()) {
    const before = named(segments.slice(0, index));
    if (segment === '*') {
      const arrays = here.filter(isArray);
      if (arrays.length === 0) {
        return { issue: { code: 'not_an_array', message: `${before} is not an array: "*" stands for every element of an array` } };
      }
      here = arrays.flatMap((array) => (array.items ? branches(array.items) : []));
      steps.push({ order: 0 });
      continue;
    }
    const withKey = here.filter((branch) => propertiesOf(branch)?.[segment] !== undefined);
    if (withKey.length === 0) {
      if (here.some(isArray)) {
        const rest = segments.slice(index).join('.');
        return {
          issue: {
            code: 'array_without_star',
            message: `${before} is an array: enter it with "*", e.g. ${quoted(`${before}.*.${rest}`)}, or name ${before} alone to keep it whole`,
          },
        };
      }
      const known = here.flatMap((branch) => Object.keys(propertiesOf(branch) ?? {}));
      if (known.length === 0) return { issue: { code: 'unknown_field', message: `${before} has no fields: the path ends at ${before}` } };
      const near = closestName(segment, known);
      const hint = near ? `did you mean ${quoted(near)}?` : `its fields: ${known.join(', ')}`;
      return { issue: { code: 'unknown_field', message: `${before} has no field ${quoted(segment)}; ${hint}` } };
    }
    const [first] = withKey;
    steps.push({ order: Object.keys(propertiesOf(first as Schema) ?? {}).indexOf(segment) });
    here = withKey.flatMap((branch) => branches((propertiesOf(branch) as Record<string, Schema>)[segment] as Schema));
  }
  return { steps };
}

/**
 * `text` checked against the output schema: at most 2,000 characters and 50 paths (repeats
 * count), each path non-empty and made of segments the schema has, entering an array only
 * through `*`. Every bad path is an issue at `at` (`query.fields`, `body.fields`,
 * `arguments._fields`) naming it: the issues of a 400 `validation_failed`.
 */
export function readFields({ text, at }: FieldsParam, schema: Schema): { selection: Selection } | { issues: Issue[] } {
  const refused = (problems: Omit<Issue, 'path'>[]) => ({
    issues: problems.map(({ code, message }) => ({ path: [...at], code, message: clip(message, MAX_MESSAGE_CHARS) })),
  });
  if (text.length > MAX_FIELDS_CHARS) return refused([{ code: 'too_big', message: `must be at most ${MAX_FIELDS_CHARS} characters long` }]);
  const entries = splitPaths(text);
  if (entries.length === 1 && entries[0] === '') {
    const example = examplePath(schema);
    return refused([{ code: 'too_small', message: `must name at least one path${example ? `, e.g. ${quoted(example)}` : ''}` }]);
  }
  if (entries.length > MAX_FIELD_PATHS) {
    return refused([{ code: 'too_big', message: `must have at most ${MAX_FIELD_PATHS} paths, not ${entries.length}` }]);
  }
  const issues: Omit<Issue, 'path'>[] = [];
  const root = newBuilder();
  for (const [index, entry] of entries.entries()) {
    const segments = entry.split('.');
    if (entry === '') {
      issues.push({ code: 'empty_path', message: `path ${index + 1} of ${entries.length} is empty` });
      continue;
    }
    if (segments.includes('')) {
      issues.push({ code: 'empty_path', message: `${quoted(entry)}: has an empty segment (two dots, or a dot at an end)` });
      continue;
    }
    const walked = walk(schema, segments);
    if ('issue' in walked) {
      issues.push({ code: walked.issue.code, message: `${quoted(entry)}: ${walked.issue.message}` });
      continue;
    }
    let node = root;
    for (const [depth, segment] of segments.entries()) {
      if (node.whole) break;
      if (segment === '*') node = node.each ??= newBuilder();
      else {
        const order = walked.steps[depth]?.order ?? 0;
        const child = node.keys.get(segment) ?? { order, node: newBuilder() };
        node.keys.set(segment, child);
        node = child.node;
      }
    }
    // A path that ends here keeps all of it, whatever longer paths asked below it.
    node.whole = true;
  }
  if (issues.length > 0) return refused(issues);
  return { selection: { canonical: entries.join(','), keep: built(root) } };
}

/** readFields, a refusal thrown as the 400. */
export function parseFields(fields: FieldsParam, schema: Schema): Selection {
  const read = readFields(fields, schema);
  if ('issues' in read) throw validationFailed(read.issues);
  return read.selection;
}

/**
 * The output with only the selected paths, in its own order and shape. Never fails: a value
 * null along a path stays null, a key the output lacks is left out, and a value of another shape
 * than the schema's (a result stored under an older schema) is left out below the point where
 * it differs.
 */
export function project(value: unknown, keep: Keep): unknown {
  if (keep.kind === 'whole' || value === null) return value;
  if (keep.kind === 'each') {
    if (!Array.isArray(value)) return undefined;
    const answer = new Array<unknown>(value.length);
    // An element of another shape is null rather than a hole, which JSON would write as null anyway.
    for (let i = 0; i < value.length; i += 1) answer[i] = project(value[i], keep.item) ?? null;
    return answer;
  }
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const source = value as Record<string, unknown>;
  const answer: Record<string, unknown> = {};
  const { keys, children } = keep;
  // Plain loops, no closures: this runs for every object of the output (docs/performance.md).
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    // Own JSON data: a key that is there has a value other than undefined.
    const child = Object.hasOwn(source, key) ? source[key] : undefined;
    if (child === undefined) continue;
    const what = children[i] as Keep;
    const kept = what.kind === 'whole' ? child : project(child, what);
    if (kept !== undefined) answer[key] = kept;
  }
  return answer;
}
