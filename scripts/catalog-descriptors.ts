/**
 * `npm run catalog:descriptors`: writes the social catalog's descriptors (name, network,
 * description with its cost, input and output JSON Schemas) to
 * lib/social/catalog/descriptors.json, generated from the zod schemas of lib/social/catalog/.
 * The zod schemas stay the one source of truth: test/social/descriptors.test.ts fails when the
 * file differs from what this script would write (docs/social-operations.md, "Descriptors").
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import { CATALOG } from '../lib/social/catalog/index.ts';
import type { OperationDefinition } from '../lib/social/catalog/shapes.ts';

export const DESCRIPTORS_FILE = fileURLToPath(new URL('../lib/social/catalog/descriptors.json', import.meta.url));

const jsonSchema = (schema: z.core.$ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Record<string, unknown>;

/**
 * One operation's descriptor. Input schemas describe what a caller may send (fields with
 * defaults are optional); output schemas describe what comes back.
 */
const describeOperation = (definition: OperationDefinition) => ({
  name: definition.name,
  ...(definition.network ? { network: definition.network } : {}),
  description: `${definition.description} Costs ${definition.cost} credit${definition.cost === 1 ? '' : 's'}.`,
  input_schema: jsonSchema(definition.input, 'input'),
  output_schema: jsonSchema(definition.output, 'output'),
});

/** Every operation's descriptor, in catalog order: the content of descriptors.json. */
export const generateDescriptors = () => [...CATALOG.values()].map(describeOperation);

/** The file's text: one descriptor per element, indented, so that a schema change reads as a diff. */
export const descriptorsText = () => `${JSON.stringify(generateDescriptors(), null, 2)}\n`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(DESCRIPTORS_FILE, descriptorsText());
  console.log(`wrote ${DESCRIPTORS_FILE}`);
}
