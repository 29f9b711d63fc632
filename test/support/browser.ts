/**
 * One headless Chromium for a file or a script (test/support/chromium.ts finds it), with a
 * profile of its own removed on close, and only our flags: no sandbox (CI runs as root), nothing
 * that talks to the network on its own, a language a person's browser would have.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findChromium } from './chromium.ts';

export async function launchChromium(name: string): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const chromium = await findChromium();
  const profile = mkdtempSync(join(tmpdir(), `${name}-chromium-`));
  const browser = await puppeteer.launch({
    executablePath: chromium.executablePath,
    headless: chromium.headless,
    userDataDir: profile,
    // A language ICU knows: under LANG=C (or none) the shell reports `en-US@posix`, which Intl refuses
    // (uPlot makes a NumberFormat of navigator.language as it loads).
    env: { ...process.env, LANG: 'en_US.UTF-8', LANGUAGE: 'en_US' },
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
