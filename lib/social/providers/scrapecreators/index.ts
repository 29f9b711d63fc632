/**
 * ScrapeCreators (https://docs.scrapecreators.com): per network, one module of mappings (the
 * endpoint of each operation it serves, the query built from our input, the vendor's response
 * shape and its translation into our normalized output), like the catalog's one file per
 * network. Operations without a mapping are not served by the `http` provider (served.ts).
 *
 * A network's module is imported on the first run of one of its operations, so that a cold start
 * builds only that network's response schemas (docs/social-operations.md, "Providers").
 */
import type { Network } from '../../../db/organizations.ts';
import { SCRAPECREATORS_OPERATIONS } from '../served.ts';
import type { Mapping } from './common.ts';

export type { Mapping } from './common.ts';
export { verificationFor, verifiedAccount } from './cross-network.ts';

type Loaded = Readonly<Record<string, Mapping | undefined>>;

/** Each network's mappings, loaded on first use (a module is evaluated once, then cached). */
export const NETWORK_MAPPINGS: Readonly<Record<Network, () => Promise<Loaded>>> = {
  instagram: async () => (await import('./instagram.ts')).instagram,
  tiktok: async () => (await import('./tiktok.ts')).tiktok,
  linkedin: async () => (await import('./linkedin.ts')).linkedin,
  youtube: async () => (await import('./youtube.ts')).youtube,
  facebook: async () => (await import('./facebook.ts')).facebook,
  reddit: async () => (await import('./reddit.ts')).reddit,
  x: async () => (await import('./x.ts')).x,
};

/** The mapping of a served operation; undefined for any other name. Operation names start with their network. */
export async function mappingFor(operation: string): Promise<Mapping | undefined> {
  if (!SCRAPECREATORS_OPERATIONS.has(operation)) return undefined;
  const network = Object.entries(NETWORK_MAPPINGS).find(([name]) => operation.startsWith(`${name}_`));
  return (await network?.[1]())?.[operation];
}
