/**
 * `npm run build:console` (and `prepare`): builds the web console (lib/console/build.ts) and
 * prints each file's size, gzipped too, against the first load's budget.
 */
import { buildConsole, CONSOLE_BUDGET_GZIP_BYTES } from '../lib/console/build.ts';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const files = await buildConsole();
for (const file of files) console.log(`console/dist/${file.name}: ${kb(file.bytes)} (${kb(file.gzipBytes)} gzipped)`);
const js = files.filter((file) => file.name.endsWith('.js')).reduce((sum, file) => sum + file.gzipBytes, 0);
console.log(`first-load JavaScript: ${kb(js)} gzipped, of a ${kb(CONSOLE_BUDGET_GZIP_BYTES)} budget`);
