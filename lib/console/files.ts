/**
 * The console's built files, as served: each read once per instance (beside the bundle when
 * deployed, from the checkout locally), gzipped, and named by its content's hash. The page links
 * those names, and GET /console/{asset} answers only them, so a year's cache can never serve a
 * file of another build.
 */
import { CONSOLE_ASSETS, type ConsoleAsset, hashedName } from '../console-assets.ts';
import { type StaticBody, staticBody } from '../http/static-reply.ts';
import { readAsset } from '../openapi/read-asset.ts';

/** A hashed name never changes content: any cache may keep it. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface ConsoleFile {
  asset: ConsoleAsset;
  /** The name it is served under: `console.<hash>.js`. */
  hashedName: string;
  body: StaticBody;
}

let loaded: Map<ConsoleAsset['name'], ConsoleFile> | undefined;

/** Every file of the console, by its plain name; throws, naming the build, when one is missing. */
export function consoleFiles(): ReadonlyMap<ConsoleAsset['name'], ConsoleFile> {
  if (loaded) return loaded;
  const files = new Map<ConsoleAsset['name'], ConsoleFile>();
  for (const asset of CONSOLE_ASSETS) {
    let content: Buffer;
    try {
      content = readAsset(asset.source);
    } catch (error) {
      throw new Error(`the console's ${asset.name} is not built (npm run build:console): ${(error as Error).message}`);
    }
    files.set(asset.name, { asset, hashedName: hashedName(asset.name, content), body: staticBody(content, asset.contentType, IMMUTABLE) });
  }
  loaded = files;
  return files;
}
