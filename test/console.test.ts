/**
 * The web console (GET /console, docs/console.md) in headless Chromium against the local stack:
 * one browser and one stack for the whole file. The demo owner signs in and sees the balance; a
 * run made through the API shows in the usage chart's figures and in billing events; credits are
 * bought on the local payments server's checkout page, and back on `#billing` the purchase is paid
 * and its grant listed; a card is saved on that server's setup page, auto-recharge turned on, and
 * off by removing the card; a key is
 * created, its token copied, used, revoked and refused; a member's limit changes; a project comes
 * back from the trash while a title made of markup shows as text; alerts and an endpoint with its
 * deliveries; a job's progress; a viewer finds no management action; an expired or refused token
 * goes back to sign-in with a message. The browser reports the language a shell without a locale
 * gives it (`en-US@posix`, which Intl refuses: uPlot once left the page blank). On every screen: axe-core (no serious or critical
 * violation), no sideways scroll at 360 px, at most 10 API requests to open, no console error.
 * Screenshots go to test-output/console/, and to docs/console/ with UPDATE_CONSOLE_SCREENSHOTS=1.
 * The first-load time is measured by `npm run bench:console`, not asserted here.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Browser, ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../lib/console/build.ts';
import { getResource } from '../lib/db/resources.ts';
import { DEMO, demoResourceId } from '../lib/local/seed.ts';
import { approve } from '../lib/oauth/consent.ts';
import { launchChromium } from './support/browser.ts';
import { startLocalStack } from './support/local-stack.ts';
import { deleted } from './support/resources.ts';
import { tokenFor } from './support/tokens.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = [new URL('../test-output/console/', import.meta.url)];
if (process.env.UPDATE_CONSOLE_SCREENSHOTS === '1') SHOTS.push(new URL('../docs/console/', import.meta.url));
for (const folder of SHOTS) mkdirSync(folder, { recursive: true });

await buildConsole();
// With the payments server `npm start` runs: the Billing screen buys through its checkout page.
const stack = await startLocalStack({ payments: true });
const org = DEMO.orgId;
/** Stripe's pages (the local payments server's): a checkout the console sends the person to. */
const paymentsOrigin = new URL(process.env.STRIPE_API_BASE ?? '').origin;
const XSS = '<img src=x onerror=alert(1)>';
await deleted('project', { orgId: org, by: DEMO.users.owner, slug: 'markup-title', title: XSS, visibility: 'workspace' });

// A receiver for the notification endpoint the owner adds (loopback is allowed here, as under npm start).
const received: string[] = [];
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received.push(String(request.headers['webhook-id']));
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

let browser: Browser;
let closeBrowser: () => Promise<void>;
beforeAll(async () => {
  ({ browser, close: closeBrowser } = await launchChromium('console', { locale: 'C' }));
  await browser
    .defaultBrowserContext()
    .overridePermissions(stack.baseUrl, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
});
afterAll(async () => {
  await closeBrowser?.();
  await stack.stop();
  receiver.close();
});

const api = (path: string, token = stack.ownerToken, init: RequestInit = {}) =>
  fetch(`${stack.baseUrl}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers },
  });

/** A page that records what a screen asks of the API, and every error the browser reports. */
interface Watched {
  page: Page;
  requests: string[];
  errors: string[];
}

async function newPage(width = 1200, context?: Awaited<ReturnType<Browser['createBrowserContext']>>): Promise<Watched> {
  const page = await (context ?? browser).newPage();
  await page.setViewport({ width, height: 900 });
  page.setDefaultTimeout(15_000);
  const watched: Watched = { page, requests: [], errors: [] };
  page.on('console', (message) => message.type() === 'error' && watched.errors.push(`console: ${message.text()}`));
  page.on('pageerror', (error) => watched.errors.push(`page: ${String(error)}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === paymentsOrigin) return;
    // Chromium's own stylesheet draws a date field's calendar icon as a data: URL: nothing leaves the page.
    if (url.protocol === 'data:') return;
    if (url.origin !== stack.baseUrl) watched.errors.push(`elsewhere: ${request.url()}`);
    else if (!url.pathname.startsWith('/console') && !url.pathname.startsWith('/local-idp/'))
      watched.requests.push(`${request.method()} ${url.pathname}`);
  });
  return watched;
}

async function signIn(watched: Watched, role: 'owner' | 'editor' | 'viewer'): Promise<void> {
  await watched.page.goto(`${stack.baseUrl}/console`, { waitUntil: 'domcontentloaded' });
  const button = await watched.page.waitForSelector(`::-p-text(Sign in as ${role})`);
  await button?.click();
  await watched.page.waitForSelector('nav a[aria-current="page"]');
  await watched.page.waitForNetworkIdle({ idleTime: 100 });
}

const HEADINGS: Record<string, string> = {
  overview: 'Overview',
  usage: 'Usage',
  billing: 'Billing',
  events: 'Billing events',
  keys: 'API keys',
  apps: 'Connected apps',
  members: 'Members',
  alerts: 'Alerts',
  trash: 'Trash',
  jobs: 'Jobs',
  audit: 'Audit log',
};

/** Opens a screen by its navigation link (the keyboard's way: focus, Enter) and waits for its requests to end; their count. */
async function openScreen(watched: Watched, id: string): Promise<number> {
  const { page } = watched;
  watched.requests.length = 0;
  const link = await page.waitForSelector(`nav a[href="#${id}"]`);
  await link?.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(`document.querySelector('main h2')?.textContent === ${JSON.stringify(HEADINGS[id])}`);
  await page.waitForFunction(`!document.querySelector('main [aria-live="polite"]')`);
  await page.waitForNetworkIdle({ idleTime: 100 });
  return watched.requests.length;
}

const mainText = (page: Page): Promise<string> => page.$eval('body', (body) => (body as unknown as { innerText: string }).innerText);

async function shot(page: Page, name: string): Promise<void> {
  for (const folder of SHOTS) await page.screenshot({ path: new URL(`${name}.png`, folder).pathname, fullPage: true });
}

/** axe-core in the page (through the DevTools protocol, which the page's CSP does not govern): serious and critical violations. */
async function axe(page: Page): Promise<unknown[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE);
  return page.evaluate<[], () => Promise<unknown[]>>(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, impact: violation.impact, nodes: violation.nodes.slice(0, 3).map((node) => node.target.join(' ')) })))`);
}

/** Wider than the window: a sideways scroll. */
const overflows = (page: Page): Promise<boolean> =>
  page.evaluate('document.documentElement.scrollWidth > window.innerWidth') as Promise<boolean>;

/** The control a label names (its next sibling, as Field lays them out), within `scope`. */
const labelled = (scope: Page | ElementHandle, label: string) =>
  scope.waitForSelector(`::-p-xpath(.//label[normalize-space(.)=${JSON.stringify(label)}]/following-sibling::*[1])`);

/** Types into a field at once (a token is hundreds of characters), as an input event the page handles. */
async function fill(field: ElementHandle | null, value: string): Promise<void> {
  if (!field) throw new Error('no such field');
  await field.focus();
  await field.evaluate((element, text) => {
    const input = element as unknown as { value: string; dispatchEvent(event: unknown): boolean };
    input.value = text;
    input.dispatchEvent(
      new (globalThis as unknown as { Event: new (type: string, init: object) => unknown }).Event('input', { bubbles: true }),
    );
  }, value);
}

/** The card (`li[data-testid=…]`) whose text contains `text`. */
async function cardWith(page: Page, testId: string, text: string): Promise<ElementHandle> {
  await page.waitForFunction(
    `[...document.querySelectorAll('li[data-testid="${testId}"]')].some((card) => card.textContent.includes(${JSON.stringify(text)}))`,
  );
  for (const card of await page.$$(`li[data-testid="${testId}"]`)) {
    if ((await card.evaluate((element) => element.textContent ?? '')).includes(text)) return card;
  }
  throw new Error(`no ${testId} card with ${text}`);
}

const waitForText = (page: Page, text: string) =>
  page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(text)})`, { timeout: 10_000 });

/** A checkout page (the local payments server's, as Stripe's): Stripe's test card that succeeds, then back where it sends. */
async function payWithCard(page: Page, number = '4242 4242 4242 4242'): Promise<void> {
  await page.waitForSelector('input[name="card_number"]');
  await page.type('input[name="card_number"]', number);
  await page.type('input[name="exp_month"]', '12');
  await page.type('input[name="exp_year"]', String(new Date().getUTCFullYear() + 2));
  await page.type('input[name="cvc"]', '123');
  await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button[type="submit"]')]);
}

/** The Billing screen as the person lands on it (a checkout's return, a 402's billing_url): heading shown, its reads done. */
async function landedOnBilling(page: Page): Promise<void> {
  await page.waitForFunction(`document.querySelector('main h2')?.textContent === 'Billing'`);
  await page.waitForFunction(`!document.querySelector('main [aria-live="polite"].muted')`);
}

describe('GET /console', () => {
  it('is a page of this service: its own hashed files, a strict policy, never framed, the page never cached', async () => {
    const page = await fetch(`${stack.baseUrl}/console`);
    const html = await page.text();
    const policy = page.headers.get('content-security-policy') ?? '';
    const [script = '', styleSheet = ''] = [/src="console\/([^"]+)"/.exec(html)?.[1], /href="console\/([^"]+\.css)"/.exec(html)?.[1]];
    const asset = await fetch(`${stack.baseUrl}/console/${script}`);
    const style = await fetch(`${stack.baseUrl}/console/${styleSheet}`);
    const stale = await fetch(`${stack.baseUrl}/console/console.0000000000000000.js`);
    const demo = await fetch(`${stack.baseUrl}/local-idp/demo-users`);

    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('endless-api-version')).toBe('1');
    expect(page.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(policy.split('; ')).toEqual(
      expect.arrayContaining([
        "script-src 'self'",
        "style-src 'self'",
        "frame-ancestors 'none'",
        "connect-src 'self'",
        "default-src 'none'",
      ]),
    );
    expect(policy).not.toContain('unsafe-inline');
    expect(html).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>[^<]/);
    expect(script).toMatch(/^console\.[0-9a-f]{16}\.js$/);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(stale.status).toBe(404);
    expect(((await stale.json()) as { code: string }).code).toBe('not_found');
    // The local server's own route: the demo users, with the tokens `npm start` prints.
    expect(((await demo.json()) as { users: { role: string }[] }).users.map((user: { role: string }) => user.role)).toEqual([
      'owner',
      'editor',
      'viewer',
    ]);
  });
});

/**
 * A session whose token expires while its page is open ends then, saying so: signed in with a
 * token of 10 s in a browser context of its own, and left to expire while the owner's tests run
 * (they take longer), rather than waited for at the end. 10 s: under a load of 10, signing in
 * took more than 2 s, and here other tests share the machine with it.
 */
async function sessionThatExpires(): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.createBrowserContext();
  const { page } = await newPage(1200, context);
  await page.goto(`${stack.baseUrl}/console`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('::-p-text(Paste a token)');
  await fill(await page.$('textarea'), tokenFor(DEMO.users.owner, { ttlSeconds: 10 }));
  await (await page.waitForSelector('::-p-text(Sign in with this token)'))?.click();
  await page.waitForSelector('nav');
  await page.waitForFunction(`document.body.innerText.includes('Your session expired at')`, { timeout: 30_000 });
  return { page, close: () => context.close() };
}

describe('the console, signed in as the demo owner', () => {
  let owner: Watched;
  let expiring: ReturnType<typeof sessionThatExpires>;
  beforeAll(async () => {
    expiring = sessionThatExpires();
    // Awaited by the last test; a failure before then is its failure, not an unhandled one.
    expiring.catch(() => undefined);
    owner = await newPage();
  });

  it('offers sign-in at once, and shows the balance and every limit after the demo owner signs in', async () => {
    // The browser reports a language Intl refuses until the console's first module has run.
    expect(await owner.page.evaluate('navigator.language')).toBe('en-US@posix');
    await owner.page.goto(`${stack.baseUrl}/console`, { waitUntil: 'domcontentloaded' });
    await owner.page.waitForSelector('::-p-text(Sign in as owner)');
    await shot(owner.page, 'sign-in');
    expect(await axe(owner.page)).toEqual([]);
    await signIn(owner, 'owner');
    await owner.page.waitForSelector('[data-testid="balance"]');
    const balance = await owner.page.$eval('[data-testid="balance"]', (element) => element.textContent);
    const credits = (await (await api(`/organizations/${org}/credits`)).json()) as { balance: number };

    expect(balance).toBe(`${credits.balance.toLocaleString('en-US')} credits`);
    const text = await mainText(owner.page);
    for (const label of ['This month', 'Today', 'Your month', 'Your day', 'Workspace limits', 'Ask before MCP calls above (credits)'])
      expect(text).toContain(label);
    expect(await owner.page.$eval('[data-testid="consent"]', (element) => element.textContent)).toBe('MCP calls never ask first');
    // The status page's word for each operation: the sample provider serves all of them.
    await owner.page.waitForSelector('[data-testid="service-status"]');
    expect(await owner.page.$eval('[data-testid="service-status"]', (element) => element.textContent)).toBe(
      'All 52 operations are working.',
    );
    await shot(owner.page, 'overview');
  });

  it('shows a run made through the API in the usage chart and in billing events', async () => {
    const run = await api(`/social/instagram_profile?organization_id=${org}`, stack.ownerToken, {
      method: 'POST',
      body: JSON.stringify({ handle: 'nasa' }),
    });
    expect(run.status).toBe(200);
    const chargeId = run.headers.get('charge-id') ?? '';
    await stack.catchUp();

    expect(await openScreen(owner, 'usage')).toBeLessThanOrEqual(10);
    await owner.page.waitForSelector('.chart canvas');
    const today = new Date().toISOString().slice(0, 10);
    const days = await owner.page.$eval('[data-testid="usage-days"]', (table) => table.textContent ?? '');
    expect(days).toContain(`${today}instagram_profile`);
    await shot(owner.page, 'usage');

    expect(await openScreen(owner, 'events')).toBeLessThanOrEqual(10);
    const events = await owner.page.$eval('[data-testid="billing-events"]', (table) => table.textContent ?? '');
    expect(events).toContain(chargeId);
    await shot(owner.page, 'billing-events');
  });

  it("buys credits on Stripe's page with 4242…, and back on #billing sees the purchase paid and its grant", async () => {
    expect(await openScreen(owner, 'billing')).toBeLessThanOrEqual(10);
    const { page } = owner;
    await fill(await labelled(page, 'Credits to buy'), '2500');
    await waitForText(page, 'Total 25.00 USD');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'domcontentloaded' }),
      (await page.waitForSelector('::-p-text(Continue to payment)'))?.click(),
    ]);
    expect(new URL(page.url()).origin).toBe(paymentsOrigin);
    await payWithCard(page);

    // Stripe's success_url: this workspace's Billing screen, which follows the purchase until the webhook has paid it.
    expect(page.url()).toBe(`${stack.baseUrl}/console?organization_id=${org}#billing`);
    await waitForText(page, 'Paid: 2,500 credits added to the balance.');
    await landedOnBilling(page);
    const [{ purchases }, { grants }, { balance }] = (await Promise.all(
      ['credit-purchases', 'credit-grants', 'credits'].map(async (path) => (await api(`/organizations/${org}/${path}`)).json()),
    )) as [{ purchases: { id: string; status: string }[] }, { grants: { source: string; remaining: number }[] }, { balance: number }];
    expect(purchases[0]).toMatchObject({ status: 'paid' });
    expect(grants[0]).toMatchObject({ source: 'purchase', remaining: 2500 });
    const table = (id: string) =>
      page.$eval(`[data-testid="${id}"] tbody tr`, (row) => (row as unknown as { innerText: string }).innerText);
    expect(await table('purchases')).toMatch(new RegExp(`2,500 credits\\s+25\\.00 USD\\s+paid .*UTC\\s+${purchases[0]?.id}`));
    expect(await table('grants')).toMatch(/purchase\s+2,500 of 2,500 credits\s+active\s+never/);
    expect(await page.$eval('[data-testid="billing-balance"]', (element) => element.textContent)).toBe(
      `${balance.toLocaleString('en-US')} credits`,
    );
    await shot(page, 'billing');
  });

  it("saves a card on Stripe's page with 4242…, turns auto-recharge on within its rails, and off by removing the card", async () => {
    const { page } = owner;
    const state = async () => (await api(`/organizations/${org}/auto-recharge`)).json();
    const rechargeForm = async (threshold: string, credits: string, cap: string) => {
      const form = await page.waitForSelector('form[aria-label="Auto-recharge settings"]');
      if (!(await form!.$eval('input[type="checkbox"]', (box) => (box as unknown as { checked: boolean }).checked)))
        await (await form!.$('input[type="checkbox"]'))?.click();
      await fill(await labelled(form!, 'When the balance falls below (credits)'), threshold);
      await fill(await labelled(form!, 'Buy (credits)'), credits);
      await fill(await labelled(form!, 'At most a month (credits)'), cap);
      await (await form!.waitForSelector('::-p-text(Save auto-recharge)'))?.click();
    };
    // Without a card, turning it on is not offered (the API would answer 409 payment_method_required).
    expect(await page.$eval('[data-testid="card"]', (element) => element.textContent)).toContain('No card saved');
    expect(
      await page.$eval('form[aria-label="Auto-recharge settings"] input[type="checkbox"]', (box) => box.hasAttribute('disabled')),
    ).toBe(true);
    await waitForText(page, 'save a card first to turn it on');

    // A setup Checkout Session on the payments server's page; back on #billing (its success_url), the
    // screen reads the card until the webhook has saved it.
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'domcontentloaded' }),
      (await page.waitForSelector('::-p-text(Save a card)'))?.click(),
    ]);
    expect(new URL(page.url()).origin).toBe(paymentsOrigin);
    await payWithCard(page);
    expect(page.url()).toBe(`${stack.baseUrl}/console?organization_id=${org}#billing`);
    await waitForText(page, 'The card is saved.');
    // The notice comes with the poll that found the card; the card's line with the state read after it.
    await page.waitForFunction(`document.querySelector('[data-testid="card"]')?.textContent === 'Visa •••• 4242'`, { timeout: 10_000 });

    await rechargeForm('1000', '5000', '20000');
    await waitForText(page, 'On: below 1,000 credits, buy 5,000 credits, at most 20,000 credits a month');
    expect(await state()).toMatchObject({
      enabled: true,
      threshold: 1000,
      credits: 5000,
      monthly_cap: 20000,
      disabled_reason: null,
      payment_method: { brand: 'visa', last4: '4242' },
    });
    await shot(page, 'billing-auto-recharge');

    await (await page.waitForSelector('::-p-text(Remove the card)'))?.click();
    await (await page.waitForSelector('::-p-text(Yes, remove the card)'))?.click();
    await waitForText(page, 'Off: turned off because the card was removed');
    expect(await page.$eval('[data-testid="card"]', (element) => element.textContent)).toContain('No card saved');
    expect(await state()).toMatchObject({ enabled: false, disabled_reason: 'payment_method_removed', payment_method: null });
  });

  it('creates a key, copies its token, which works until the key is revoked from the console', async () => {
    expect(await openScreen(owner, 'keys')).toBe(1);
    const { page } = owner;
    await (await page.waitForSelector('::-p-text(Create an API key)'))?.click();
    await fill(await page.waitForSelector('form[aria-label="Create an API key"] input'), 'console test agent');
    await fill(await labelled(page, 'Daily limit (credits)'), '5');
    await fill(await labelled(page, 'Ask before MCP calls above (credits)'), '10');
    await (await page.waitForSelector('::-p-text(Create key)'))?.click();
    const shown = await page.waitForSelector('[data-testid="new-token"]');
    const token = (await shown?.evaluate((element) => element.textContent)) ?? '';
    await (await page.waitForSelector('::-p-text(Copy token)'))?.click();
    await waitForText(page, 'Copied.');
    const copied = await page.evaluate('navigator.clipboard.readText()');
    await shot(page, 'api-key-created');

    const used = await api(`/organizations/${org}/credits`, String(copied));
    expect(used.status).toBe(200);
    expect(await used.json()).toMatchObject({
      api_key: { daily_limit: 5, spent_today: 0 },
      confirm_above: { credits: 10, scope: 'api_key' },
    });
    expect(copied).toBe(token);

    await (await page.waitForSelector('::-p-text(Done)'))?.click();
    const card = await cardWith(page, 'api-key', 'console test agent');
    expect(await card.$eval('[data-testid="key-consent"]', (element) => element.textContent)).toBe('MCP calls above 10 credits ask first');
    await (await card.waitForSelector('::-p-text(Revoke)'))?.click();
    await (await card.waitForSelector('::-p-text(Yes, revoke)'))?.click();
    await waitForText(page, 'is revoked: its next request is refused');
    const refused = await api(`/organizations/${org}/credits`, token);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe('unauthenticated');
    // The refused token pasted into the console: back to sign-in, saying why.
    const pasted = await newPage();
    await pasted.page.goto(`${stack.baseUrl}/console`, { waitUntil: 'domcontentloaded' });
    await fill(await pasted.page.waitForSelector('textarea'), token);
    await (await pasted.page.waitForSelector('::-p-text(Sign in with this token)'))?.click();
    await waitForText(pasted.page, 'The service refused your token');
    expect(await pasted.page.$('nav')).toBeNull();
    await pasted.page.close();
    // The audit log says who created and revoked it, newest first, in one request.
    expect(await openScreen(owner, 'audit')).toBe(1);
    const rows = await page.$$eval('[data-testid="audit-events"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(rows.slice(0, 2).map(([, type, by, , what]) => [type, by, what?.includes('name: console test agent')])).toEqual([
      ['api_key.revoked', `${DEMO.users.owner} user`, true],
      ['api_key.created', `${DEMO.users.owner} user`, true],
    ]);
    await shot(page, 'audit-log');
  });

  it('shows the apps connected by OAuth, each connection with its limits and spend, and revokes one', async () => {
    // A public client registered as a hosted agent would (RFC 7591), approved twice by the owner:
    // the consent screen's own approval, minus its page (test/oauth/ walks the pages).
    const redirect = 'https://agent.example/oauth/callback';
    const registered = await fetch(`${stack.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Console test app', redirect_uris: [redirect] }),
    });
    const client = (await registered.json()) as { client_id: string; client_name: string; redirect_uris: string[] };
    const request = { client, redirect_uri: redirect, code_challenge: 'x'.repeat(43), state: null, resource: `${stack.baseUrl}/mcp` };
    const choice = { organization_id: org, role: 'viewer' as const, spending_limit: 40, daily_limit: 4, expires_in_days: 30 };
    // Two approvals, two consent forms: each ticket's nonce approves once.
    const ticket = () => ({ nonce: randomUUID(), untilMs: Date.now() + 600_000 });
    await approve(request, DEMO.users.owner, choice, new Date(), ticket());
    await approve(request, DEMO.users.owner, { ...choice, role: 'editor', daily_limit: null }, new Date(Date.now() + 1000), ticket());

    expect(await openScreen(owner, 'apps')).toBe(1);
    const { page } = owner;
    const card = await cardWith(page, 'connected-app', client.client_id);
    const text = await card.evaluate((element) => (element as unknown as { innerText: string }).innerText);
    for (const part of [
      'Console test app',
      '2 active',
      'redirects to agent.example',
      'viewer',
      'editor',
      '0 of 4 credits (0%)',
      'approved by',
    ])
      expect(text).toContain(part);
    await shot(page, 'connected-apps');

    // The newest connection (the editor one, listed first) revoked with the key's own route.
    const [newest] = await card.$$('li[data-testid="grant"]');
    await (await newest!.waitForSelector('::-p-text(Revoke)'))?.click();
    await (await newest!.waitForSelector('::-p-text(Yes, revoke)'))?.click();
    await waitForText(page, 'is revoked: its next request is refused');
    await waitForText(page, '1 ended connection');
    const keys = (await (await api(`/organizations/${org}/api-keys`)).json()) as {
      api_keys: { role: string; client_id?: string; redirect_uri?: string; revoked_at: string | null }[];
    };
    const grants = keys.api_keys.filter((key) => key.client_id === client.client_id);
    expect(
      grants
        .map(({ role, redirect_uri, revoked_at }) => ({ role, redirect_uri, revoked: revoked_at !== null }))
        .sort((a, b) => a.role.localeCompare(b.role)),
    ).toEqual([
      { role: 'editor', redirect_uri: redirect, revoked: true },
      { role: 'viewer', redirect_uri: redirect, revoked: false },
    ]);
    expect(await card.evaluate((element) => element.textContent)).toContain('1 active');
  });

  it("changes a member's monthly limit", async () => {
    expect(await openScreen(owner, 'members')).toBe(2);
    const { page } = owner;
    const card = await cardWith(page, 'member', DEMO.users.editor);
    await (await card.waitForSelector('::-p-text(Change role or limits)'))?.click();
    await fill(await labelled(card, 'Monthly limit (credits)'), '250');
    await (await card.waitForSelector('::-p-text(Save)'))?.click();
    await waitForText(page, `${DEMO.users.editor}'s role and limits are saved.`);
    await shot(page, 'members');

    const members = (await (await api(`/organizations/${org}/members`)).json()) as {
      members: { user_id: string; spending_limit: number }[];
    };
    expect(members.members.find((member) => member.user_id === DEMO.users.editor)?.spending_limit).toBe(250);
  });

  it('invites by email from the members screen; the link, kept through sign-in, makes the invitee a member', async () => {
    // The owner invites.
    const email = `invitee.${randomUUID().slice(0, 8)}@example.com`;
    const { page } = owner;
    await openScreen(owner, 'members');
    await (await page.waitForSelector('::-p-text(Invite by email)'))?.click();
    await fill(await labelled(page, 'Email address'), email);
    await (await labelled(page, 'Role'))?.select('editor');
    await (await page.waitForSelector('::-p-text(Send invitation)'))?.click();
    await waitForText(page, `An invitation is on its way to ${email}.`);
    await cardWith(page, 'invitation', email);
    const link = stack.outbox(email).at(-1)?.accept_url ?? '';
    expect(link.startsWith(`${stack.baseUrl}/console#invitation=`)).toBe(true);

    // The invitee opens the link in a fresh tab: the token leaves the address bar at once, waits through sign-in.
    const context = await browser.createBrowserContext();
    const invitee = await newPage(1200, context);
    await invitee.page.goto(link, { waitUntil: 'domcontentloaded' });
    await invitee.page.waitForSelector('::-p-text(Sign in with this token)');
    expect(invitee.page.url()).toBe(`${stack.baseUrl}/console`);
    const userId = `invitee-${randomUUID().slice(0, 8)}`;
    await fill(await labelled(invitee.page, 'Bearer token'), tokenFor(userId, { extra: { email, email_verified: true } }));
    await (await invitee.page.waitForSelector('::-p-text(Sign in with this token)'))?.click();
    await (await invitee.page.waitForSelector('::-p-text(Accept the invitation)'))?.click();
    await invitee.page.waitForSelector('nav a[aria-current="page"]');

    const members = (await (await api(`/organizations/${org}/members`)).json()) as {
      members: { user_id: string; role: string; email: string }[];
    };
    expect(members.members.find((member) => member.user_id === userId)).toMatchObject({ role: 'editor', email });
    expect(invitee.errors).toEqual([]);
    await context.close();
  });

  it('restores a project from the trash, and shows a title made of markup as those characters', async () => {
    expect(await openScreen(owner, 'trash')).toBe(1);
    const { page } = owner;
    const table = await page.$eval('[data-testid="trash"]', (element) => element.textContent ?? '');
    expect(table).toContain(XSS);
    expect(await page.$$('img')).toEqual([]);
    await shot(page, 'trash');

    const archive = demoResourceId(`${org}/project/research-archive`);
    await (await page.$('button[aria-label="Restore project Research archive"]'))?.click();
    await waitForText(page, 'Restored the project “Research archive”.');
    expect((await getResource('project', archive))?.deleted_at).toBeNull();
    expect(await page.$eval('[data-testid="trash"]', (element) => element.textContent)).not.toContain('Research archive');
  });

  it('saves alert settings, adds an endpoint and shows its test delivery', async () => {
    expect(await openScreen(owner, 'alerts')).toBe(2);
    const { page } = owner;
    await fill(await labelled(page, 'Alert when the balance falls below (credits)'), '100');
    await (await page.waitForSelector('::-p-text(Save alert settings)'))?.click();
    await waitForText(page, 'The alert settings are saved.');
    await (await page.waitForSelector('::-p-text(Add an endpoint)'))?.click();
    await fill(await labelled(page, 'URL'), receiverUrl);
    await (await page.waitForSelector('::-p-text(Add endpoint)'))?.click();
    await page.waitForSelector('section[aria-label="The new endpoint\'s secret"] code');
    await (await page.waitForSelector('::-p-text(Send a test event)'))?.click();
    await waitForText(page, 'A test event is on its way');
    await (await page.waitForSelector('::-p-text(Show deliveries)'))?.click();
    for (let attempt = 0; attempt < 50 && !(await mainText(page)).includes('delivered'); attempt += 1) {
      await (await page.waitForSelector('::-p-text(Refresh deliveries)'))?.click();
      await page.waitForNetworkIdle({ idleTime: 100 });
    }
    expect(await mainText(page)).toMatch(/webhook\.test[^\n]*\n?[^\n]*delivered/);
    expect(received).toHaveLength(1);
    expect(((await (await api(`/organizations/${org}/alerts`)).json()) as { low_balance: number }).low_balance).toBe(100);
    await shot(page, 'alerts');
  });

  it("follows a job's progress, opened by its id", async () => {
    const created = await api(`/social/instagram_profile/jobs?organization_id=${org}`, stack.ownerToken, {
      method: 'POST',
      body: JSON.stringify({ inputs: [{ handle: 'nasa' }, { handle: 'natgeo' }] }),
    });
    const { id } = (await created.json()) as { id: string };
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (((await (await api(`/social/jobs/${id}`)).json()) as { status: string }).status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await openScreen(owner, 'jobs')).toBe(0);
    const { page } = owner;
    await fill(await labelled(page, 'Job id'), id);
    await (await page.waitForSelector('::-p-text(Open job)'))?.click();
    await waitForText(page, '2 of 2 items done');
    await waitForText(page, 'natgeo');
    await shot(page, 'jobs');
    // Opened again, the screen reads the remembered job and its items: two requests.
    await openScreen(owner, 'overview');
    expect(await openScreen(owner, 'jobs')).toBe(2);
  });

  it('passes axe-core and fits 360 px on every screen, each opening with at most 10 requests, with no error in the browser', async () => {
    const found: Record<string, unknown> = {};
    for (const width of [1200, 360]) {
      await owner.page.setViewport({ width, height: 800 });
      for (const id of Object.keys(HEADINGS)) {
        const requests = await openScreen(owner, id);
        found[`${width}/${id}`] = { violations: await axe(owner.page), overflows: await overflows(owner.page), tooMany: requests > 10 };
      }
    }
    await openScreen(owner, 'overview');
    await shot(owner.page, 'overview-360px');
    const clean = Object.fromEntries(Object.keys(found).map((key) => [key, { violations: [], overflows: false, tooMany: false }]));
    expect(found).toEqual(clean);
    expect(owner.errors).toEqual([]);
  });

  it('is usable with the keyboard alone: a skip button first, focus shown, screens reached by their links', async () => {
    const { page } = owner;
    await page.setViewport({ width: 1200, height: 800 });
    // A fresh load (a new fragment alone would not reload the page), still signed in.
    await page.evaluate("location.hash = '#usage'");
    // The usage screen's requests end first: one the reload cancelled would stay in flight for
    // Puppeteer, whose network never went idle again (seen on a busy machine).
    await page.waitForNetworkIdle({ idleTime: 100 });
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.waitForSelector('nav a[aria-current="page"][href="#usage"]');
    // The reloaded usage screen's own request ends before the keys screen's are counted.
    await page.waitForNetworkIdle({ idleTime: 100 });
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
    expect(await openScreen(owner, 'keys')).toBe(1);
    expect(await page.evaluate('document.activeElement.tagName')).toBe('H2');
  });

  it('signs out, and a token that expired takes the person back to sign-in with a message', async () => {
    const { page } = owner;
    await (await page.waitForSelector('::-p-text(Sign out)'))?.click();
    await page.waitForSelector('::-p-text(Paste a token)');
    expect(await page.evaluate('sessionStorage.length')).toBe(0);

    await fill(await page.$('textarea'), tokenFor(DEMO.users.owner, { ttlSeconds: -60 }));
    await (await page.waitForSelector('::-p-text(Sign in with this token)'))?.click();
    await waitForText(page, 'That token expired at');
    // The session signed in at the start of these tests (sessionThatExpires) has ended by now.
    const session = await expiring;
    expect(await session.page.$('nav')).toBeNull();
    await shot(session.page, 'session-expired');
    await session.close();
  });
});

describe('the console, signed in as the demo viewer', () => {
  it('offers only what a viewer may do: no management action on any screen', async () => {
    const context = await browser.createBrowserContext();
    const viewer = await newPage(1200, context);
    await signIn(viewer, 'viewer');
    const screens = await viewer.page.$$eval('nav a', (links) => links.map((link) => link.getAttribute('href')));
    expect(screens).toEqual(['#overview', '#usage', '#alerts', '#jobs']);
    const found: Record<string, unknown> = {};
    for (const screen of screens) {
      const id = String(screen).slice(1);
      await openScreen(viewer, id);
      const buttons = await viewer.page.$$eval('button', (all) => all.map((button) => button.textContent?.trim()));
      found[id] = {
        management: buttons.filter((label) =>
          /create|revoke|remove|delete|restore|save|add|edit|change|cancel job|send a test/i.test(label ?? ''),
        ),
        inputs: id === 'alerts' || id === 'overview' ? await viewer.page.$$eval('main input', (inputs) => inputs.length) : 0,
        violations: await axe(viewer.page),
      };
      if (id === 'overview') await shot(viewer.page, 'viewer-overview');
    }
    expect(found).toEqual(
      Object.fromEntries(screens.map((screen) => [String(screen).slice(1), { management: [], inputs: 0, violations: [] }])),
    );
    // What the console does not offer, the API would refuse: the viewer's token on the trash.
    expect((await api(`/organizations/${org}/trash`, tokenFor(DEMO.users.viewer))).status).toBe(403);
    expect(viewer.errors).toEqual([]);
    await context.close();
  });
});
