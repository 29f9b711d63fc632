/** Prints the error catalog as the Markdown table docs/api-conventions.md carries (`npm run --silent docs:errors`). */
import { ERROR_CATALOG } from '../lib/errors.ts';

export const errorCatalogTable = (): string =>
  [
    '| Code | Status | Default message |',
    '| --- | --- | --- |',
    ...Object.entries(ERROR_CATALOG).map(([code, { status, message }]) => `| \`${code}\` | ${status} | ${message} |`),
  ].join('\n');

if (import.meta.url === `file://${process.argv[1]}`) console.log(errorCatalogTable());
