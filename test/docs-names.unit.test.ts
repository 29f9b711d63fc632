/**
 * docs/architecture.md names code: every name it writes in backticks must still exist, so that
 * the page cannot drift from the code it describes. A path (with a `/` or a file extension)
 * must exist in the repository; an identifier (`refusalOf`, `ServiceError`, `endpoint()`,
 * `REFUND_RESERVE_MS`) must occur in the code. Pure file reading.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const CODE = ['lib', 'functions', 'infra', 'scripts', 'test', 'client', 'examples'];

const codeText = CODE.flatMap((dir) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs|java)$/.test(entry.name))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8')),
).join('\n');

const IDENTIFIER = /^[A-Za-z_$][\w$]*(\(\))?$/;
const PATH = /\/|\.(ts|md|json|mjs|java)$/;

/** The backticked names of a Markdown text that are paths or identifiers (commands, values and code snippets are left alone). */
function namesIn(markdown: string): { paths: string[]; identifiers: string[] } {
  const spans = [...markdown.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? '');
  const paths = spans.filter((span) => PATH.test(span) && !/\s/.test(span) && !span.startsWith('/') && !span.includes('<'));
  const identifiers = spans.filter((span) => !PATH.test(span) && IDENTIFIER.test(span)).map((span) => span.replace(/\(\)$/, ''));
  return { paths: [...new Set(paths)], identifiers: [...new Set(identifiers)] };
}

/** Names the code does not contain (identifiers as whole words), and paths that do not exist. */
function missing(markdown: string, code: string, exists: (path: string) => boolean): string[] {
  const { paths, identifiers } = namesIn(markdown);
  const words = new Set(code.match(/[A-Za-z_$][\w$]*/g) ?? []);
  return [...paths.filter((path) => !exists(path.replace(/[#:].*$/, ''))), ...identifiers.filter((name) => !words.has(name))];
}

describe('docs/architecture.md', () => {
  const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');

  it('names only code that exists', () => {
    expect(missing(page, codeText, (path) => existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('checks enough names to mean something', () => {
    const { paths, identifiers } = namesIn(page);
    expect(paths.length).toBeGreaterThan(10);
    expect(identifiers.length).toBeGreaterThan(15);
  });

  it('would catch a name that is gone and a path that moved', () => {
    const stale = 'steps (`answerFromRecord`), the module `lib/social/charge.ts`, `refusalOf()` and `ServiceError`';
    expect(missing(stale, 'export function refusalOf() {}\nclass ServiceError {}', () => false)).toEqual([
      'lib/social/charge.ts',
      'answerFromRecord',
    ]);
  });
});
