/**
 * The web console's two files (GET /console/{asset}), built from `console/src` by
 * `lib/console/build.ts` with esbuild. Pure data and one pure function: the route table reads
 * the list (the stack copies each `source` beside the functions' bundles), the build writes to
 * it, and the page and asset functions name each file by a hash of its content, so that a file
 * can be cached for a year and a new build is a new URL.
 */
import { createHash } from 'node:crypto';

export interface ConsoleAsset {
  /** The file's name before hashing: `console.js` is served as `console.<hash>.js`. */
  name: 'console.js' | 'console.css';
  /** The built file in the repository (a build output, not kept in git); copied beside the bundle when deployed. */
  source: string;
  contentType: string;
}

export const CONSOLE_ASSETS: readonly ConsoleAsset[] = [
  { name: 'console.js', source: './console/dist/console.js', contentType: 'text/javascript; charset=utf-8' },
  { name: 'console.css', source: './console/dist/console.css', contentType: 'text/css; charset=utf-8' },
];

/** `console.js` with this content → `console.<first 16 hex digits of its SHA-256>.js`. */
export function hashedName(name: string, content: Buffer | string): string {
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 16);
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
}
