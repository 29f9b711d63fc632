/**
 * The descriptors the listing returns (name, network, description with the cost, input and
 * output JSON Schemas), read from data generated at build time from the zod schemas
 * (`npm run catalog:descriptors`, kept current by a test): the listing bundles neither the zod
 * schemas nor the JSON Schema generator (docs/social-operations.md, "Descriptors").
 */
import { brotliDecompressSync } from 'node:zlib';
import { PACKED_DESCRIPTORS } from './descriptors.packed.ts';
import type { Network } from './shapes.ts';

export interface OperationDescriptor {
  name: string;
  network?: Network;
  description: string;
  /** Credits a run costs. */
  cost: number;
  /** Credits a run answered from the organization's cached result costs. */
  cached_cost: number;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown>;
}

let all: ReadonlyMap<string, OperationDescriptor> | undefined;

/**
 * Every operation's descriptor by name, in catalog order. Unpacked on first use (a few ms,
 * docs/performance.md#bundles-size-and-cold-start) and kept for the life of the instance: module load does not pay
 * for it.
 */
export function allDescriptors(): ReadonlyMap<string, OperationDescriptor> {
  if (!all) {
    const descriptors = JSON.parse(
      brotliDecompressSync(Buffer.from(PACKED_DESCRIPTORS, 'base64')).toString('utf8'),
    ) as OperationDescriptor[];
    all = new Map(descriptors.map((descriptor) => [descriptor.name, descriptor]));
  }
  return all;
}
