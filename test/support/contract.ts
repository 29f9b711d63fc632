/**
 * The contract check every handler test runs through `call()`: each answer must be one that
 * openapi.json (the committed document, kept fresh by test/openapi.unit.test.ts) describes for its
 * route and status: status listed, body valid against the schema (ajv, draft 2020-12), media
 * type listed, required headers present, and every API header it carries described there.
 */
import { readFileSync } from 'node:fs';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { RESPONSE_HEADERS } from '../../lib/openapi/headers.ts';
import { routePattern, routes } from '../../lib/routes.ts';
import { testAjv } from './ajv.ts';

type Json = Record<string, any>;

export interface DescribedAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const DOCUMENT_ID = 'openapi.json';
const documentText = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');
const document: Json = JSON.parse(documentText);

/** Without a `required` list anywhere: what a run's answer with `fields` is described as (a subset, its parameter says). */
const withoutRequired = (node: unknown): unknown =>
  Array.isArray(node)
    ? node.map(withoutRequired)
    : node !== null && typeof node === 'object'
      ? Object.fromEntries(
          Object.entries(node)
            .filter(([key, value]) => !(key === 'required' && Array.isArray(value)))
            .map(([key, value]) => [key, withoutRequired(value)]),
        )
      : node;

// The whole document is registered as one schema, so that each body schema is compiled (once,
// on first use) with its `$ref`s into components resolved.
function documentAjv(schema: Json): Ajv2020 {
  const ajv = testAjv({ strict: false, allErrors: true, validateSchema: false });
  ajv.addSchema(schema, DOCUMENT_ID);
  return ajv;
}

/**
 * The compiled validators outlive this module: an integration worker evaluates it afresh for each
 * file (test/support/fresh-file.ts), and compiling them again for every file was ~8 CPU-s of a
 * run. Kept per worker for this document's text; ajv lives in node_modules, which the workers keep.
 */
interface Compiled {
  documentText: string;
  ajv: Ajv2020;
  subsetAjv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}
const COMPILED = Symbol.for('workspace-service.test.contract-validators');
const worker = globalThis as typeof globalThis & { [COMPILED]?: Compiled };
if (worker[COMPILED]?.documentText !== documentText)
  worker[COMPILED] = {
    documentText,
    ajv: documentAjv(document),
    subsetAjv: documentAjv(withoutRequired(document) as Json),
    validators: new Map(),
  };
const { ajv, subsetAjv, validators } = worker[COMPILED];

const templated = Object.keys(document.paths as Json)
  .filter((path) => path.includes('{'))
  .map((path) => ({ path, pattern: routePattern(path) }));

/** The document's path for a request: a concrete path (`/social/x_profile`) before a template, with the method. */
function describedPath(method: string, pathname: string): string | undefined {
  const has = (path: string) => document.paths[path]?.[method.toLowerCase()] !== undefined;
  if (has(pathname)) return pathname;
  return templated.find(({ path, pattern }) => has(path) && pattern.test(pathname))?.path;
}

const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Follows a `$ref` within the document (responses and headers are shared as components). */
function resolve(node: Json): { node: Json; pointer: string | undefined } {
  if (typeof node.$ref !== 'string') return { node, pointer: undefined };
  const pointer = node.$ref.slice(1);
  const target = pointer
    .split('/')
    .slice(1)
    .reduce<Json>((at, key) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
  return { node: target, pointer };
}

function validatorAt(pointer: string, subset = false): ValidateFunction {
  const key = `${subset ? 'subset' : 'whole'}:${pointer}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = (subset ? subsetAjv : ajv).compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    validators.set(key, validate);
  }
  return validate;
}

function checkValue(what: string, pointer: string, value: unknown, problems: string[], subset = false) {
  const validate = validatorAt(pointer, subset);
  if (!validate(value)) problems.push(`${what}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`);
}

function checkHeaders(response: Json, responsePointer: string, answer: DescribedAnswer, problems: string[]) {
  const described = new Map(Object.keys(response.headers ?? {}).map((name) => [name.toLowerCase(), name]));
  for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
    const value = answer.headers[name.toLowerCase()];
    if (value === undefined) {
      if (resolve(header).node.required) problems.push(`header ${name} is required but missing`);
      continue;
    }
    const { node, pointer } = resolve(header);
    const schemaPointer = `${pointer ?? `${responsePointer}/headers/${pointerSegment(name)}`}/schema`;
    const typed = ['integer', 'number'].includes(node.schema?.type) && /^-?\d+$/.test(value) ? Number(value) : value;
    checkValue(`header ${name}`, schemaPointer, typed, problems);
  }
  for (const name of Object.keys(RESPONSE_HEADERS)) {
    if (answer.headers[name.toLowerCase()] !== undefined && !described.has(name.toLowerCase())) {
      problems.push(`header ${name} is sent but not described for this response`);
    }
  }
}

/**
 * Throws, naming what differs, unless the document describes this answer. `isDefaultRoute`:
 * the route table's `$default` route answered (no path of the document matches). `subset`: the
 * request asked for `fields`, so a 2xx body is checked without the schema's required lists.
 */
export function assertDescribed(method: string, pathname: string, isDefaultRoute: boolean, answer: DescribedAnswer, subset = false): void {
  const where = `${method} ${pathname} → ${answer.status}`;
  let responsePointer: string;
  if (isDefaultRoute) {
    responsePointer = answer.status === 405 ? '/components/responses/MethodNotAllowed' : '/components/responses/RouteNotFound';
    if (answer.status !== 404 && answer.status !== 405) {
      throw new Error(
        `contract: ${where}: no route of the table matches, so only 404 route_not_found and 405 method_not_allowed are described (a test-only handler: pass contract: false to call())`,
      );
    }
    // A 405 is for a path the document describes under other methods, or a page's (the console's,
    // which the document leaves out); a 404 for one it does not.
    const pages = routes.filter((route) => route.page).map((route) => route.path);
    const described = [...Object.keys(document.paths), ...pages].some((path) => path === pathname || routePattern(path).test(pathname));
    if (described !== (answer.status === 405)) {
      throw new Error(`contract: ${where}: openapi.json ${described ? 'describes' : 'does not describe'} this path`);
    }
  } else {
    const path = describedPath(method, pathname);
    const operation = path ? document.paths[path]?.[method.toLowerCase()] : undefined;
    if (!path || !operation) throw new Error(`contract: ${where}: openapi.json describes no ${method} ${pathname}`);
    const operationPointer = `/paths/${pointerSegment(path)}/${method.toLowerCase()}`;
    const listed = operation.responses[String(answer.status)];
    if (!listed) {
      throw new Error(
        `contract: ${where}: openapi.json lists no ${answer.status} for ${method} ${path} (it lists ${Object.keys(operation.responses).join(', ')})`,
      );
    }
    responsePointer = resolve(listed).pointer ?? `${operationPointer}/responses/${answer.status}`;
  }
  const { node: response } = resolve({ $ref: `#${responsePointer}` });
  const problems: string[] = [];
  const mediaType = (answer.headers['content-type'] ?? '').split(';')[0]!.trim();
  const content = response.content?.[mediaType];
  if (!response.content) {
    if (answer.body !== undefined && answer.body !== '') problems.push('a body is sent but the response is described without one');
  } else if (!content) {
    problems.push(`media type ${mediaType || '(none)'} is not described (${Object.keys(response.content ?? {}).join(', ')})`);
  } else {
    const asSubset = subset && answer.status >= 200 && answer.status < 300;
    checkValue('body', `${responsePointer}/content/${pointerSegment(mediaType)}/schema`, answer.body, problems, asSubset);
  }
  checkHeaders(response, responsePointer, answer, problems);
  if (problems.length > 0) throw new Error(`contract: ${where} does not match openapi.json:\n  ${problems.join('\n  ')}`);
}
