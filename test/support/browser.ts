/**
 * One headless Chromium for a file or a script (test/support/chromium.ts finds it), with a
 * profile of its own removed on close, and only our flags: no sandbox (CI runs as root), nothing
 * that talks to the network on its own. Its language by default is one a person's browser would
 * have; `{ locale: 'C' }` starts it as a shell without a locale does, reporting `en-US@posix`,
 * a tag Intl refuses (what a page must survive: the console's test runs so).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findChromium } from './chromium.ts';

export async function launchChromium(
  name: string,
  { locale = 'en_US.UTF-8' }: { locale?: 'en_US.UTF-8' | 'C' } = {},
): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const chromium = await findChromium();
  const profile = mkdtempSync(join(tmpdir(), `${name}-chromium-`));
  const browser = await puppeteer.launch({
    executablePath: chromium.executablePath,
    headless: chromium.headless,
    userDataDir: profile,
    // Chromium takes its language from LANGUAGE, then LANG: either set here, whatever the shell has.
    env: { ...process.env, LANG: locale, LANGUAGE: locale === 'C' ? '' : 'en_US' },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
