/**
 * Builds the typed client as a package (client/dist/, what `npm pack` in client/ ships; its
 * `prepack` runs this): one ES module with openapi-fetch bundled in, and its types, with
 * openapi-fetch's own types vendored beside them. So the package has no dependency at all: it
 * installs from its tarball alone, offline, from any registry or none, and ships exactly the
 * openapi-fetch its tests ran (docs/openapi.md, "The typed client as a package").
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';
import { clientTypesText, DOCUMENT_FILE } from '../lib/openapi/artifacts.ts';

const ROOT = resolve(import.meta.dirname, '..');
const CLIENT = join(ROOT, 'client');
const DIST = join(CLIENT, 'dist');
const VENDOR = join(DIST, 'vendor');

/** The vendored packages: where their types are read, and the module specifier that imports them. */
const VENDORED = [
  { name: 'openapi-fetch', types: 'dist/index.d.mts' },
  { name: 'openapi-typescript-helpers', types: 'dist/index.d.mts' },
] as const;

const packageDir = (name: string) => join(ROOT, 'node_modules', name);
const versionOf = (name: string) =>
  (JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as { version: string }).version;

/**
 * `from 'openapi-fetch'` → `from './vendor/openapi-fetch.js'` (relative to the file the text is
 * in): type-only imports, which TypeScript resolves to the `.d.ts` beside them; no JavaScript of
 * theirs is imported at run time but the bundle's.
 */
function pointAtVendored(text: string, fromDir: string): string {
  let result = text;
  for (const { name } of VENDORED) {
    const target = join(VENDOR, `${name}.js`);
    let specifier = target.slice(fromDir.length + 1);
    if (!specifier.startsWith('.')) specifier = `./${specifier}`;
    result = result.replaceAll(`'${name}'`, `'${specifier}'`).replaceAll(`"${name}"`, `"${specifier}"`);
  }
  return result;
}

async function buildClient(): Promise<void> {
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(VENDOR, { recursive: true });

  const banner = `/* @workspace-service/client (MIT). Includes ${VENDORED.map(({ name }) => `${name} ${versionOf(name)}`).join(' and ')}, MIT: dist/vendor/. */`;
  await build({
    entryPoints: [join(CLIENT, 'index.ts')],
    outfile: join(DIST, 'index.js'),
    bundle: true,
    format: 'esm',
    // Browsers, Node 18+, Deno, Bun, workers: it needs fetch and nothing of any platform.
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    banner: { js: banner },
    legalComments: 'eof',
    logLevel: 'warning',
  });

  // The types: the committed document's, written fresh (not a checkout's possibly stale copy),
  // then the declarations of index.ts, which import openapi-fetch's types, pointed at the vendored copies.
  const document = JSON.parse(readFileSync(join(ROOT, DOCUMENT_FILE), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(DIST, 'schema.d.ts'), await clientTypesText(document));
  const program = ts.createProgram([join(CLIENT, 'index.ts')], {
    declaration: true,
    emitDeclarationOnly: true,
    outDir: DIST,
    rootDir: CLIENT,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    strict: true,
    skipLibCheck: true,
  });
  const emitted: Record<string, string> = {};
  const result = program.emit(undefined, (file, text) => {
    emitted[file] = text;
  });
  const problems = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (problems.length > 0) throw new Error(ts.formatDiagnostics(problems, ts.createCompilerHost({})));
  const declarations = emitted[join(DIST, 'index.d.ts')];
  if (!declarations) throw new Error(`no declarations emitted for client/index.ts (got ${Object.keys(emitted).join(', ')})`);
  writeFileSync(join(DIST, 'index.d.ts'), pointAtVendored(declarations, DIST));

  for (const { name, types } of VENDORED) {
    writeFileSync(join(VENDOR, `${name}.d.ts`), pointAtVendored(readFileSync(join(packageDir(name), types), 'utf8'), VENDOR));
    copyFileSync(join(packageDir(name), 'LICENSE'), join(VENDOR, `${name}.LICENSE`));
  }
  copyFileSync(join(ROOT, 'LICENSE'), join(DIST, 'LICENSE'));
}

await buildClient();
console.log(`built ${DIST.slice(ROOT.length + 1)}/`);
