/**
 * `npm ci` on the oldest Node.js the project names (package.json `engines`, the README's
 * "Node.js 20.19+") warns EBADENGINE for any installed package whose own `engines.node` refuses
 * that version: puppeteer-core 25 did (>= 22.12). The lock file records every package's engines,
 * so the check needs no install.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// npm's own range parser (installed with the tool chain; the check must read ranges as npm does).
const semver = createRequire(import.meta.url)('semver') as {
  satisfies: (version: string, range: string) => boolean;
  minVersion: (range: string) => { version: string } | null;
};

const read = (file: string) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));
const manifest = read('package.json') as { engines: { node: string } };
const lock = read('package-lock.json') as { packages: Record<string, { engines?: { node?: string } | string[] }> };

describe('engines', () => {
  const oldest = semver.minVersion(manifest.engines.node)?.version ?? '';

  it('names the Node.js version the README asks for', () => {
    expect(oldest).toBe('20.19.0');
    expect(readFileSync(new URL('../README.md', import.meta.url), 'utf8')).toContain('Node.js 20.19+');
  });

  it('installs no package whose engines refuse that version', () => {
    const refusing = Object.entries(lock.packages)
      .map(([path, entry]) => ({ path, node: Array.isArray(entry.engines) ? undefined : entry.engines?.node }))
      .filter(({ node }) => node !== undefined && !semver.satisfies(oldest, node))
      .map(({ path, node }) => `${path} (node ${node})`);

    expect(refusing).toEqual([]);
  });
});
