/**
 * Writes client/schema.d.ts, the typed client's types, from the committed openapi.json. It runs
 * on `npm ci` / `npm install` (the `prepare` script), so a checkout always has them: they are
 * generated output, not kept in git (docs/openapi.md). `npm run openapi` rewrites both files
 * after a change to the API.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CLIENT_TYPES_FILE, clientTypesText, DOCUMENT_FILE } from '../lib/openapi/artifacts.ts';

const root = resolve(import.meta.dirname, '..');
const document = JSON.parse(readFileSync(resolve(root, DOCUMENT_FILE), 'utf8'));
writeFileSync(resolve(root, CLIENT_TYPES_FILE), await clientTypesText(document));
