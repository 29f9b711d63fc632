/**
 * The catalog of social operations: the definitions (definitions.ts: name, network, description,
 * credit cost, zod/mini input and output schemas) and the descriptors the listing returns, whose
 * JSON Schemas (draft 2020-12) are generated from the zod schemas at build time
 * (scripts/catalog-descriptors.ts) and read by descriptors.ts.
 *
 * Only the run function imports this module (it is large; see docs/social-operations.md); the
 * listing imports descriptors.ts alone.
 */

import { defined } from '../../defined.ts';
import { allDescriptors, type OperationDescriptor } from './descriptors.ts';
import type { OperationDefinition } from './shapes.ts';

export { CATALOG, operationsOfNetworks } from './definitions.ts';
export type { OperationDescriptor } from './descriptors.ts';
export { OPERATION_NAMES, type OperationName } from './names.ts';
export type { OperationDefinition } from './shapes.ts';

/** One operation's descriptor. */
export const descriptor = (definition: OperationDefinition): OperationDescriptor =>
  defined(allDescriptors().get(definition.name), `the descriptor of ${definition.name}`);

/** Every operation's descriptor by name, in catalog order (the same objects `descriptor` returns). */
export const descriptors = (): ReadonlyMap<string, OperationDescriptor> => allDescriptors();
