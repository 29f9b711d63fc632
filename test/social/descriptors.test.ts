import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DESCRIPTORS_FILE, descriptorsText } from '../../scripts/catalog-descriptors.ts';

describe('lib/social/catalog/descriptors.json', () => {
  it('is what `npm run catalog:descriptors` generates from the zod schemas (run it after changing a schema)', () => {
    expect(readFileSync(DESCRIPTORS_FILE, 'utf8')).toBe(descriptorsText());
  });
});
