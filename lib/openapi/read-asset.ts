import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

// Named apart from `require`: esbuild leaves this call alone (the path is only known at run time).
const resolvePackagePath = createRequire(import.meta.url).resolve;

/** Where a route's asset is in this checkout: `./file` in the repository, anything else a package path. */
export const assetPath = (source: string): string =>
  source.startsWith('./') ? fileURLToPath(new URL(`../../${source.slice(2)}`, import.meta.url)) : resolvePackagePath(source);

/**
 * A file the route table lists in `assets`. Deployed, the stack has copied it beside the bundle
 * (this module is then part of index.mjs); locally and in tests it is read from the checkout.
 */
export function readAsset(source: string): Buffer {
  const beside = fileURLToPath(new URL(`./${basename(source)}`, import.meta.url));
  return readFileSync(existsSync(beside) ? beside : assetPath(source));
}
