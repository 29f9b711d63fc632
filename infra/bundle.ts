/**
 * Builds one function's bundle with esbuild's API and the stack's options (infra/bundling.ts),
 * for the bundle report and the bundle tests.
 */
import { copyFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
  const built = await Promise.all(
    functions.map(async (fn) => {
      const dir = join(outDir, fn.name);
      const result = await bundle(join(ROOT, fn.entry), dir, options);
      for (const asset of fn.assets ?? []) copyFileSync(assetPath(asset), join(dir, basename(asset)));
      return [fn.name, result] as const;
    }),
  );
  return new Map(built);
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
  const output = Object.values(metafile.outputs).find((candidate) => candidate.entryPoint !== undefined)!;
  return {
    file,
    bytes: statSync(file).size,
    inputs: Object.fromEntries(Object.entries(output.inputs).map(([path, { bytesInOutput }]) => [path, bytesInOutput])),
    externals: output.imports.filter((imported) => imported.external).map((imported) => imported.path),
  };
}
