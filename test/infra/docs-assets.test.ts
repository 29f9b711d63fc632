/**
 * `cdk synth` with bundling, for the routes that read files at run time (the docs page's
 * assets): the function's asset folder holds its bundle and every file its route lists, and
 * that bundle, started in a fresh `node` from there, serves them. The stack tests skip
 * bundling; this builds only the routes that have `assets`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkspaceServiceStack } from '../../infra/stack.ts';
import { buildHttpEvent } from '../../lib/local/apigw-event.ts';
import { DOCS_ASSETS } from '../../lib/openapi/assets.ts';
import { routeKey, routes } from '../../lib/routes.ts';
import { functionOf, resource } from './template.ts';

const withAssets = routes.filter((route) => route.assets?.length);
const outdir = mkdtempSync(join(tmpdir(), 'cdk-assets-test-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
const app = new App({ outdir });
const stack = new WorkspaceServiceStack(app, 'WorkspaceService', { routes: withAssets });
app.synth();
const template = Template.fromJSON(JSON.parse(readFileSync(join(outdir, stack.templateFile), 'utf8')));

/** The folder cdk synth built the route's code in (its S3 key is the folder's hash). */
const codeFolder = (name: string) => {
  const key: string = resource(template, functionOf(template, routes.find((route) => route.name === name)!)).Properties.Code.S3Key;
  return join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
};

/** Invokes the bundled handler in one fresh node process, as Lambda would, once per path; reports each answer. */
function invokeBundle(folder: string, paths: string[]) {
  const events = paths.map((path) =>
    buildHttpEvent({ method: 'GET', path, routeKey: 'GET /docs/{asset}', pathParameters: { asset: basename(path) } }),
  );
  const script = `const { handler } = await import(${JSON.stringify(pathToFileURL(join(folder, 'index.mjs')).href)});
for (const event of JSON.parse(process.env.EVENTS)) {
  const result = await handler(event, { functionName: 'GetDocsAsset', awsRequestId: 'test', getRemainingTimeInMillis: () => 10000 });
  console.log('RESULT ' + JSON.stringify({ status: result.statusCode, type: result.headers['Content-Type'], bytes: Buffer.from(result.body, 'base64').length }));
}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: 'GetDocsAsset', EVENTS: JSON.stringify(events) },
    encoding: 'utf8',
  });
  const answers = child.stdout
    .split('\n')
    .filter((line) => line.startsWith('RESULT '))
    .map((line) => JSON.parse(line.slice('RESULT '.length)));
  if (answers.length !== paths.length) throw new Error(`the bundle did not answer: ${child.stderr}`);
  return answers;
}

describe('routes with assets, bundled by cdk synth', () => {
  it('are the docs assets route only', () => {
    expect(withAssets.map(routeKey)).toEqual(['GET /docs/{asset}']);
  });

  it('copies each asset beside the bundle', () => {
    expect(readdirSync(codeFolder('GetDocsAsset')).sort()).toEqual(
      ['index.mjs', 'index.mjs.map', ...DOCS_ASSETS.map((asset) => asset.name)].sort(),
    );
  });

  it('serves them from that folder, as Lambda runs it', () => {
    const folder = codeFolder('GetDocsAsset');
    const answers = invokeBundle(
      folder,
      DOCS_ASSETS.map((asset) => `/docs/${asset.name}`),
    );

    expect(answers).toEqual(
      DOCS_ASSETS.map((asset) => ({ status: 200, type: asset.contentType, bytes: statSync(join(folder, asset.name)).size })),
    );
  });
});
