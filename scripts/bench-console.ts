/**
 * `npm run bench:console`: how soon the console is usable, in headless Chromium against the local
 * stack as `npm start` runs it (the demo workspace, the demo users), cold every time (a fresh
 * browser context: no cache, no session). BENCH_CONSOLE_RUNS (7) loads of GET /console, each
 * timing, from the navigation's start:
 * - `sign-in ready`: the sign-in controls rendered and usable (the page's mark
 *   `console:sign-in-ready`), what the contract holds to 1 s;
 * - `signed in`: a click on the demo owner to the balance on screen;
 * - `chart`: the usage chart drawn after its data arrived (`console:usage-chart-render`), held to 200 ms.
 * Also the first load's size (the script and the style sheet, gzipped as sent). Prints the
 * median and the worst of each, and writes bench-output/console.json. Timings on a shared machine
 * vary: run it on a quiet one to compare.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { buildConsole } from '../lib/console/build.ts';
import { launchChromium } from '../test/support/browser.ts';
import { startBenchStack, UNDER_LOAD } from './bench/local.ts';

const OUTPUT = join(import.meta.dirname, '..', 'bench-output');
const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 7);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const ms = (value: number) => `${value.toFixed(0)} ms`;

async function main() {
  const files = await buildConsole();
  const stack = await startBenchStack(UNDER_LOAD);
  const { DEMO, seedDemoWorkspace } = await import('../lib/local/seed.ts');
  const { createLocalServer, loadHandlers } = await import('../lib/local/server.ts');
  // The table's stream counted into usage, as `npm start` does: the demo's history is the chart.
  const { startTableStream } = await import('../test/support/table-stream.ts');
  const stream = await startTableStream();
  await seedDemoWorkspace();
  await stream.catchUp();
  const demoUsers = () => Object.entries(DEMO.users).map(([role, userId]) => ({ role, user_id: userId, token: stack.tokenFor(userId) }));
  const server = createLocalServer(await loadHandlers(), { demoUsers });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { browser, close } = await launchChromium('bench-console');
  const samples: { signInReady: number; signedIn: number; chart: number }[] = [];
  try {
    for (let run = 0; run < RUNS; run += 1) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width: 1200, height: 900 });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(`${baseUrl}/console`, { waitUntil: 'load' });
      const button = await page.waitForSelector('::-p-text(Sign in as owner)', { timeout: 10_000 });
      const signInReady = (await page.evaluate("performance.getEntriesByName('console:sign-in-ready')[0].startTime")) as number;
      const clicked = (await page.evaluate('performance.now()')) as number;
      await button?.click();
      await page.waitForSelector('[data-testid="balance"]', { timeout: 10_000 });
      const signedIn = ((await page.evaluate('performance.now()')) as number) - clicked;
      await page.evaluate("location.hash = '#usage'");
      await page.waitForFunction("performance.getEntriesByName('console:usage-chart-render').length > 0", { timeout: 10_000 });
      const chart = (await page.evaluate("performance.getEntriesByName('console:usage-chart-render')[0].duration")) as number;
      if (errors.length > 0) throw new Error(`the page failed: ${errors.join('; ')}`);
      samples.push({ signInReady, signedIn, chart });
      await context.close();
    }
  } finally {
    await close();
    server.close();
    await stream.stop();
    await stack.stop();
  }
  const report = {
    runs: RUNS,
    loadAverage: loadavg(),
    javascriptGzipBytes: files.filter((file) => file.name.endsWith('.js')).reduce((sum, file) => sum + file.gzipBytes, 0),
    scriptAndStyleGzipBytes: files.reduce((sum, file) => sum + file.gzipBytes, 0),
    signInReadyMs: {
      median: median(samples.map((sample) => sample.signInReady)),
      max: Math.max(...samples.map((sample) => sample.signInReady)),
    },
    signedInMs: { median: median(samples.map((sample) => sample.signedIn)), max: Math.max(...samples.map((sample) => sample.signedIn)) },
    chartRenderMs: { median: median(samples.map((sample) => sample.chart)), max: Math.max(...samples.map((sample) => sample.chart)) },
  };
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(join(OUTPUT, 'console.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log(`console, ${RUNS} cold loads (load average ${report.loadAverage.map((value) => value.toFixed(1)).join(' ')}):`);
  console.log(`  sign-in usable after  ${ms(report.signInReadyMs.median)} median, ${ms(report.signInReadyMs.max)} worst (contract: 1 s)`);
  console.log(`  signed in (click → balance) ${ms(report.signedInMs.median)} median, ${ms(report.signedInMs.max)} worst`);
  console.log(
    `  usage chart drawn     ${ms(report.chartRenderMs.median)} median, ${ms(report.chartRenderMs.max)} worst after its data (contract: 200 ms)`,
  );
  console.log(
    `  first load: ${(report.javascriptGzipBytes / 1024).toFixed(1)} KB of JavaScript gzipped (${(report.scriptAndStyleGzipBytes / 1024).toFixed(1)} KB with the style sheet)`,
  );
}

await main();
