/**
 * The operation definitions, by name, in catalog order: one per operation (name, network,
 * description, credit cost, zod/mini input and output schemas, each built on first use).
 * Apart from index.ts so that scripts/catalog-descriptors.ts can generate the descriptors from
 * them without importing the descriptors it generates.
 */
import { crossNetwork } from './cross-network.ts';
import { facebook } from './facebook.ts';
import { instagram } from './instagram.ts';
import { linkedin } from './linkedin.ts';
import { OPERATION_NAMES } from './names.ts';
import { reddit } from './reddit.ts';
import type { OperationDefinition } from './shapes.ts';
import { tiktok } from './tiktok.ts';
import { x } from './x.ts';
import { youtube } from './youtube.ts';

const definitions = [...instagram, ...tiktok, ...linkedin, ...youtube, ...facebook, ...reddit, ...x, ...crossNetwork];

export const CATALOG: ReadonlyMap<string, OperationDefinition> = new Map(definitions.map((definition) => [definition.name, definition]));

// The name list and the definitions must agree exactly: a typo in either is a load-time error.
if (CATALOG.size !== definitions.length || OPERATION_NAMES.some((name) => !CATALOG.has(name)) || CATALOG.size !== OPERATION_NAMES.length) {
  throw new Error('social catalog: definitions do not match OPERATION_NAMES');
}

export const operationsOfNetworks = (networks: readonly string[]): OperationDefinition[] =>
  definitions.filter((definition) => definition.network === undefined || networks.includes(definition.network));
