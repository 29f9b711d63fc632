/**
 * The docs stand alone: a reader of the repository has every page and file they name. No page
 * of docs/ (nor the README) names a file outside the repository (the product contract is
 * docs/contract.md); every relative link leads to a file of the repository, and every `#anchor`
 * to a heading (or `<a id>`) of its page; every `.md` or `.txt` file a page names exists. Pure
 * file reading. (Names of code in docs/architecture.md: test/docs-names.unit.test.ts.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const PAGES = [
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'README.md',
];

/** Files every reader of the repository lacks: the contract's sources, which docs/contract.md stands for. */
const OUTSIDE = /\.\.\/shared\/[\w./…-]*|\bshared\/(?:DESIGN|STYLE|spec)\b[\w./…-]*|\bDESIGN\.md\b|\bSTYLE\.md\b|\bspec\/\d{3}_[\w.…-]*/g;

const withoutCode = (markdown: string) => markdown.replace(/```[\s\S]*?```/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading = ''] of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  for (const [, id = ''] of markdown.matchAll(/<a id="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

const inRepository = (file: string) => file.startsWith(ROOT + sep) && existsSync(file);

/** What a page names that a reader of the repository does not have, each as `<what>: <name>`. */
function problemsOf(page: string, markdown: string, read: (file: string) => string = (file) => readFileSync(file, 'utf8')) {
  const problems: string[] = [];
  markdown.split('\n').forEach((line, index) => {
    for (const [name] of line.matchAll(OUTSIDE))
      problems.push(`line ${index + 1} names a file outside the repository: ${name} (point to docs/contract.md)`);
  });
  const prose = withoutCode(markdown);
  const here = dirname(join(ROOT, page));
  for (const [, target = ''] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    const file = resolve(here, path);
    if (path && !inRepository(file)) problems.push(`link to a file the repository does not have: ${target}`);
    else if (anchor && (!path || file.endsWith('.md')) && !anchorsOf(path ? read(file) : markdown).has(anchor)) {
      problems.push(`link to a missing anchor: ${target}`);
    }
  }
  for (const [name] of prose.matchAll(/[\w./-]*\.(md|txt)\b/g)) {
    if (new RegExp(OUTSIDE.source).test(name)) continue; // said above
    if (![resolve(here, name), resolve(ROOT, name), resolve(ROOT, 'docs', name)].some(inRepository)) {
      problems.push(`names a file the repository does not have: ${name}`);
    }
  }
  return problems;
}

describe('the docs stand alone', () => {
  it.each(PAGES)('%s names no file outside the repository, and every link and anchor leads somewhere', (page) => {
    expect(problemsOf(page, readFileSync(join(ROOT, page), 'utf8'))).toEqual([]);
  });

  it('checks every page of docs/, and links enough to mean something', () => {
    expect(PAGES.length).toBeGreaterThan(20);
    const links = PAGES.flatMap((page) => [...withoutCode(readFileSync(join(ROOT, page), 'utf8')).matchAll(/\]\((?!https?:)[^)\s]+\)/g)]);
    expect(links.length).toBeGreaterThan(100);
  });

  it('would catch each kind of reference a reader cannot follow', () => {
    const page = 'docs/example.md';
    const text = [
      '# Example',
      'The spec (`spec/000_…txt`) and `DESIGN.md` come first; see `../shared/DESIGN.md`.',
      'See [the contract](contract.md), [its wire](contract.md#the-wire) and [above](#example).',
      'Broken: [gone](gone.md), [outside](../../elsewhere/README.md), [no anchor](contract.md#nowhere), [here](#nowhere), notes.txt.',
      '```sh',
      'cat DESIGN.md',
      '```',
    ].join('\n');
    expect(problemsOf(page, text)).toEqual([
      'line 2 names a file outside the repository: spec/000_…txt (point to docs/contract.md)',
      'line 2 names a file outside the repository: DESIGN.md (point to docs/contract.md)',
      'line 2 names a file outside the repository: ../shared/DESIGN.md (point to docs/contract.md)',
      'line 6 names a file outside the repository: DESIGN.md (point to docs/contract.md)',
      'link to a file the repository does not have: gone.md',
      'link to a file the repository does not have: ../../elsewhere/README.md',
      'link to a missing anchor: contract.md#nowhere',
      'link to a missing anchor: #nowhere',
      'names a file the repository does not have: gone.md',
      'names a file the repository does not have: ../../elsewhere/README.md',
      'names a file the repository does not have: notes.txt',
    ]);
  });

  it('reads anchors as GitHub makes them', () => {
    expect([
      ...anchorsOf(
        '# A page\n## `GET /` and the `x-served-by`: what, why?\n## Twice\n## Twice\n<a id="origin"></a>\n```\n# not a heading\n```',
      ),
    ]).toEqual(['a-page', 'get--and-the-x-served-by-what-why', 'twice', 'twice-1', 'origin']);
  });
});
