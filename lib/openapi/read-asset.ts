import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

// Named apart from `require`: esbuild leaves this call alone (the path is only known at run time).
const resolvePackagePath = createRequire(import.meta.url).resolve;

/**
 * A file the route table lists in `assets`. Deployed, the stack has copied it beside the bundle
 * (this module is then part of index.mjs); locally and in tests it is read from node_modules.
 */
export function readAsset(source: string): Buffer {
  const beside = fileURLToPath(new URL(`./${basename(source)}`, import.meta.url));
  return readFileSync(existsSync(beside) ? beside : resolvePackagePath(source));
}
