/**
 * Builds the web console (docs/console.md): `console/src/main.tsx` and everything it imports
 * (Preact, uPlot, the typed client) into one minified ES module and one style sheet, the files
 * `lib/console-assets.ts` names. esbuild, as for the functions; no CDN, no code splitting (the
 * whole console is one small first load). `npm run build:console` prints each file's size and
 * gzipped size; `prepare` (npm ci), `npm start`, the console tests and `cdk synth` build it first.
 * The first load is held to CONSOLE_BUDGET_GZIP_BYTES of JavaScript, gzipped
 * (test/console/bundle.unit.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { CONSOLE_ASSETS } from '../lib/console-assets.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What the issue allows the console's first load: 150 KB of JavaScript, gzipped. */
export const CONSOLE_BUDGET_GZIP_BYTES = 150 * 1024;

export interface BuiltFile {
  name: string;
  bytes: number;
  gzipBytes: number;
  content: Uint8Array;
}

/** Builds the console; writes the files where the routes read them unless `write` is false. */
export async function buildConsole(options: { write?: boolean } = {}): Promise<BuiltFile[]> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { console: 'console/src/main.tsx' },
    outdir: 'console/dist',
    entryNames: '[name]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // Browsers of the last few years (module scripts, optional chaining, Web Crypto).
    target: ['chrome109', 'firefox115', 'safari16', 'edge109'],
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: 'console/tsconfig.json',
    legalComments: 'eof',
    write: false,
    logLevel: 'warning',
  });
  const files = result.outputFiles.map((file) => ({
    name: basename(file.path),
    bytes: file.contents.byteLength,
    gzipBytes: gzipSync(file.contents).byteLength,
    content: file.contents,
  }));
  const expected = CONSOLE_ASSETS.map((asset) => asset.name).sort();
  const built = files.map((file) => file.name).sort();
  if (JSON.stringify(built) !== JSON.stringify(expected))
    throw new Error(`the console built ${built.join(', ')}, not ${expected.join(', ')}`);
  if (options.write !== false) {
    for (const asset of CONSOLE_ASSETS) {
      const target = join(ROOT, asset.source);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, files.find((file) => file.name === asset.name)?.content ?? '');
    }
  }
  return files;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await buildConsole();
  for (const file of files) console.log(`console/dist/${file.name}: ${kb(file.bytes)} (${kb(file.gzipBytes)} gzipped)`);
  const js = files.filter((file) => file.name.endsWith('.js')).reduce((sum, file) => sum + file.gzipBytes, 0);
  console.log(`first-load JavaScript: ${kb(js)} gzipped, of a ${kb(CONSOLE_BUDGET_GZIP_BYTES)} budget`);
}
