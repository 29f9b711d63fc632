/**
 * The last step of `npm ci` (the `prepare` script): what the first `npm test` or `npm start`
 * of a fresh clone would otherwise do, once, into node_modules/.cache: inflate the headless
 * Chromium the browser tests use (test/support/chromium.ts, ~5 CPU-s) and compile DynamoDB
 * Local's launcher (lib/local/dynamodb-local.ts, a javac run). Neither is required here: on a
 * machine without a JDK, or off Linux x64, the command that needs one says so, as before, and
 * `npm run test:unit` needs neither.
 */
import { launcherClassPath } from '../lib/local/dynamodb-local.ts';
import { findChromium } from '../test/support/chromium.ts';

const steps: [string, () => unknown][] = [
  ["the browser tests' Chromium", () => findChromium()],
  ["DynamoDB Local's launcher", () => launcherClassPath()],
];

const results = await Promise.allSettled(steps.map(async ([, step]) => step()));
results.forEach((result, index) => {
  if (result.status === 'rejected')
    console.warn(`prepare: ${steps[index]![0]} left for later: ${(result.reason as Error).message.split('\n')[0]}`);
});
