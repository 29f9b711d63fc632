/**
 * The OpenAPI 3.1 document of the service, generated from what already defines the API: the
 * route table (paths, summaries, the codes each route answers), the schemas each endpoint()
 * handler validates its requests with (`handler.endpoint`), each function module's
 * `responseSchema` (and `responseHeaders`, `responseMediaTypes`), the error catalog, and the
 * social catalog (one path per operation, with its schemas and cost). No schema is written here.
 *
 * Tooling, not a request path: `npm run openapi` writes the result to openapi.json, which
 * GET /openapi.json serves (it imports that file, never this module). Decisions: docs/openapi.md.
 */
import * as z from 'zod';
import { defined } from '../defined.ts';
import { ERROR_CATALOG, type ErrorCode } from '../errors.ts';
import type { EndpointDescription } from '../http/endpoint.ts';
import { errorBodySchema } from '../http/error-body.ts';
import { API_VERSION } from '../http/request-context.ts';
import type { InputSchemas } from '../http/validate.ts';
import { type Route, routes as routeTable } from '../routes.ts';
import { EXAMPLE_INPUTS } from '../social/catalog/examples.ts';
import { CATALOG, descriptor } from '../social/catalog/index.ts';
import { exampleFields } from '../social/fields.ts';
import { PROVIDERS } from '../social/providers/index.ts';
import { type HeaderDescription, REQUEST_HEADERS, RESPONSE_HEADERS } from './headers.ts';
import { SharedSchemas } from './shared-schemas.ts';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document walked and built by path, whose shape JSON Schema (not TypeScript) describes
type Json = Record<string, any>;

/** What the generator reads from a function module. */
export interface RouteModule {
  handler: { endpoint?: EndpointDescription };
  /** The 200 body (JSON unless responseMediaTypes says otherwise). */
  responseSchema?: z.core.$ZodType;
  /** Media types of the 200 body, when it is not JSON (the docs page and its assets). */
  responseMediaTypes?: readonly string[];
  /** Other media types the 200 body may take beside JSON (`Accept: text/csv`), each with its schema and example. */
  responseAlternatives?: Readonly<Record<string, { schema: Json; example?: string }>>;
  /** Headers of the 200 answer beyond those every answer carries (names of RESPONSE_HEADERS). */
  responseHeaders?: readonly string[];
  /** The status of the body `responseSchema` describes, when it is not 200 (a creation's 201). */
  successStatus?: number;
  /** Success statuses without a body besides 200 (a 202 for a notification, …), with what each means. */
  otherResponses?: Readonly<Record<string, string>>;
  /** Headers of those statuses beyond those every answer carries (a redirect's `Location`). */
  otherResponseHeaders?: Readonly<Record<string, readonly string[]>>;
  /**
   * The request body of an endpoint() route that reads its body itself (the MCP route: the MCP
   * transport validates it), with an example.
   */
  requestBodySchema?: z.core.$ZodType;
  requestBodyExample?: unknown;
  /** For a route whose method is `ANY`: the methods the document describes it under. */
  methods?: readonly string[];
}

export const OPENAPI_VERSION = '3.1.1';
const JSON_TYPE = 'application/json';
/** The run route's path: each catalog operation gets its own copy of it. */
const RUN_PATH = '/social/{operation}';
const CROSS_NETWORK_TAG = 'cross-network';

/** Imports every route's function module, as the local server does. */
export async function loadRouteModules(table: readonly Route[] = routeTable): Promise<Map<string, RouteModule>> {
  const modules = new Map<string, RouteModule>();
  for (const route of table) {
    modules.set(route.name, (await import(new URL(`../../${route.entry}`, import.meta.url).href)) as RouteModule);
  }
  return modules;
}

export async function generateDocument(): Promise<Json> {
  return buildDocument(routeTable, await loadRouteModules());
}

/** zod → JSON Schema (draft 2020-12, OpenAPI 3.1's dialect), without the `$schema` line. */
function jsonSchema(schema: z.core.$ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    // A parameter left out takes its default: say so, also where the default sits behind a
    // transform (integer query parameters), which zod leaves out of input schemas.
    override: ({ zodSchema, jsonSchema: generated }) => {
      const def = zodSchema._zod.def as { type: string; defaultValue?: unknown };
      if (io === 'input' && def.type === 'default' && generated.default === undefined) generated.default = def.defaultValue;
    },
  }) as Json;
  return rest;
}

/** Without its `$schema` line: the catalog's descriptors carry one, the document's dialect is implied. */
function withoutDialect(schema: Record<string, unknown>): Json {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const canonicalHeader = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());

// ---------------------------------------------------------------- requests

type Location = 'path' | 'query' | 'header';

function parametersOf(location: Location, schema: z.core.$ZodType | undefined): Json[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input');
  const required = new Set<string>(object.required ?? []);
  return Object.entries<Json>(object.properties ?? {}).map(([name, property]) => {
    const { description, examples, ...rest } = property;
    return {
      name: location === 'header' ? canonicalHeader(name) : name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
      ...(examples?.[0] !== undefined ? { example: examples[0] } : {}),
    };
  });
}

/** Path parameters of a route built on baseChain(), which validates none: from the route's `pathParameters`. */
function templateParameters(route: Route): Json[] {
  return [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
    const schema = route.pathParameters?.[name];
    if (!schema)
      throw new Error(`openapi: route ${route.name} has the path parameter ${name}; its pathParameters in lib/routes.ts describe it`);
    const { description, ...rest } = schema;
    return { name, in: 'path', required: true, ...(description ? { description } : {}), schema: rest };
  });
}

function requestParts(
  route: Route,
  endpoint: EndpointDescription | undefined,
  body?: { schema: Json; example?: unknown; required?: boolean },
) {
  if (!endpoint) return { parameters: templateParameters(route) };
  const schemas: InputSchemas = endpoint.schemas;
  const parameters = [
    ...parametersOf('path', schemas.path),
    ...parametersOf('query', schemas.query),
    ...parametersOf('header', schemas.headers),
    ref('parameters', 'EndlessApiVersion'),
    ref('parameters', 'ServiceApiVersion'),
  ];
  if (!endpoint.jsonBody && !body) return { parameters };
  const bodySchema = body?.schema ?? (schemas.body ? jsonSchema(schemas.body, 'input') : {});
  return {
    parameters,
    requestBody: {
      // An absent or empty body is read as `{}` (a JSON body); a body read by its handler says.
      required: body?.required ?? (bodySchema.required ?? []).length > 0,
      content: { [JSON_TYPE]: { schema: bodySchema, ...(body?.example ? { example: body.example } : {}) } },
    },
  };
}

// ---------------------------------------------------------------- responses

/** The codes a route can answer: its own, those of the chain it is built on, and 500. */
export function codesOf(route: Route, endpoint: EndpointDescription | undefined): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors);
  if (endpoint) {
    // ip_not_allowed: any route, for an API key bound to addresses (lib/auth/api-key-standing.ts).
    for (const code of ['unauthenticated', 'ip_not_allowed', 'unsupported_api_version', 'rate_limited', 'validation_failed'] as const)
      codes.add(code);
    if (endpoint.jsonBody) codes.add('invalid_json');
  }
  codes.add('internal_error');
  return (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) => codes.has(code));
}

/** Headers of one response: every answer's two, the rate limit's on authenticated routes past 401, and the status's own. */
function responseHeaders(status: number, endpoint: EndpointDescription | undefined, codes: ErrorCode[], extra: readonly string[] = []) {
  const names: string[] = ['x-request-id', 'Endless-Api-Version'];
  // Counted once the caller is known and the version accepted: never on a 401, maybe on the rest.
  if (endpoint && status !== 401) names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  if (status === 401) names.push('WWW-Authenticate');
  if (status === 405) names.push('Allow');
  if (status === 429 || status === 503) names.push('Retry-After');
  // A request with the same Idempotency-Key still in progress: come back shortly.
  if (status === 409 && codes.includes('idempotency_key_reused')) names.push('Retry-After');
  for (const name of extra) {
    if (!(name in RESPONSE_HEADERS)) throw new Error(`openapi: response header ${name} is not described in lib/openapi/headers.ts`);
    names.push(name);
  }
  return Object.fromEntries(names.map((name) => [name, ref('headers', name)]));
}

/** A ready example body for a code, as the service writes it. */
function errorExample(code: ErrorCode): Json {
  const body: Json = { code, message: ERROR_CATALOG[code].message };
  if (code === 'validation_failed') {
    body.message = 'query.organization_id: must start with "org_" followed by 1 to 64 letters, digits, "_" or "-"';
    body.data = { issues: [{ path: ['query', 'organization_id'], code: 'invalid_format', message: body.message.split(': ')[1] }] };
  }
  if (code === 'invalid_json') body.data = { issues: [{ path: ['body'], code: 'invalid_json', message: 'must be a JSON document' }] };
  if (code === 'rate_limited') body.message = 'rate limit exceeded, retry in 12 s';
  if (code === 'insufficient_credits') {
    const help = 'ask an owner of this workspace to have credits added';
    body.message = `the organization has 0 credits and this operation costs 1 credit; ${help}`;
    // `billing_url`: the console's Billing screen, where an owner buys credits (lib/billing/billing-url.ts).
    body.data = {
      balance: 0,
      cost: 1,
      how_to_add_credits: help,
      billing_url: 'https://api.example.com/console?organization_id=org_demo#billing',
    };
  }
  body.request_id = 'Lq3Z1gHqoAMEbXw=';
  return body;
}

/**
 * Error responses are shared components, named by what determines them: the status, the codes
 * and whether the route is public (`Error402_insufficient_credits_spending_limit_exceeded`,
 * `Public404_not_found`); the 53 paths of the run route would otherwise repeat nine each.
 */
class SharedResponses {
  readonly components: Record<string, Json> = {};

  refer(name: string, response: Json): Json {
    const existing = this.components[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(response))
      throw new Error(`openapi: two different responses named ${name}`);
    this.components[name] = response;
    return ref('responses', name);
  }
}

function errorResponses(route: Route, endpoint: EndpointDescription | undefined, shared: SharedResponses): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codesOf(route, endpoint)) {
    byStatus.set(ERROR_CATALOG[code].status, [...(byStatus.get(ERROR_CATALOG[code].status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]) => [
      String(status),
      shared.refer(`${endpoint ? 'Error' : 'Public'}${status}_${statusCodes.join('_')}`, {
        description: statusCodes.map((code) => `\`${code}\`: ${ERROR_CATALOG[code].message}`).join('; '),
        headers: responseHeaders(status, endpoint, statusCodes),
        content: {
          [JSON_TYPE]: {
            schema: { allOf: [ref('schemas', 'ErrorBody'), { type: 'object', properties: { code: { enum: statusCodes } } }] },
            examples: Object.fromEntries(
              statusCodes.map((code) => [code, { summary: ERROR_CATALOG[code].message, value: errorExample(code) }]),
            ),
          },
        },
      }),
    ]),
  );
}

/**
 * The statuses the API specification lists for a route that this deployment never answers:
 * the error body, any code, and the description saying so (`notProduced` in lib/routes.ts).
 */
function notProducedResponses(route: Route, endpoint: EndpointDescription | undefined): Record<string, Json> {
  const produced = new Set(codesOf(route, endpoint).map((code) => String(ERROR_CATALOG[code].status)));
  for (const status of Object.keys(route.notProduced ?? {})) {
    if (produced.has(status))
      throw new Error(`openapi: route ${route.name} answers ${status}, yet lists it as never answered (notProduced)`);
  }
  return Object.fromEntries(
    Object.entries(route.notProduced ?? {}).map(([status, description]) => [
      status,
      {
        description,
        headers: responseHeaders(Number(status), endpoint, []),
        content: { [JSON_TYPE]: { schema: ref('schemas', 'ErrorBody') } },
      },
    ]),
  );
}

function okResponse(route: Route, module: RouteModule, schema?: Json): Json {
  if (!module.responseSchema) {
    throw new Error(
      `openapi: route ${route.name} (${route.entry}) exports no responseSchema; every route's module describes its 200 body (docs/openapi.md)`,
    );
  }
  const mediaTypes = module.responseMediaTypes ?? [JSON_TYPE];
  const body = schema ?? jsonSchema(module.responseSchema, 'output');
  return {
    description: route.summary,
    headers: responseHeaders(module.successStatus ?? 200, module.handler.endpoint, [], module.responseHeaders),
    content: { ...Object.fromEntries(mediaTypes.map((type) => [type, { schema: body }])), ...module.responseAlternatives },
  };
}

// ---------------------------------------------------------------- operations

const operationId = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

function routeOperation(route: Route, module: RouteModule, shared: SharedResponses): Json {
  const endpoint = module.handler.endpoint;
  return {
    operationId: operationId(route.name),
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    ...(endpoint ? {} : { security: [] }),
    ...requestParts(
      route,
      endpoint,
      module.requestBodySchema
        ? { schema: jsonSchema(module.requestBodySchema, 'input'), example: module.requestBodyExample, required: true }
        : undefined,
    ),
    responses: {
      // A route that answers only without a body (204) has no 200 to describe.
      ...(module.responseSchema || !module.otherResponses?.['204']
        ? { [String(module.successStatus ?? 200)]: okResponse(route, module) }
        : {}),
      ...otherResponses(module),
      ...errorResponses(route, endpoint, shared),
      ...notProducedResponses(route, endpoint),
    },
  };
}

function otherResponses(module: RouteModule): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(module.otherResponses ?? {}).map(([status, description]) => [
      status,
      { description, headers: responseHeaders(Number(status), module.handler.endpoint, [], module.otherResponseHeaders?.[status]) },
    ]),
  );
}

/** The methods a route is described under: its own, or for an `ANY` route those its module names. */
function methodsOf(route: Route, module: RouteModule): string[] {
  if (route.method !== 'ANY') return [route.method.toLowerCase()];
  if (!module.methods?.length) {
    throw new Error(
      `openapi: route ${route.name} (${route.entry}) takes any method; its module names those to describe (\`export const methods = ['POST']\`)`,
    );
  }
  return module.methods.map((method) => method.toLowerCase());
}

/** The providers as `x-served-by` names them: a real vendor before generated sample data. */
const VENDORS_FIRST = PROVIDERS.filter((provider) => provider.name !== 'sample_backup').sort(
  (a, b) => Number(a.sampleData) - Number(b.sampleData),
);

/** The run route again, for one catalog operation: its own input and output schemas, example and cost. */
function catalogOperation(name: string, runRoute: Route, module: RouteModule, shared: SharedResponses, schemas: SharedSchemas): Json {
  const definition = defined(CATALOG.get(name), `operation ${name}`);
  const { input_schema, output_schema, description } = descriptor(definition);
  const endpoint = defined(module.handler.endpoint, `the endpoint of ${runRoute.name}`);
  const { parameters, requestBody } = requestParts(runRoute, endpoint, {
    schema: withoutDialect(input_schema),
    example: EXAMPLE_INPUTS[name],
  });
  // Which providers serve it: a deployment's own answer is GET /social/operations?include=unavailable.
  const servedBy = VENDORS_FIRST.filter((provider) => provider.serves(name)).map((provider) => provider.displayName);
  const notServed = VENDORS_FIRST.filter((provider) => !provider.serves(name)).map((provider) => provider.displayName);
  const availability =
    notServed.length === 0
      ? ''
      : `\n\nNot served by ${notServed.join(' or ')}: a deployment on it answers 403 \`operation_not_enabled\`, and its \`GET /social/operations?include=unavailable\` lists this operation with \`available: false\`.`;
  return {
    operationId: name,
    summary: definition.description.split(/[.:](\s|$)/)[0],
    description: `${description}\n\nThe same as \`POST ${RUN_PATH}\` with \`operation\` = \`${name}\`: charged before the provider is called, refunded if it fails.${availability}`,
    tags: [definition.network ?? CROSS_NETWORK_TAG],
    'x-credit-cost': definition.cost,
    'x-cached-credit-cost': definition.cachedCost,
    'x-served-by': servedBy,
    parameters: parameters
      .filter((parameter) => (parameter as Json).in !== 'path')
      // `fields` with paths this operation's output has.
      .map((parameter) => ((parameter as Json).name === 'fields' ? { ...parameter, example: exampleFields(output_schema) } : parameter)),
    requestBody,
    responses: {
      '200': okResponse(runRoute, module, schemas.factor(withoutDialect(output_schema)) as Json),
      ...errorResponses(runRoute, endpoint, shared),
    },
  };
}

// ---------------------------------------------------------------- the document

const DESCRIPTION = `Workspaces (organizations) and what their members do: run social-network data operations for credits, restore soft-deleted resources, read billing events.

**Authentication.** \`Authorization: Bearer <JWT>\` on every route but the API description and its page. Roles come from the service's memberships, not from the token.

**Versions.** \`Endless-Api-Version: ${API_VERSION}\` (optional) pins the major version; every response carries the version that answered.

**Errors.** Every error is \`{ code, message, data?, request_id }\`; each response below lists the codes its status can carry. \`request_id\` equals the \`x-request-id\` header. A path described here asked with another method answers 405 \`method_not_allowed\` with \`Allow\`; any other path 404 \`route_not_found\`.

**Rate limits.** Per caller, a fixed window: \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` on authenticated answers, 429 with \`Retry-After\` past the limit.

**Credits.** Each social operation costs \`x-credit-cost\` credits per successful run, charged before the provider is called and refunded if it fails. \`Credits-Charged\` and \`Credits-Remaining\` report it. Calls that spend no credits never answer 402.

**Idempotency.** Send \`Idempotency-Key\` (a UUID) with a run: a retry with the same key and body within 24 hours replays the first answer (\`Idempotent-Replayed: true\`) without a second charge.`;

function components(shared: SharedResponses, schemas: SharedSchemas): Json {
  const describeHeader = ({ description, required, schema, example }: HeaderDescription) => ({
    description,
    ...(required ? { required } : {}),
    schema,
    ...(example === undefined ? {} : { example }),
  });
  return {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: "A JWT of the deployment's issuer (RS256 or ES256), with its audience; `sub` is the user.",
      },
    },
    parameters: {
      EndlessApiVersion: {
        name: 'Endless-Api-Version',
        in: 'header',
        required: false,
        ...describeHeader(REQUEST_HEADERS['Endless-Api-Version']),
      },
      ServiceApiVersion: {
        name: 'Service-Api-Version',
        in: 'header',
        required: false,
        deprecated: true,
        ...describeHeader(REQUEST_HEADERS['Service-Api-Version']),
      },
    },
    headers: Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([name, description]) => [name, describeHeader(description)])),
    schemas: { ErrorBody: jsonSchema(errorBodySchema, 'output'), ...schemas.components() },
    responses: {
      ...shared.components,
      RouteNotFound: {
        description: 'Any method and path the API does not describe, before authentication: `route_not_found`.',
        headers: responseHeaders(404, undefined, ['route_not_found']),
        content: {
          [JSON_TYPE]: {
            schema: { allOf: [ref('schemas', 'ErrorBody'), { type: 'object', properties: { code: { const: 'route_not_found' } } }] },
            example: { code: 'route_not_found', message: 'no route for GET /nowhere', request_id: 'Lq3Z1gHqoAMEbXw=' },
          },
        },
      },
      MethodNotAllowed: {
        description:
          'A path this document describes, asked with a method it does not describe there, before authentication: `method_not_allowed`, with `Allow` listing the methods that path answers.',
        headers: responseHeaders(405, undefined, ['method_not_allowed']),
        content: {
          [JSON_TYPE]: {
            schema: { allOf: [ref('schemas', 'ErrorBody'), { type: 'object', properties: { code: { const: 'method_not_allowed' } } }] },
            example: {
              code: 'method_not_allowed',
              message: '/social/operations answers GET, POST, not DELETE',
              request_id: 'Lq3Z1gHqoAMEbXw=',
            },
          },
        },
      },
    },
  };
}

/** The document for this route table and these modules; throws, naming the route, when one is not described. */
export function buildDocument(table: readonly Route[], modules: Map<string, RouteModule>): Json {
  const paths: Json = {};
  const shared = new SharedResponses();
  const schemas = new SharedSchemas();
  const tags: string[] = [];
  const addTag = (tag: string) => tags.includes(tag) || tags.push(tag);
  for (const route of table) {
    // The console's page and files are for people, not part of the API.
    if (route.path === '$default' || route.page) continue;
    const module = modules.get(route.name);
    if (!module) throw new Error(`openapi: no module loaded for route ${route.name}`);
    addTag(route.tag);
    for (const method of methodsOf(route, module)) {
      const operation = routeOperation(route, module, shared);
      // One operation id per method when a route is described under several.
      if (route.method === 'ANY' && (module.methods?.length ?? 0) > 1)
        operation.operationId += method.charAt(0).toUpperCase() + method.slice(1);
      paths[route.path] = { ...paths[route.path], [method]: operation };
    }
    if (route.path === RUN_PATH) {
      for (const name of CATALOG.keys()) {
        const operation = catalogOperation(name, route, module, shared, schemas);
        operation.tags.forEach(addTag);
        paths[`/social/${name}`] = { post: operation };
      }
    }
  }
  const networkTag = (tag: string) =>
    tag === CROSS_NETWORK_TAG
      ? 'Operations that work across networks.'
      : `Social operations on ${tag}, one path each (cost in \`x-credit-cost\`).`;
  const routeTags = new Set(table.map((route) => route.tag));
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Workspace Service API',
      version: API_VERSION,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // GET /openapi.json replaces it with the URL the document was read from (functions/get-openapi-document.ts).
    servers: [
      { url: '/', description: 'The host that serves this document: the local stack (npm start) or a deployed stage', 'x-internal': false },
    ],
    security: [{ bearerAuth: [] }],
    tags: tags.map((name) => ({ name, description: routeTags.has(name) ? tagDescription(name, table) : networkTag(name) })),
    paths,
    components: components(shared, schemas),
  };
}

const tagDescription = (tag: string, table: readonly Route[]) =>
  table
    .filter((route) => route.tag === tag && route.path !== '$default')
    .map((route) => `\`${route.method} ${route.path}\`: ${route.summary}.`)
    .join(' ');
