/**
 * The browser for the docs page test, with nothing installed by hand: `@sparticuz/chromium` (a
 * devDependency, pinned) carries a headless Chromium inside the npm package, as serverless
 * projects get one. Which browser, in this order:
 * 1. `CHROMIUM_PATH`, when set: the developer asked for that one (it must exist).
 * 2. The package's Chromium on Linux x64, the only platform it is built for: the version the
 *    lock file names, so every machine and CI run the page in the same browser, and an
 *    `apt upgrade` cannot change what the test sees.
 * 3. A system Chromium or Chrome elsewhere (macOS, arm64), where the package's binary cannot run.
 *
 * The package inflates its binary into `os.tmpdir()` and reuses whatever sits there under the
 * name `chromium`, of any version, even a half-written one a concurrent or killed run left
 * behind. So it inflates here in a child process whose TMPDIR is a fresh staging folder, which is
 * then renamed into a folder named by the package's version: a rename is atomic, so concurrent
 * runs each inflate and the first rename wins, and a folder that exists is always complete.
 * The cache lives in node_modules/.cache (removed by `npm ci`, never on a noexec /tmp).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url).pathname;
const PACKAGE = join(ROOT, 'node_modules', '@sparticuz', 'chromium');
const SYSTEM = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

export interface Browser {
  executablePath: string;
  /** The package's binary is chrome-headless-shell; a system browser runs the new headless mode. */
  headless: true | 'shell';
  source: string;
}

export async function findChromium(): Promise<Browser> {
  const requested = process.env.CHROMIUM_PATH;
  if (requested) {
    if (!existsSync(requested)) throw new Error(`CHROMIUM_PATH=${requested} does not exist`);
    return { executablePath: requested, headless: true, source: 'CHROMIUM_PATH' };
  }
  if (process.platform === 'linux' && process.arch === 'x64' && existsSync(PACKAGE)) {
    return { executablePath: await inflatedPackageBinary(), headless: 'shell', source: '@sparticuz/chromium' };
  }
  const system = SYSTEM.find((path) => existsSync(path));
  if (system) return { executablePath: system, headless: true, source: system };
  throw new Error(
    `no Chromium: @sparticuz/chromium runs on Linux x64 only (this is ${process.platform} ${process.arch}) and none of ${SYSTEM.join(', ')} exists; set CHROMIUM_PATH`,
  );
}

async function inflatedPackageBinary(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string };
  const cache = join(ROOT, 'node_modules', '.cache');
  const target = join(cache, `sparticuz-chromium-${version}`);
  const binary = join(target, 'chromium');
  if (existsSync(binary)) return binary;

  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, `sparticuz-chromium-${version}.staging-`));
  try {
    const script = "import chromium from '@sparticuz/chromium'; process.stdout.write(await chromium.executablePath());";
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: staging },
    });
    if (stdout !== join(staging, 'chromium')) throw new Error(`@sparticuz/chromium inflated to ${stdout}, not into ${staging}`);
    try {
      renameSync(staging, target);
    } catch (error) {
      // Another run renamed its complete copy first: use that one.
      if (!existsSync(binary)) throw error;
    }
    return binary;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
