/**
 * The API description: the committed openapi.json and client types are what the generator
 * makes now, the document is valid OpenAPI 3.1 (Redocly's linter), it describes every route
 * and every catalog operation with the statuses, codes and headers each can answer, and the
 * three public routes serve it (no token, no rate limit, never 402).
 */
import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { handler as docsAsset } from '../functions/get-docs-asset.ts';
import { handler as docsPage } from '../functions/get-docs-page.ts';
import { handler as openapiDocument } from '../functions/get-openapi-document.ts';
import { DOCS_ASSETS } from '../lib/docs-assets.ts';
import { ERROR_CATALOG } from '../lib/errors.ts';
import { CLIENT_TYPES_FILE, clientTypesText, DOCUMENT_FILE, documentText } from '../lib/openapi/artifacts.ts';
import { buildDocument, loadRouteModules, type RouteModule } from '../lib/openapi/document.ts';
import { type Route, routes } from '../lib/routes.ts';
import { EXAMPLE_INPUTS } from '../lib/social/catalog/examples.ts';
import { CATALOG, descriptor } from '../lib/social/catalog/index.ts';
import { FACEBOOK_SCRAPER3_OPERATIONS } from '../lib/social/providers/facebook-scraper3.ts';
import { SCRAPECREATORS_OPERATIONS } from '../lib/social/providers/scrapecreators/operations.ts';
import { TIKHUB_OPERATIONS } from '../lib/social/providers/tikhub/index.ts';
import { testAjv } from './support/ajv.ts';
import { assertDescribed } from './support/contract.ts';
import { call } from './support/http.ts';

const REPO = new URL('../', import.meta.url);
const modules = await loadRouteModules();
const document = buildDocument(routes, modules);
const committed = (file: string) => readFileSync(new URL(file, REPO), 'utf8');
const resolve = (node: any): any =>
  node?.$ref
    ? node.$ref
        .slice(2)
        .split('/')
        .reduce((at: any, key: string) => at[key.replaceAll('~1', '/')], document)
    : node;
/** A schema with its references to components.schemas replaced by what they name. */
const inlined = (schema: any): any => {
  if (Array.isArray(schema)) return schema.map(inlined);
  if (schema === null || typeof schema !== 'object') return schema;
  if (String(schema.$ref).startsWith('#/components/schemas/')) return inlined(resolve(schema));
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlined(value)]));
};
const statuses = (path: string, method: string) => Object.keys(document.paths[path][method].responses);
const codesAt = (path: string, method: string, status: string) =>
  resolve(document.paths[path][method].responses[status]).content['application/json'].schema.allOf[1].properties.code.enum;
const headersAt = (path: string, method: string, status: string) =>
  Object.keys(resolve(document.paths[path][method].responses[status]).headers);
const documented = routes.filter((route) => route.path !== '$default' && !route.page);

describe('the committed files', () => {
  it('openapi.json is the document the generator makes (run `npm run openapi` after changing a route or schema)', () => {
    expect(committed(DOCUMENT_FILE)).toBe(documentText(document));
  });

  it('client/schema.d.ts (written by `npm ci`) holds the types openapi-typescript makes from it (run `npm run openapi`)', async () => {
    expect(committed(CLIENT_TYPES_FILE)).toBe(await clientTypesText(document));
  });
});

describe('validity', () => {
  // One lint: recommended-strict is recommended with every warning made an error, rule for rule
  // (each lint is about a CPU-second), so the strict list is recommended's problems of any severity.
  let linted: Promise<{ severity: string; text: string }[]> | undefined;
  const problems = () =>
    (linted ??= (async () => {
      const config = await createConfig({ extends: ['recommended'] });
      const found = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
      return found.map((problem) => ({
        severity: problem.severity,
        text: `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`,
      }));
    })());

  it('says the license the repository is under: MIT', () => {
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(readFileSync(new URL('../LICENSE', import.meta.url), 'utf8')).toMatch(/^MIT License/);
  });

  it('is OpenAPI 3.1 with no error under Redocly’s recommended rules', async () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    expect((await problems()).filter((problem) => problem.severity === 'error')).toEqual([]);
  });

  it('breaks the strict rules only where it must: public routes that answer no 4xx, the $default route’s response, the job paths', async () => {
    expect((await problems()).map((problem) => problem.text)).toEqual([
      // The contract's paths (DESIGN.md, "Bulk runs as jobs"): no method is served by two of them,
      // and a path naming a literal wins over one naming a parameter (API Gateway, lib/routes.ts).
      'no-ambiguous-paths #/paths/~1social~1jobs~1{job_id}: Paths should resolve unambiguously. Found two ambiguous paths: `/social/{operation}/jobs` and `/social/jobs/{job_id}`.',
      'no-ambiguous-paths #/paths/~1social~1{operation}~1quote: Paths should resolve unambiguously. Found two ambiguous paths: `/social/jobs/{job_id}` and `/social/{operation}/quote`.',
      'operation-4xx-response #/paths/~1.well-known~1jwks.json/get/responses: Operation must have at least one `4XX` response.',
      'operation-4xx-response #/paths/~1social~1status/get/responses: Operation must have at least one `4XX` response.',
      'operation-4xx-response #/paths/~1/get/responses: Operation must have at least one `4XX` response.',
      'operation-4xx-response #/paths/~1openapi.json/get/responses: Operation must have at least one `4XX` response.',
      'operation-4xx-response #/paths/~1docs/get/responses: Operation must have at least one `4XX` response.',
      'operation-4xx-response #/paths/~1.well-known~1oauth-protected-resource/get/responses: Operation must have at least one `4XX` response.',
      'operation-4xx-response #/paths/~1.well-known~1oauth-authorization-server/get/responses: Operation must have at least one `4XX` response.',
      'no-unused-components #/components/responses/RouteNotFound: Component: "RouteNotFound" is never used.',
      'no-unused-components #/components/responses/MethodNotAllowed: Component: "MethodNotAllowed" is never used.',
    ]);
  });
});

describe('routes', () => {
  it("leaves the console's page and files, and the OAuth endpoints (RFC 6749 bodies, not this API's), out: pages for people, no part of the API", () => {
    expect(routes.filter((route) => route.page).map((route) => route.path)).toEqual([
      '/console',
      '/console/{asset}',
      '/oauth/authorize',
      '/oauth/token',
      '/oauth/register',
      '/oauth/revoke',
    ]);
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/oauth/'))).toEqual([]);
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/console'))).toEqual([]);
  });

  it.each(documented.map((route) => [route.name, route] as const))('%s: its path, method, id, summary and tag', (_, route) => {
    // An `ANY` route (POST /mcp) is described under the methods its module names: POST.
    const operation = document.paths[route.path][route.method === 'ANY' ? 'post' : route.method.toLowerCase()];

    expect(operation).toMatchObject({
      operationId: route.name.charAt(0).toLowerCase() + route.name.slice(1),
      summary: route.summary,
      description: route.description,
      tags: [route.tag],
    });
    // A route without a body to answer (DELETE of a member) describes its 204 instead, a creation its 201, a job its 202.
    expect(
      operation.responses['200'] ?? operation.responses['201'] ?? operation.responses['202'] ?? operation.responses['204'],
    ).toBeDefined();
    expect(operation.responses['500']).toBeDefined();
  });

  it('describes the $default route as its two responses: 404 route_not_found, and 405 method_not_allowed with Allow', () => {
    const { RouteNotFound, MethodNotAllowed } = document.components.responses;

    expect(RouteNotFound.content['application/json'].schema.allOf[1].properties.code).toEqual({ const: 'route_not_found' });
    expect(MethodNotAllowed.content['application/json'].schema.allOf[1].properties.code).toEqual({ const: 'method_not_allowed' });
    expect(MethodNotAllowed.headers.Allow).toEqual({ $ref: '#/components/headers/Allow' });
    expect(document.components.headers.Allow.required).toBe(true);
    expect(Object.keys(document.paths)).not.toContain('$default');
  });

  it('fails, naming the route, for a route whose module does not describe its 200 body', () => {
    const undescribed: Route = { ...documented[0]!, name: 'Undescribed', path: '/undescribed', entry: 'functions/undescribed.ts' };
    const withIt = new Map<string, RouteModule>([...modules, ['Undescribed', { handler: {} }]]);

    expect(() => buildDocument([...routes, undescribed], withIt)).toThrow(
      'openapi: route Undescribed (functions/undescribed.ts) exports no responseSchema',
    );
  });

  it('describes a route of any method under the methods its module names, and other success statuses without a body', () => {
    const anyMethod: Route = { ...documented[0]!, name: 'Anything', method: 'ANY', path: '/anything', entry: 'functions/anything.ts' };
    const described = new Map<string, RouteModule>([
      ...modules,
      ['Anything', { ...modules.get(documented[0]!.name)!, methods: ['POST'], otherResponses: { '202': 'accepted' } }],
    ]);
    const undescribed = new Map<string, RouteModule>([...modules, ['Anything', modules.get(documented[0]!.name)!]]);

    const operation = buildDocument([...routes, anyMethod], described).paths['/anything'];
    expect(Object.keys(operation)).toEqual(['post']);
    expect(operation.post.responses['202']).toEqual({
      description: 'accepted',
      headers: expect.objectContaining({ 'x-request-id': expect.anything() }),
    });
    expect(() => buildDocument([...routes, anyMethod], undescribed)).toThrow(
      'openapi: route Anything (functions/anything.ts) takes any method; its module names those to describe',
    );
  });

  it("describes POST /mcp's JSON-RPC body: a request, a notification, a response of the client, or a batch", () => {
    const { requestBody } = document.paths['/mcp'].post;
    const valid = testAjv({ strict: false }, { formats: false }).compile(requestBody.content['application/json'].schema);
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x_profile', arguments: { handle: 'nasa' } } };

    expect(requestBody.required).toBe(true);
    expect(valid(requestBody.content['application/json'].example)).toBe(true);
    expect(
      [
        request,
        {
          jsonrpc: '2.0',
          id: 'a1',
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 5, result: {} },
        { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
        [request, { ...request, id: 2 }],
      ].map((message) => valid(message)),
    ).toEqual([true, true, true, true, true, true]);
    expect(
      [{ hello: 'world' }, { jsonrpc: '1.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 1, method: 'x'.repeat(129) }, [], 'ping'].map(
        (message) => valid(message),
      ),
    ).toEqual([false, false, false, false, false]);
  });

  it('lists for each status the codes of the error catalog it can carry', () => {
    expect(statuses('/social/{operation}', 'post')).toEqual(['200', '400', '401', '402', '403', '404', '409', '429', '500', '503']);
    expect(codesAt('/social/{operation}', 'post', '400')).toEqual(['validation_failed', 'invalid_json', 'unsupported_api_version']);
    expect(codesAt('/social/{operation}', 'post', '402')).toEqual([
      'insufficient_credits',
      'spending_limit_exceeded',
      'max_credits_exceeded',
    ]);
    expect(codesAt('/social/{operation}', 'post', '500')).toEqual(['internal_error', 'upstream_failed']);
    expect(codesAt('/skills/{skill_id}/restore', 'post', '409')).toEqual(['name_taken']);
    expect(codesAt('/projects/{project_id}/restore', 'post', '409')).toEqual(['slug_taken']);
    // 402 and 409 besides: the specification lists them, this deployment never answers them there (below).
    expect(statuses('/assets/{asset_id}/restore', 'post')).toEqual(['200', '400', '401', '402', '403', '404', '409', '429', '500']);
    expect(codesAt('/assets/{asset_id}/restore', 'post', '404')).toEqual(['not_found']);
    expect(statuses('/organizations/{organization_id}/billing/events', 'get')).toEqual([
      '200',
      '400',
      '401',
      '402',
      '403',
      '404',
      '409',
      '429',
      '500',
    ]);
    const answered = Object.values<any>(document.components.responses).flatMap((response) => {
      const code = response.content['application/json'].schema.allOf[1].properties.code;
      return code.enum ?? [code.const];
    });
    // bad_request and headers_too_large are the local server's edges: deployed, API Gateway answers those
    // itself (payload_too_large too, but for the Stripe webhook's own 1 MiB bound).
    // MCP consent's refusals are tool results (docs/mcp.md), never an HTTP answer.
    const edges = ['bad_request', 'headers_too_large', 'confirmation_required', 'confirmation_invalid', 'consent_declined'];
    expect(new Set(answered)).toEqual(new Set(Object.keys(ERROR_CATALOG).filter((code) => !edges.includes(code))));
  });

  it('serves the API description and its page with no token, no rate limit and never a 402', () => {
    for (const route of documented.filter((candidate) => candidate.tag === 'API description')) {
      const operation = document.paths[route.path].get;
      expect(operation.security).toEqual([]);
      expect(Object.keys(operation.responses).filter((status) => ['401', '402', '429'].includes(status))).toEqual([]);
      expect(headersAt(route.path, 'get', '200')).toEqual(['x-request-id', 'Endless-Api-Version', 'Cache-Control']);
    }
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  it('names the headers of each answer', () => {
    expect(headersAt('/social/{operation}', 'post', '200')).toEqual([
      'x-request-id',
      'Endless-Api-Version',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Credits-Charged',
      'Credits-Remaining',
      'Idempotent-Replayed',
      'Charge-Id',
      'Cache-Status',
      'Age',
      'Sample-Data',
      'Social-Provider',
    ]);
    expect(headersAt('/social/{operation}', 'post', '401')).toEqual(['x-request-id', 'Endless-Api-Version', 'WWW-Authenticate']);
    expect(headersAt('/social/{operation}', 'post', '429')).toContain('Retry-After');
    expect(headersAt('/social/{operation}', 'post', '409')).toContain('Retry-After');
    expect(headersAt('/projects/{project_id}/restore', 'post', '409')).not.toContain('Retry-After');
  });

  it('describes requests with the schemas that validate them', () => {
    const events = document.paths['/organizations/{organization_id}/billing/events'].get.parameters;
    const run = document.paths['/social/{operation}'].post;

    expect(events.slice(0, 3)).toEqual([
      expect.objectContaining({ name: 'organization_id', in: 'path', required: true, example: 'org_demo' }),
      expect.objectContaining({
        name: 'days',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 30, default: 30 }),
      }),
      expect.objectContaining({
        name: 'limit',
        in: 'query',
        required: false,
        schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 25 }),
      }),
    ]);
    expect(events[3]).toEqual(
      expect.objectContaining({ name: 'cursor', in: 'query', required: false, schema: expect.objectContaining({ maxLength: 512 }) }),
    );
    expect(events.slice(4)).toEqual([
      { $ref: '#/components/parameters/EndlessApiVersion' },
      { $ref: '#/components/parameters/ServiceApiVersion' },
    ]);
    expect(run.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
    expect(run.requestBody.content['application/json']).toBeDefined();
  });
});

describe('the statuses of the API specification', () => {
  /** The spec's "Error statuses" of its routes (copied here: CI has only this repository); the run route lists none. */
  const SPEC_STATUSES: Record<string, number[]> = {
    'GET /social/operations': [400, 401, 402, 403, 409, 429, 500],
    'POST /assets/{asset_id}/restore': [400, 401, 402, 403, 404, 409, 429, 500],
    'POST /skills/{skill_id}/restore': [400, 401, 402, 403, 404, 409, 429, 500],
    'POST /conversations/{conversation_id}/restore': [400, 401, 402, 403, 404, 409, 429, 500],
    'POST /projects/{project_id}/restore': [400, 401, 402, 403, 404, 409, 429, 500],
    'GET /organizations/{organization_id}/billing/events': [400, 401, 402, 403, 404, 409, 429, 500],
  };

  it.each(Object.entries(SPEC_STATUSES))('%s declares every status the specification lists', (key, listed) => {
    const [method = '', path = ''] = key.split(' ');

    expect(listed.filter((status) => !statuses(path, method.toLowerCase()).includes(String(status)))).toEqual([]);
  });

  it('says of each status this deployment never answers that it does not, with the error body', () => {
    const declaredOnly = Object.entries(SPEC_STATUSES).flatMap(([key]) => {
      const [method = '', path = ''] = key.split(' ');
      const route = routes.find((candidate) => candidate.method === method && candidate.path === path)!;
      return Object.keys(route.notProduced ?? {}).map((status) => ({
        key,
        status,
        response: document.paths[path][method.toLowerCase()].responses[status],
      }));
    });

    expect(declaredOnly.map(({ key, status }) => `${key} ${status}`)).toEqual([
      'GET /social/operations 402',
      'GET /social/operations 409',
      'POST /assets/{asset_id}/restore 402',
      'POST /assets/{asset_id}/restore 409',
      'POST /skills/{skill_id}/restore 402',
      'POST /conversations/{conversation_id}/restore 402',
      'POST /projects/{project_id}/restore 402',
      'GET /organizations/{organization_id}/billing/events 402',
      'GET /organizations/{organization_id}/billing/events 409',
    ]);
    for (const { response } of declaredOnly) {
      expect(response.description).toMatch(/^Listed by the API specification; this deployment never answers it/);
      expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    }
  });

  it('refuses to declare as never answered a status the route answers', () => {
    const restoreSkill = routes.find((route) => route.name === 'RestoreSkill')!;
    const wrong: Route = { ...restoreSkill, notProduced: { 409: 'never' } };

    expect(() => buildDocument([...routes.filter((route) => route !== restoreSkill), wrong], modules)).toThrow(
      'openapi: route RestoreSkill answers 409, yet lists it as never answered (notProduced)',
    );
  });
});

describe('string bounds', () => {
  /** Every schema node under `node` (references to components followed), with where it is. */
  const schemaNodes = (node: any, at: string, seen = new Set<any>()): { at: string; schema: any }[] => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return [];
    seen.add(node);
    if (typeof node.$ref === 'string') return schemaNodes(resolve(node), `${at} → ${node.$ref}`, seen);
    const here = Array.isArray(node) ? [] : [{ at, schema: node }];
    return [...here, ...Object.entries(node).flatMap(([key, value]) => schemaNodes(value, `${at}/${key}`, seen))];
  };
  const isString = (schema: any) => schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
  const unbounded = (schema: any) =>
    isString(schema) && schema.maxLength === undefined && schema.enum === undefined && schema.const === undefined;
  /** What a client sends: each operation's parameters and request body. */
  const requestSchemas = Object.entries<any>(document.paths).flatMap(([path, operations]) =>
    Object.entries<any>(operations).flatMap(([method, operation]) => [
      ...(operation.parameters ?? []).map((parameter: any) => ({
        at: `${method} ${path} ${resolve(parameter).in} ${resolve(parameter).name}`,
        schema: resolve(parameter).schema,
      })),
      ...(operation.requestBody
        ? [{ at: `${method} ${path} body`, schema: operation.requestBody.content['application/json'].schema }]
        : []),
    ]),
  );

  it('bounds every string a client sends (parameters, headers, bodies) with maxLength, an enum or a const', () => {
    const strings = requestSchemas.flatMap(({ at, schema }) => schemaNodes(schema, at)).filter(({ schema }) => isString(schema));

    expect(strings.length).toBeGreaterThan(300);
    expect(strings.filter(({ schema }) => unbounded(schema)).map(({ at }) => at)).toEqual([]);
  });

  it('invents no bound on what the service answers: no maxLength in a response', () => {
    const responses = Object.values<any>(document.paths).flatMap((operations) =>
      Object.entries<any>(operations).flatMap(([method, operation]) => schemaNodes(operation.responses, method)),
    );

    expect(responses.filter(({ schema }) => schema.maxLength !== undefined).map(({ at }) => at)).toEqual([]);
  });
});

describe('social operations', () => {
  const ajv = testAjv({ strict: false }, { formats: false });

  it('describes each of the 52 operations as its own path', () => {
    const paths = Object.keys(document.paths).filter(
      (path) => path.startsWith('/social/') && !path.includes('{') && path !== '/social/operations' && path !== '/social/status',
    );

    expect(paths).toEqual([...CATALOG.keys()].map((name) => `/social/${name}`));
    expect(paths).toHaveLength(52);
  });

  it('names the shared output shapes once and refers to them (each component used)', () => {
    const text = JSON.stringify(document.paths);
    const schemas = document.components.schemas;
    const xProfile = document.paths['/social/x_profile'].post.responses['200'].content['application/json'].schema;
    const posts = document.paths['/social/tiktok_user_posts'].post.responses['200'].content['application/json'].schema;

    expect(xProfile).toEqual({ $ref: '#/components/schemas/Profile' });
    expect(posts.properties.items.items).toEqual({ $ref: '#/components/schemas/Post' });
    expect(schemas.Post.properties.author).toEqual({ $ref: '#/components/schemas/Author' });
    for (const name of Object.keys(schemas).filter((name) => name !== 'ErrorBody')) {
      expect(
        text.includes(`"#/components/schemas/${name}"`) || JSON.stringify(schemas).includes(`"#/components/schemas/${name}"`),
        name,
      ).toBe(true);
    }
  });

  it.each(
    [...CATALOG.values()].map((definition) => [definition.name, definition] as const),
  )('%s: its schemas, network tag, cost and a request example that passes its schema', (name, definition) => {
    const operation = document.paths[`/social/${name}`].post;
    const { $schema: _in, ...input } = descriptor(definition).input_schema;
    const { $schema: _out, ...output } = descriptor(definition).output_schema;

    expect(operation).toMatchObject({ operationId: name, tags: [definition.network ?? 'cross-network'], 'x-credit-cost': definition.cost });
    // Which providers serve it, and for the others what a deployment on them answers.
    const servedByScrapeCreators = name === 'resolve_mention' || SCRAPECREATORS_OPERATIONS.has(name);
    const servedByTikHub = TIKHUB_OPERATIONS.has(name);
    expect(operation['x-served-by']).toEqual([
      ...(servedByScrapeCreators ? ['ScrapeCreators'] : []),
      ...(servedByTikHub ? ['TikHub'] : []),
      ...(FACEBOOK_SCRAPER3_OPERATIONS.has(name) ? ['Facebook Scraper3'] : []),
      'sample',
    ]);
    expect(operation.description.includes('Not served by ScrapeCreators')).toBe(!servedByScrapeCreators);
    expect(operation.requestBody.content['application/json'].schema).toEqual(input);
    expect(inlined(operation.responses['200'].content['application/json'].schema)).toEqual(output);
    expect(operation.responses['402']).toEqual(document.paths['/social/{operation}'].post.responses['402']);
    expect(operation.parameters.map((parameter: any) => parameter.name ?? parameter.$ref)).not.toContain('operation');
    expect(ajv.validate(input, operation.requestBody.content['application/json'].example)).toBe(true);
    expect(operation.requestBody.content['application/json'].example).toEqual(EXAMPLE_INPUTS[name]);
  });
});

describe('the contract check of every handler test', () => {
  const ok = { 'content-type': 'application/json', 'x-request-id': 'r', 'endless-api-version': '1' };

  it('refuses a status the route does not list', () => {
    expect(() => assertDescribed('GET', '/openapi.json', false, { status: 402, headers: ok, body: {} })).toThrow(
      'contract: GET /openapi.json → 402: openapi.json lists no 402 for GET /openapi.json (it lists 200, 500)',
    );
  });

  it('refuses a body that breaks the schema', () => {
    const answer = { status: 200, headers: ok, body: { events: [{ id: 1 }] } };

    expect(() => assertDescribed('GET', '/organizations/org_a/billing/events', false, answer)).toThrow(
      /body: .*events\/0\/id must be string/,
    );
  });

  it('refuses an API header the response does not describe, and a missing required one', () => {
    const answer = { status: 200, headers: { 'content-type': 'text/html', 'x-request-id': 'r', 'ratelimit-limit': '300' }, body: '' };

    expect(() => assertDescribed('GET', '/docs', false, answer)).toThrow(
      /header Endless-Api-Version is required but missing\n {2}header RateLimit-Limit is sent but not described/,
    );
  });

  it('takes a concrete path before a template, and the template for a method the concrete path lacks', () => {
    const notFound = { status: 404, headers: ok, body: { code: 'not_found', message: 'no such operation', request_id: 'r' } };
    const output = { status: 200, headers: { ...ok, 'credits-charged': '1' }, body: { anything: true } };

    expect(() => assertDescribed('POST', '/social/operations', false, notFound)).not.toThrow();
    expect(() => assertDescribed('POST', '/social/no_such_operation', false, output)).not.toThrow();
    expect(() => assertDescribed('POST', '/social/x_profile', false, output)).toThrow(/body: .*must have required property 'network'/);
  });

  it('refuses any answer but 404 and 405 from the $default route, each only for the paths it belongs to', () => {
    const body = (code: string) => ({ code, message: 'm', request_id: 'r' });
    const allow = { ...ok, allow: 'GET' };

    expect(() => assertDescribed('POST', '/echo', true, { status: 200, headers: ok, body: {} })).toThrow(/only 404 route_not_found/);
    expect(() => assertDescribed('DELETE', '/me', true, { status: 405, headers: allow, body: body('method_not_allowed') })).not.toThrow();
    expect(() => assertDescribed('DELETE', '/me', true, { status: 404, headers: ok, body: body('route_not_found') })).toThrow(
      /describes this path/,
    );
    expect(() => assertDescribed('GET', '/echo', true, { status: 405, headers: allow, body: body('method_not_allowed') })).toThrow(
      /does not describe this path/,
    );
    expect(() => assertDescribed('DELETE', '/me', true, { status: 405, headers: ok, body: body('method_not_allowed') })).toThrow(
      /header Allow is required but missing/,
    );
  });
});

describe('served', () => {
  it('GET /openapi.json: the committed document, with no token and no rate limit', async () => {
    const answer = await call(openapiDocument, { url: '/openapi.json', headers: { host: '127.0.0.1:3000' } });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      ...JSON.parse(committed(DOCUMENT_FILE)),
      servers: [{ url: 'http://127.0.0.1:3000', description: 'This deployment: the URL this document was read from', 'x-internal': false }],
    });
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'public, max-age=300' });
    expect(answer.headers['ratelimit-limit']).toBeUndefined();
  });

  it.each([
    ['the local stack on any port', { host: '127.0.0.1:49152' }, 'http://127.0.0.1:49152'],
    ['localhost', { host: 'localhost:8080' }, 'http://localhost:8080'],
    [
      'a deployed stage on its execute-api host',
      { host: 'a1b2c3.execute-api.eu-west-1.amazonaws.com' },
      'https://a1b2c3.execute-api.eu-west-1.amazonaws.com',
    ],
    ['a custom domain behind a proxy', { host: 'api.example.com', 'x-forwarded-proto': 'https' }, 'https://api.example.com'],
  ])('names as its server the URL it was read from: %s', async (_case, headers, url) => {
    const answer = await call(openapiDocument, { url: '/openapi.json', headers });

    expect(answer.body.servers).toEqual([
      { url, description: 'This deployment: the URL this document was read from', 'x-internal': false },
    ]);
  });

  it('keeps the committed document relative: its server is the host that serves it', () => {
    expect(JSON.parse(committed(DOCUMENT_FILE)).servers).toEqual([
      { url: '/', description: 'The host that serves this document: the local stack (npm start) or a deployed stage', 'x-internal': false },
    ]);
  });

  it('ignores a token, even a bad one: there is nothing to protect', async () => {
    // An unsigned token (alg none) for user_a: refused by every route that reads tokens.
    const answer = await call(openapiDocument, { url: '/openapi.json', token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyX2EifQ.' });

    expect(answer.status).toBe(200);
  });

  it('gzips for clients that accept it', async () => {
    const answer = await call(openapiDocument, { url: '/openapi.json', headers: { 'accept-encoding': 'gzip, br' } });

    expect(answer.headers).toMatchObject({ 'content-encoding': 'gzip', vary: 'Accept-Encoding' });
    expect(answer.body.openapi).toBe(document.openapi);
  });

  it('GET /docs: a page that loads its scripts and styles from this service only', async () => {
    const answer = await call(docsPage, { url: '/docs' });

    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.raw).toContain('<script src="docs/swagger-ui-bundle.js"></script>');
    expect(answer.raw).toContain('<link rel="stylesheet" href="docs/swagger-ui.css">');
    expect(answer.raw).not.toMatch(/https?:\/\//);
    expect(answer.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'; /);
  });

  it.each(DOCS_ASSETS.map((asset) => [asset.name, asset] as const))('GET /docs/%s: the file of swagger-ui-dist', async (name, asset) => {
    const answer = await call(docsAsset, { url: `/docs/${name}`, headers: { 'accept-encoding': 'gzip' } });

    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({
      'content-type': asset.contentType,
      'content-encoding': 'gzip',
      'cache-control': 'public, max-age=86400',
    });
    expect(answer.raw).toBe(readFileSync(new URL(`node_modules/${asset.source}`, REPO), 'utf8'));
  });

  it('GET /docs/{asset}: 404 not_found for any other name', async () => {
    const answer = await call(docsAsset, { url: '/docs/..%2Fpackage.json' });

    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'not_found', message: 'no such resource' });
  });
});
