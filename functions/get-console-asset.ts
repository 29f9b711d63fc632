import { consoleFiles, IMMUTABLE } from '../lib/console/files.ts';
import { notFound } from '../lib/errors.ts';
import { baseChain } from '../lib/http/base-chain.ts';
import { type StaticBody, staticBody, staticReply } from '../lib/http/static-reply.ts';
import { ICON_CONTENT_TYPE, ICON_SVGS, iconFileNames } from '../lib/icons.ts';

/** The MCP icons (lib/icons.ts) by their hashed names, gzipped once per instance. */
let icons: Map<string, StaticBody> | undefined;
const iconBodies = () =>
  (icons ??= new Map([...iconFileNames()].map(([name, file]) => [file, staticBody(ICON_SVGS[name], ICON_CONTENT_TYPE, IMMUTABLE)])));

/**
 * GET /console/{asset} — the console's script or style sheet, by the hashed name the page links
 * (`console.<hash>.js`), or an icon MCP clients show (`icon-x.<hash>.svg`): cached for a year.
 * Any other name, an earlier build's included, is 404.
 */
export const handler = baseChain().handler(async (event) => {
  const name = event.pathParameters?.asset;
  const file = [...consoleFiles().values()].find((candidate) => candidate.hashedName === name);
  const body = file?.body ?? (name === undefined ? undefined : iconBodies().get(name));
  if (!body) throw notFound();
  // An SVG opened by itself runs no script here: ours have none, and the sandbox says so to the browser.
  const extra: Record<string, string> = file ? {} : { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox" };
  return staticReply(body, event, { 'X-Content-Type-Options': 'nosniff', ...extra });
});
