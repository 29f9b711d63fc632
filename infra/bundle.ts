/**
 * Builds one function's bundle with esbuild's API and the stack's options (infra/bundling.ts),
 * for the bundle report and the bundle tests.
 */
import { copyFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { assetPath } from '../lib/openapi/read-asset.ts';
import { BUNDLE_FILE, type BuildChoices, bundling, esbuildOptions } from './bundling.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Bundle {
  file: string;
  bytes: number;
  /** Every input module that contributed code to the output, with its share in bytes. */
  inputs: Record<string, number>;
  /** Modules left as imports in the output (only Node built-ins are expected). */
  externals: string[];
}

/** The package (or project folder) a bundled input belongs to: `zod`, `@aws-sdk/core`, `lib/http`. */
export function ownerOf(input: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  return inPackage ? inPackage[1]! : input.split('/').slice(0, -1).join('/') || input;
}

/** A function to bundle: its entry (from the repository root) and the files it reads beside its bundle. */
export interface FunctionSource {
  name: string;
  entry: string;
  assets?: readonly string[];
}

/**
 * Each function as the stack deploys it: `<outDir>/<name>/index.mjs` with its assets copied
 * beside it (as infra/function.ts's command hooks do), all built at once.
 */
export async function bundleFunctions(
  functions: readonly FunctionSource[],
  outDir: string,
  options: { tracer: boolean },
): Promise<Map<string, Bundle>> {
  const built = await bundleEach(
    functions.map((fn) => ({ name: fn.name, entry: join(ROOT, fn.entry) })),
    outDir,
    options,
  );
  for (const fn of functions) for (const asset of fn.assets ?? []) copyFileSync(assetPath(asset), join(outDir, fn.name, basename(asset)));
  return built;
}

/**
 * Functions bundled in one esbuild run, each into `<outDir>/<name>/index.mjs`: every output is
 * byte for byte the bundle a build of its own makes (test/infra/bundles.test.ts compares one),
 * while the modules they share (the AWS SDK, zod, lib/) are read and parsed once. The 30 routes:
 * 13.1 s of esbuild's CPU one by one, 4.2 s at once.
 */
export async function bundleEach(
  functions: readonly { name: string; entry: string }[],
  outDir: string,
  options: BuildChoices,
): Promise<Map<string, Bundle>> {
  if (functions.length === 0) return new Map();
  const extension = extname(BUNDLE_FILE);
  const result = await build({
    ...esbuildOptions(functions[0]!.entry, BUNDLE_FILE, options),
    entryPoints: Object.fromEntries(functions.map((fn) => [join(fn.name, basename(BUNDLE_FILE, extension)), fn.entry])),
    outfile: undefined,
    outdir: outDir,
    outExtension: { '.js': extension },
    metafile: true,
  });
  return new Map(functions.map((fn) => [fn.name, describe(join(outDir, fn.name, BUNDLE_FILE), result.metafile)]));
}

/** The bundled local server's Lambda runtime (lib/local/lambda-runtime.ts) as one file in `outDir`. */
export async function bundleLambdaRuntime(outDir: string): Promise<string> {
  const outfile = join(outDir, 'lambda-runtime.mjs');
  await build({
    entryPoints: [join(ROOT, 'lib/local/lambda-runtime.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: bundling.target,
    format: 'esm',
    logLevel: 'warning',
  });
  return outfile;
}

export async function bundle(entry: string, outDir: string, options: BuildChoices): Promise<Bundle> {
  const file = join(outDir, BUNDLE_FILE);
  const result = await build({ ...esbuildOptions(entry, file, options), metafile: true });
  return describe(file, result.metafile);
}

function describe(file: string, metafile: Metafile): Bundle {
  const output = Object.entries(metafile.outputs).find(
    ([path, candidate]) => candidate.entryPoint !== undefined && resolve(path) === resolve(file),
  )![1];
  return {
    file,
    bytes: statSync(file).size,
    inputs: Object.fromEntries(Object.entries(output.inputs).map(([path, { bytesInOutput }]) => [path, bytesInOutput])),
    externals: output.imports.filter((imported) => imported.external).map((imported) => imported.path),
  };
}
