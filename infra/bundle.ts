/**
 * Builds one function's bundle with esbuild's API and the stack's options (infra/bundling.ts),
 * for the bundle report and the bundle tests.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { BUNDLE_FILE, esbuildOptions } from './bundling.ts';

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

export async function bundle(entry: string, outDir: string, options: { tracer: boolean }): Promise<Bundle> {
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
