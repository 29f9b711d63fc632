/**
 * The catalog of social operations: one definition per operation (name, network, description,
 * credit cost, zod input and output schemas, each built on first use), and the descriptors the
 * listing returns, whose JSON Schemas (draft 2020-12) are generated from the zod schemas once
 * per operation, on first use.
 *
 * Only the two social functions import this module (it is large; see docs/social-operations.md).
 */
import * as z from 'zod/mini';
import { crossNetwork } from './cross-network.ts';
import { facebook } from './facebook.ts';
import { instagram } from './instagram.ts';
import { linkedin } from './linkedin.ts';
import { OPERATION_NAMES } from './names.ts';
import { reddit } from './reddit.ts';
import type { Network, OperationDefinition } from './shapes.ts';
import { tiktok } from './tiktok.ts';
import { x } from './x.ts';
import { youtube } from './youtube.ts';

export { OPERATION_NAMES, type OperationName } from './names.ts';
export type { OperationDefinition } from './shapes.ts';

const definitions = [...instagram, ...tiktok, ...linkedin, ...youtube, ...facebook, ...reddit, ...x, ...crossNetwork];

export const CATALOG: ReadonlyMap<string, OperationDefinition> = new Map(definitions.map((definition) => [definition.name, definition]));

// The name list and the definitions must agree exactly: a typo in either is a load-time error.
if (CATALOG.size !== definitions.length || OPERATION_NAMES.some((name) => !CATALOG.has(name)) || CATALOG.size !== OPERATION_NAMES.length) {
  throw new Error('social catalog: definitions do not match OPERATION_NAMES');
}

export interface OperationDescriptor {
  name: string;
  network?: Network;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
}

const jsonSchema = (schema: z.core.$ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Record<string, unknown>;

const descriptorCache = new Map<string, OperationDescriptor>();

/**
 * One operation's descriptor, computed on first use and kept for the life of the instance.
 * Lazily, and per operation, because only the listing needs them and only for the operations
 * it lists: the run function would otherwise build every operation's zod schemas and generate
 * 104 JSON Schemas on every cold start for nothing. Input schemas describe what a caller may
 * send (fields with defaults are optional); output schemas describe what comes back.
 */
export function descriptor(definition: OperationDefinition): OperationDescriptor {
  let found = descriptorCache.get(definition.name);
  if (!found) {
    found = {
      name: definition.name,
      ...(definition.network ? { network: definition.network } : {}),
      description: `${definition.description} Costs ${definition.cost} credit${definition.cost === 1 ? '' : 's'}.`,
      input_schema: jsonSchema(definition.input, 'input'),
      output_schema: jsonSchema(definition.output, 'output'),
    };
    descriptorCache.set(definition.name, found);
  }
  return found;
}

/** Every operation's descriptor, in catalog order (the same objects `descriptor` returns). */
export const descriptors = (): ReadonlyMap<string, OperationDescriptor> =>
  new Map(definitions.map((definition) => [definition.name, descriptor(definition)]));

export const operationsOfNetworks = (networks: readonly string[]): OperationDefinition[] =>
  definitions.filter((definition) => definition.network === undefined || networks.includes(definition.network));
