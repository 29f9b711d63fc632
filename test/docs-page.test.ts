/**
 * GET /docs in a real browser: headless Chromium (the one inside the `@sparticuz/chromium`
 * package, or `CHROMIUM_PATH`: test/support/chromium.ts), driven by puppeteer-core, opens the
 * page of the local server, which must render every route and every operation from /openapi.json
 * with no console error and no request leaving 127.0.0.1, naming the server's own URL as its
 * server.
 * The page reads the table for nothing, so the server alone, not `npm start`'s whole stack (the
 * seed, the stream poller, the workers: test/console.test.ts runs that one).
 * One browser launch for the file; a screenshot goes to test-output/ (git-ignored).
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalServer, loadHandlers } from '../lib/local/server.ts';
import { routes } from '../lib/routes.ts';
import { CATALOG } from '../lib/social/catalog/index.ts';
import { launchChromium } from './support/browser.ts';

const OUTPUT = new URL('../test-output/', import.meta.url);
/** The routes the document describes: all but `$default` and the console's page routes (pages for people). */
const documented = routes.filter((route) => route.path !== '$default' && !route.page);
const server = createLocalServer(await loadHandlers());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;
afterAll(async () => {
  await chromium?.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

describe('GET /docs in headless Chromium', () => {
  it('renders every route and operation, loading nothing from elsewhere and logging no error', async () => {
    chromium = await launchChromium('docs-page');
    const page = await chromium.browser.newPage();
    await page.setViewport({ width: 1280, height: 1600 });
    const errors: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(`console: ${message.text()}`));
    page.on('pageerror', (error) => errors.push(`page: ${String(error)}`));
    page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(`${baseUrl}/`) && !url.startsWith('data:')) elsewhere.push(url);
    });

    const response = await page.goto(`${baseUrl}/docs`, { waitUntil: 'networkidle0', timeout: 30_000 });
    // Every path of the document rendered (a string: the test's TypeScript has no DOM types).
    await page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${documented.length + CATALOG.size}`, { timeout: 30_000 });
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent?.trim();
        const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path');
        return `${method} ${path}`;
      }),
    );
    // The server the page calls ("Try it out") is this server, on whatever port it runs.
    const servers = await page.$$eval('.servers select option', (options) => options.map((option) => option.getAttribute('value')));
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: new URL('docs-page.png', OUTPUT).pathname });
    // One operation opened: its parameters, body example, schemas and error responses render too.
    await page.click('#operations-instagram-instagram_profile .opblock-summary-control');
    const opened = await page.waitForSelector('#operations-instagram-instagram_profile .responses-wrapper', { timeout: 30_000 });
    const openedText = await page.$eval('#operations-instagram-instagram_profile', (block) => block.textContent ?? '');
    const info = await page.$eval('.information-container', (block) => block.textContent ?? '');
    await (await page.$('#operations-instagram-instagram_profile'))?.screenshot({ path: new URL('docs-operation.png', OUTPUT).pathname });

    expect(response?.status()).toBe(200);
    expect(servers).toEqual([baseUrl]);
    expect({ errors, elsewhere }).toEqual({ errors: [], elsewhere: [] });
    for (const route of documented) {
      // An `ANY` route (POST /mcp) is shown under the methods its module describes.
      expect(shown).toContain(`${route.method === 'ANY' ? 'POST' : route.method} ${route.path}`);
    }
    const operations = [...CATALOG.keys()].map((name) => `POST /social/${name}`);
    expect(shown.filter((entry) => operations.includes(entry))).toHaveLength(52);
    expect(await page.title()).toBe('Workspace Service API reference');
    expect(opened).not.toBeNull();
    for (const text of ['Idempotency-Key', 'organization_id', 'natgeo', 'insufficient_credits', 'Credits-Charged'])
      expect(openedText).toContain(text);
    // The license the repository is under, as the document says it.
    expect(info).toContain('MIT');
    expect(info).not.toContain('Proprietary');

    // A browser opening the base URL lands on this page (GET / redirects by Accept).
    await page.goto(`${baseUrl}/`, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    expect(page.url()).toBe(`${baseUrl}/docs`);
  }, 90_000);
});
