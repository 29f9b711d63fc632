/**
 * The eight icons MCP clients show beside the server and its tools (docs/mcp.md, "Icons"): one
 * per network and one for the service. Plain SVG (shapes and a letter, no script, no external
 * reference), kept here as text so that the MCP function names them without reading a file: each
 * is served by GET /console/{asset} under a name carrying its content's hash, cached for a year,
 * like the console's own files.
 */
import { hashedName } from './console-assets.ts';
import type { Network } from './model.ts';

export type IconName = Network | 'service';

const svg = (fill: string, letter: string): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="${fill}"/><text x="32" y="43" font-family="Arial,Helvetica,sans-serif" font-size="30" font-weight="700" fill="#fff" text-anchor="middle">${letter}</text></svg>\n`;

export const ICON_SVGS: Record<IconName, string> = {
  service: svg('#334155', 'W'),
  instagram: svg('#c13584', 'Ig'),
  x: svg('#000000', 'X'),
  tiktok: svg('#010101', 'Tk'),
  youtube: svg('#ff0000', 'Yt'),
  facebook: svg('#1877f2', 'f'),
  linkedin: svg('#0a66c2', 'in'),
  reddit: svg('#ff4500', 'r'),
};

export const ICON_CONTENT_TYPE = 'image/svg+xml';

let names: Map<IconName, string> | undefined;

/** Each icon's served name, `icon-<name>.<hash>.svg`, computed once per instance. */
export function iconFileNames(): ReadonlyMap<IconName, string> {
  names ??= new Map(
    (Object.entries(ICON_SVGS) as [IconName, string][]).map(([name, content]) => [name, hashedName(`icon-${name}.svg`, content)]),
  );
  return names;
}

/** The icon an MCP listing names: a same-origin URL on the console's asset route. */
export const iconsOf = (name: IconName, baseUrl: string) => [
  { src: `${baseUrl}/console/${iconFileNames().get(name)}`, mimeType: ICON_CONTENT_TYPE, sizes: ['any'] },
];
