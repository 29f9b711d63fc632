/**
 * `npm run openapi`: writes the API description (openapi.json) and the typed client's types
 * (client/schema.d.ts) from the route table, the handlers' schemas and the catalogs.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateArtifacts } from '../lib/openapi/artifacts.ts';

for (const [file, text] of Object.entries(await generateArtifacts())) {
  writeFileSync(resolve(import.meta.dirname, '..', file), text);
  console.log(`wrote ${file} (${Math.round(text.length / 1024)} KB)`);
}
