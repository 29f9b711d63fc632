/**
 * Layers point one way: functions/ (HTTP shape) → lib/http/ (the middy chain) → the domain
 * (lib/social, lib/resources, lib/billing) → lib/db. A domain or storage module that imports
 * the HTTP layer or a handler could not be called by a second entry point (MCP, the sweeper,
 * the CLI), so this test reads every import of those modules and fails on one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const DOMAIN_AND_STORAGE = ['lib/social', 'lib/resources', 'lib/billing', 'lib/db', 'lib/model.ts', 'lib/errors.ts'];
const FORBIDDEN = ['lib/http', 'functions'];

function filesUnder(path: string): string[] {
  const full = join(ROOT, path);
  if (full.endsWith('.ts')) return [full];
  return readdirSync(full, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every module specifier a file imports, statically or dynamically, resolved from the repository root. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers = [...source.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map((match) => match[1]!);
  return specifiers.filter((specifier) => specifier.startsWith('.')).map((specifier) => relative(ROOT, resolve(file, '..', specifier)));
}

describe('layering', () => {
  const files = DOMAIN_AND_STORAGE.flatMap(filesUnder);

  it('finds the modules it checks', () => {
    expect(files.length).toBeGreaterThan(30);
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))('%s imports nothing from lib/http or functions/', (_name, file) => {
    const offending = importsOf(file).filter((target) => FORBIDDEN.some((layer) => target === layer || target.startsWith(`${layer}/`)));
    expect(offending).toEqual([]);
  });

  it('would catch an offending import', () => {
    const probe = join(ROOT, 'lib/social/run.ts');
    expect(importsOf(probe)).toContain('lib/social/operations.ts');
  });
});
