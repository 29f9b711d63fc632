/**
 * `cdk synth` with bundling, for the routes that read files at run time (the API description
 * and the docs page's assets): the function's asset folder holds its bundle and every file its
 * route lists, and that bundle, started in a fresh `node` from there, serves them. The stack tests skip
 * bundling; this builds only the routes that have `assets`.
 *
 * In the long tier (`npm run test:long`, vitest.config.ts): it bundles the asset routes through `cdk synth` and runs them in a fresh `node`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkspaceServiceStack } from '../../infra/stack.ts';
import { buildConsole } from '../../lib/console/build.ts';
import { CONSOLE_ASSETS, hashedName } from '../../lib/console-assets.ts';
import { DOCS_ASSETS } from '../../lib/docs-assets.ts';
import { buildHttpEvent } from '../../lib/local/apigw-event.ts';
import { matchRoute, type Route, routeKey, routes } from '../../lib/routes.ts';
import { functionOf, mergeNested, resource, stackTemplates } from './template.ts';

// The console's files, which its routes list, as `cdk synth` builds them first (infra/app.ts).
await buildConsole();

const withAssets = routes.filter((route) => route.assets?.length);
const outdir = mkdtempSync(join(tmpdir(), 'cdk-assets-test-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
// CDK's template validation is the stack test's (test/infra/stack.unit.test.ts).
const app = new App({ outdir, builtinCloudFormationValidation: false });
const stack = new WorkspaceServiceStack(app, 'WorkspaceService', { routes: withAssets });
app.synth();
// The route functions are in nested stacks: read as one template with the parent's.
const { template } = mergeNested(stackTemplates(outdir, stack));

/** The folder cdk synth built the route's code in (its S3 key is the folder's hash). */
const codeFolder = (name: string) => {
  const key: string = resource(template, functionOf(template, routes.find((route) => route.name === name)!)).Properties.Code.S3Key;
  return join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
};

/** Invokes a route's bundled handler in one fresh node process, as Lambda would, once per path; reports each answer. */
function invokeBundle(route: Route, paths: string[]) {
  const folder = codeFolder(route.name);
  const events = paths.map((path) => {
    const { pathParameters } = matchRoute(route.method, path);
    return buildHttpEvent({ method: route.method, path, routeKey: routeKey(route), ...(pathParameters ? { pathParameters } : {}) });
  });
  const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(join(folder, 'index.mjs')).href)});
for (const event of JSON.parse(process.env.EVENTS)) {
  const result = await handler(event, { functionName: 'test', awsRequestId: 'test', getRemainingTimeInMillis: () => 10000 });
  const body = Buffer.from(result.body, 'base64').toString('utf8');
  console.log('RESULT ' + JSON.stringify({ status: result.statusCode, type: result.headers['Content-Type'], bytes: body.length, start: body.slice(0, 20) }));
}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: route.name, EVENTS: JSON.stringify(events) },
    encoding: 'utf8',
  });
  const answers = child.stdout
    .split('\n')
    .filter((line) => line.startsWith('RESULT '))
    .map((line) => JSON.parse(line.slice('RESULT '.length)));
  if (answers.length !== paths.length) throw new Error(`the bundle did not answer: ${child.stderr}`);
  return answers;
}

const route = (name: string) => routes.find((candidate) => candidate.name === name)!;
const fileOf = (folder: string, name: string) => readFileSync(join(folder, name), 'utf8');

describe('routes with assets, bundled by cdk synth', () => {
  it("are the API description, the docs assets, the console's page and files, and the OAuth pages (the console's style)", () => {
    expect(withAssets.map(routeKey)).toEqual([
      'GET /openapi.json',
      'GET /docs/{asset}',
      'GET /console',
      'GET /console/{asset}',
      'ANY /oauth/authorize',
    ]);
  });

  it.each(
    withAssets.map((withAsset) => [withAsset.name, withAsset] as const),
  )('%s: each asset lies beside the bundle', (name, withAsset) => {
    expect(readdirSync(codeFolder(name)).sort()).toEqual(
      ['index.mjs', 'index.mjs.map', ...(withAsset.assets ?? []).map((asset) => basename(asset))].sort(),
    );
  });

  it('GetDocsAsset serves its files from that folder, as Lambda runs it', () => {
    const folder = codeFolder('GetDocsAsset');
    const answers = invokeBundle(
      route('GetDocsAsset'),
      DOCS_ASSETS.map((asset) => `/docs/${asset.name}`),
    );

    expect(answers).toEqual(
      DOCS_ASSETS.map((asset) => ({
        status: 200,
        type: asset.contentType,
        bytes: fileOf(folder, asset.name).length,
        start: fileOf(folder, asset.name).slice(0, 20),
      })),
    );
  });

  it("GetConsoleAsset serves the console's files from that folder by their hashed names, as Lambda runs it", () => {
    const folder = codeFolder('GetConsoleAsset');
    const content = (name: string) => readFileSync(join(folder, name));
    const answers = invokeBundle(
      route('GetConsoleAsset'),
      CONSOLE_ASSETS.map((asset) => `/console/${hashedName(asset.name, content(asset.name))}`),
    );

    expect(answers).toEqual(
      CONSOLE_ASSETS.map((asset) => ({
        status: 200,
        type: asset.contentType,
        bytes: fileOf(folder, asset.name).length,
        start: fileOf(folder, asset.name).slice(0, 20),
      })),
    );
    const [page] = invokeBundle(route('GetConsolePage'), ['/console']);
    expect(page).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', start: '<!doctype html>\n<htm' });
  });

  it('GetOpenApiDocument serves the committed document, minified, naming as its server the URL it was read from', () => {
    const committed = readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');
    // The event's host: the local server's default, 127.0.0.1.
    const servers = [{ url: 'http://127.0.0.1', description: 'This deployment: the URL this document was read from', 'x-internal': false }];
    const minified = JSON.stringify({ ...JSON.parse(committed), servers });

    expect(fileOf(codeFolder('GetOpenApiDocument'), 'openapi.json')).toBe(committed);
    expect(invokeBundle(route('GetOpenApiDocument'), ['/openapi.json'])).toEqual([
      { status: 200, type: 'application/json', bytes: minified.length, start: minified.slice(0, 20) },
    ]);
  });
});
