import type { Network } from '../model.ts';

/**
 * Whether an organization with these networks may run the operation on a provider serving
 * `served`. The listing asks it of descriptors and the run path of definitions, so that what is
 * listed is exactly what runs. Apart from operations.ts (which re-exports it) because that module
 * imports the catalog's definitions, which the listing must not bundle.
 */
export const isEnabled = (
  operation: { readonly name: string; readonly network?: Network | undefined },
  networks: readonly string[],
  served: (name: string) => boolean,
): boolean => (operation.network === undefined || networks.includes(operation.network)) && served(operation.name);
