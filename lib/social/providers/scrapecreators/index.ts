/**
 * ScrapeCreators (https://docs.scrapecreators.com): per network, one module of mappings (the
 * endpoint of each operation it serves, the query built from our input, the vendor's response
 * shape and its translation into our normalized output), like the catalog's one file per
 * network. Operations without a mapping are not served by the `http` provider (operations.ts).
 *
 * Every network is imported here, statically: loading a network module builds no schema (each
 * response schema is built on its operation's first run), and a dynamic import per network did
 * not make the function's cold start cheaper (docs/social-operations.md, "Providers").
 */

import { facebook } from './facebook.ts';
import { instagram } from './instagram.ts';
import { linkedin } from './linkedin.ts';
import type { Mapping } from './mapping.ts';
import { SCRAPECREATORS_OPERATIONS } from './operations.ts';
import { reddit } from './reddit.ts';
import { tiktok } from './tiktok.ts';
import { x } from './x.ts';
import { youtube } from './youtube.ts';

export { verificationFor, verifiedAccount } from './cross-network.ts';
export type { Mapping } from './mapping.ts';

/** Every mapping, by operation name, in catalog order. */
export const MAPPINGS: Readonly<Record<string, Mapping | undefined>> = {
  ...instagram,
  ...tiktok,
  ...linkedin,
  ...youtube,
  ...facebook,
  ...reddit,
  ...x,
};

/** The mapping of a served operation; undefined for any other name (even "constructor"). */
export const mappingFor = (operation: string): Mapping | undefined =>
  SCRAPECREATORS_OPERATIONS.has(operation) ? MAPPINGS[operation] : undefined;
