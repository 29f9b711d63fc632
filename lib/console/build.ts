/**
 * Builds the web console (docs/console.md): `console/src/main.tsx` and everything it imports
 * (Preact, uPlot, the typed client) into one minified ES module and one style sheet, the files
 * `lib/console-assets.ts` names and this folder serves. esbuild, as for the functions; no CDN, no
 * code splitting (the whole console is one small first load). A module, not a script, so that the
 * CDK app (infra/app.ts) builds it before synth without importing scripts/; `npm run
 * build:console` (scripts/build-console.ts) prints each file's size, and `prepare` (npm ci),
 * `npm start` and the console tests build it too. Never in a function's bundle: no route imports
 * it. The first load is held to CONSOLE_BUDGET_GZIP_BYTES of JavaScript, gzipped
 * (test/console/page.unit.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { CONSOLE_ASSETS } from '../console-assets.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

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
