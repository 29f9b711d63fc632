/**
 * How every function is bundled: one description, read by the CDK stack (NodejsFunction) and
 * by `npm run bundle:report` (esbuild's API), so the report measures what is deployed.
 * Decisions (docs/deployment.md, "Bundling"):
 * - ESM, minified, target node22: the Lambda runtime is nodejs22.x.
 * - `@aws-sdk/*` is bundled, not taken from the runtime: the version that ran the tests is the
 *   version that runs in Lambda, and esbuild drops the parts of the SDK we never call.
 * - `module` before `main`: the SDK's and Powertools' ES builds tree-shake better.
 * - A `require` shim: some CommonJS dependencies (the X-Ray SDK) `require` Node built-ins,
 *   which an ES module bundle cannot do without one.
 * - The Powertools Tracer is in the bundle only when asked for (`tracer`; see
 *   lib/observability/tracer.ts): a constant replaces `process.env.WORKSPACE_TRACER`. Another
 *   (`process.env.WORKSPACE_ROUTE_NAMES`) gives the route names, so no bundle carries the route
 *   table (lib/http/observability.ts).
 * - A linked source map without sources: not read at run time (no cold-start cost) unless an
 *   operator sets NODE_OPTIONS=--enable-source-maps to read a stack trace.
 * - The AWS SDK's default credential chain replaced by its first link, the environment
 *   (`aliases`; infra/stubs/credentials-from-env.ts says why; what it saves: docs/performance.md#bundles-size-and-cold-start).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { routeNames } from '../lib/routes.ts';

const STUBS = join(dirname(fileURLToPath(import.meta.url)), 'stubs');

/** Packages bundled as a module of ours (absolute paths), in every function. */
export const aliases: Record<string, string> = {
  '@aws-sdk/credential-provider-node': join(STUBS, 'credentials-from-env.ts'),
};

export const bundling = {
  target: 'node22',
  format: 'esm',
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  external: [] as string[],
  banner: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
} as const;

/**
 * Build-time constants: with `tracer` false the Tracer and the X-Ray SDK are dead code; the
 * route names (route key → name, for logs and metrics) replace the route table in every bundle.
 */
export const defines = (tracer: boolean): Record<string, string> => ({
  'process.env.WORKSPACE_TRACER': JSON.stringify(String(tracer)),
  'process.env.WORKSPACE_ROUTE_NAMES': JSON.stringify(JSON.stringify(routeNames())),
});

/** The file name NodejsFunction gives an ESM bundle; the handler is `index.handler`. */
export const BUNDLE_FILE = 'index.mjs';

/**
 * How a build is asked for: with the Tracer or not; `sdkCredentialChain` keeps the SDK's own
 * default credential chain (no `aliases`), for the bundle report's bare client only.
 */
export interface BuildChoices {
  tracer: boolean;
  sdkCredentialChain?: boolean;
}

/** The same build through esbuild's API (bundle report, bundle tests). */
export function esbuildOptions(entry: string, outfile: string, options: BuildChoices): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: bundling.target,
    format: bundling.format,
    minify: bundling.minify,
    sourcemap: bundling.sourceMap ? 'linked' : false,
    sourcesContent: bundling.sourcesContent,
    mainFields: [...bundling.mainFields],
    external: [...bundling.external],
    banner: { js: bundling.banner },
    define: defines(options.tracer),
    alias: options.sdkCredentialChain ? {} : aliases,
    logLevel: 'warning',
  };
}
