/**
 * Every route's function (and the charge sweeper's), bundled exactly as the stack deploys it (infra/bundling.ts): the AWS
 * SDK is inside, nothing but Node built-ins is left to resolve at run time, a function carries
 * no code of another feature, and the bundle loads in a fresh `node` with a Lambda-like
 * environment. Sizes and load times are `npm run bundle:report`'s business, not a test's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type Bundle, bundle } from '../../infra/bundle.ts';
import { SWEEPER_ENTRY } from '../../infra/sweeper.ts';
import { routes } from '../../lib/routes.ts';

const outDir = mkdtempSync(join(tmpdir(), 'bundles-test-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

// Every route's function, and the charge sweeper (scheduled, not a route).
const functions = [...routes, { name: 'SweepCharges', path: '(schedule)', entry: SWEEPER_ENTRY }];
const built = new Map<string, Bundle>();
for (const [i, fn] of functions.entries()) {
  built.set(fn.name, await bundle(resolve(fn.entry), join(outDir, String(i)), { tracer: false }));
}
const inputs = (name: string) => Object.keys(built.get(name)!.inputs);

describe.each(functions.map((fn) => [fn.name, fn] as const))('%s', (name, route) => {
  it('bundles the AWS SDK and leaves only Node built-ins external', () => {
    const builtins = new Set([...builtinModules, ...builtinModules.map((module) => `node:${module}`)]);

    expect(built.get(name)!.externals.filter((module) => !builtins.has(module))).toEqual([]);
  });

  it('carries no code of another feature, no Tracer, and no zod locale but English', () => {
    const bundled = inputs(name);

    if (!route.path.startsWith('/social')) expect(bundled.filter((input) => input.startsWith('lib/social/'))).toEqual([]);
    expect(bundled.filter((input) => /aws-xray-sdk|powertools\/tracer/.test(input))).toEqual([]);
    expect(bundled.filter((input) => input.includes('zod/v4/locales/') && !input.endsWith('/en.js'))).toEqual([]);
  });

  it('loads in a fresh node process', () => {
    const file = pathToFileURL(built.get(name)!.file).href;
    const child = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `const m = await import(${JSON.stringify(file)}); console.log(typeof m.handler);`],
      {
        env: {
          PATH: process.env.PATH,
          AWS_REGION: 'us-east-1',
          AWS_LAMBDA_FUNCTION_NAME: name,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
        encoding: 'utf8',
      },
    );

    expect({ status: child.status, stdout: child.stdout.trim(), stderr: child.stderr }).toEqual({
      status: 0,
      stdout: 'function',
      stderr: '',
    });
  });
});

describe('ListSocialOperations', () => {
  it('bundles no provider and no Secrets Manager client: the listing needs only the served names', () => {
    const bundled = inputs('ListSocialOperations');

    expect(bundled.filter((input) => input.startsWith('lib/social/providers/'))).toEqual(['lib/social/providers/served.ts']);
    expect(bundled.filter((input) => input.includes('client-secrets-manager'))).toEqual([]);
  });
});

describe('with the Tracer asked for (`-c tracer=true`)', () => {
  it('bundles the Powertools Tracer and the X-Ray SDK, and still loads', async () => {
    const route = routes.find((candidate) => candidate.path === '$default')!;
    const traced = await bundle(resolve(route.entry), join(outDir, 'traced'), { tracer: true });
    const child = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(traced.file).href)});`],
      {
        env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: route.name },
        encoding: 'utf8',
      },
    );

    expect(Object.keys(traced.inputs).some((input) => input.includes('aws-xray-sdk-core'))).toBe(true);
    expect({ status: child.status, stderr: child.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
