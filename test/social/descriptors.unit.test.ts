import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allDescriptors } from '../../lib/social/catalog/descriptors.ts';
import { DESCRIPTORS_FILE, descriptorsText, generateDescriptors } from '../../scripts/catalog-descriptors.ts';

// One generation for both checks: it builds 104 JSON Schemas.
const generated = generateDescriptors();

describe('the descriptors generated at build time (run `npm run catalog:descriptors` after changing a schema)', () => {
  it('descriptors.json is what the zod schemas generate', () => {
    expect(readFileSync(DESCRIPTORS_FILE, 'utf8')).toBe(descriptorsText(generated));
  });

  it('descriptors.packed.ts, which the code reads, unpacks to the same descriptors in the same order', () => {
    const unpacked = [...allDescriptors().values()];

    expect(JSON.stringify(unpacked)).toBe(JSON.stringify(generated));
  });
});
