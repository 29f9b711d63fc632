/**
 * Every key format of the table is in lib/db/keys.ts and nowhere else (docs/data-model.md): no
 * other module of lib/, functions/, scripts/ or infra/ writes a partition or sort key's text. It
 * would find a key's tag (`ORG#…`, `EVENT#`, `#USER#`) in a string or template literal, a literal
 * given as a `PK`/`SK` (`SK: 'ALERTS'`, a stream filter's `SK: { S: ['ORG'] }`), or compared with
 * one (`item.SK === 'ORG'`). Comments may show a format: they are not code. Pure file reading:
 * the sources are parsed by TypeScript, never loaded.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SCANNED = ['lib', 'functions', 'scripts', 'infra'];
const KEYS_MODULE = 'lib/db/keys.ts';

/** A key's tag: two or more upper-case letters, digits and `_`, then `#`, at the start of a text or after another `#`. */
const TAG = /^[A-Z][A-Z0-9_]+#|#[A-Z][A-Z0-9_]+#/;
/** What a source must contain to hold any of them; the others are not parsed. */
const MAYBE = /[A-Z]#|\b(?:GSI1)?[PS]K\b/;
const KEY_ATTRIBUTES = new Set(['PK', 'SK', 'GSI1PK', 'GSI1SK']);

const isText = (node: ts.Node): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateLiteralLikeNode =>
  ts.isStringLiteral(node) ||
  ts.isNoSubstitutionTemplateLiteral(node) ||
  ts.isTemplateHead(node) ||
  ts.isTemplateMiddle(node) ||
  ts.isTemplateTail(node);
const isLiteral = (node: ts.Node): boolean => isText(node) || ts.isTemplateExpression(node);

const nameOf = (node: ts.Node): string | undefined =>
  ts.isIdentifier(node) || ts.isStringLiteral(node)
    ? node.text
    : ts.isPropertyAccessExpression(node)
      ? node.name.text
      : ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression)
        ? node.argumentExpression.text
        : undefined;
const isKeyAttribute = (node: ts.Node): boolean => KEY_ATTRIBUTES.has(nameOf(node) ?? '');

const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** Where `source` writes a key's format: `file:line: the code`. */
function keyFormatsIn(file: string, source: string): string[] {
  if (!MAYBE.test(source)) return [];
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = new Set<number>();
  const mark = (node: ts.Node) => found.add(tree.getLineAndCharacterOfPosition(node.getStart(tree)).line);
  const markLiteralsUnder = (node: ts.Node): void => {
    if (isLiteral(node)) mark(node);
    else ts.forEachChild(node, markLiteralsUnder);
  };
  const visit = (node: ts.Node): void => {
    if (isText(node) && TAG.test(node.text)) mark(node);
    if (ts.isPropertyAssignment(node) && isKeyAttribute(node.name)) markLiteralsUnder(node.initializer);
    if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) {
      const sides = [node.left, node.right];
      if (sides.some(isKeyAttribute) && sides.some(isLiteral)) mark(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  const lines = source.split('\n');
  return [...found].sort((a, b) => a - b).map((line) => `${file}:${line + 1}: ${lines[line]?.trim()}`);
}

const sourcesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|mjs)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));

describe('key formats', () => {
  it('are written in lib/db/keys.ts only, nowhere in lib/, functions/, scripts/ or infra/', () => {
    const files = SCANNED.flatMap(sourcesUnder).filter((file) => file !== KEYS_MODULE);
    expect(files.length).toBeGreaterThan(300);
    expect(files.flatMap((file) => keyFormatsIn(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });

  it('would catch each way of writing one, and leave comments, other texts and built keys alone', () => {
    // Source text: `\${` stands for a placeholder of the probe's own templates.
    const probe = [
      '// a comment may show `ORG#<org>` / `ALERTS`',
      `const a = { PK: \`ORG#\${orgId}\`, SK: 'ALERTS' };`,
      "const b = { ':pk': orgKey(orgId).PK, ':prefix': 'WEBHOOK#' };",
      `const c = \`\${month}#USER#\${userId}\`;`,
      "const d = { NewImage: { SK: { S: ['JOB'] } } };",
      "if (item.SK === 'ORG') skip();",
      `const e = { PK: key.PK, SK: key.SK, id: 'evt_1', page: 'C# and F#', entity: \`&#\${code};\` };`,
      '/* ORG#x */ const f = orgKey(orgId);',
    ].join('\n');
    expect(keyFormatsIn('lib/probe.ts', probe).map((line) => Number(line.split(':')[1]))).toEqual([2, 3, 4, 5, 6]);
  });
});
