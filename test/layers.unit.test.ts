/**
 * Layers point one way (docs/architecture.md): functions/ (HTTP shape) → the adapters → lib/http/
 * → the route table → the domain → storage (lib/db/) → the shared leaves. Every module under
 * lib/ belongs to exactly one layer (a new folder fails here until it is placed), imports only its
 * own layer or lower ones, and no import circle exists anywhere under lib/, type-only imports
 * included. Pure file reading: no module is loaded.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** Layers from the bottom up, each with the paths (folders or files) it is made of. */
const LAYERS = [
  {
    name: 'leaves',
    paths: [
      'lib/errors.ts',
      'lib/issue-messages.ts',
      'lib/model.ts',
      'lib/config.ts',
      'lib/log.ts',
      'lib/bounded-memo.ts',
      'lib/defined.ts',
      'lib/async-scope.ts',
      'lib/signed-cursor.ts',
      'lib/secrets-extension.ts',
      'lib/observability',
      'lib/docs-assets.ts',
      'lib/console-assets.ts',
    ],
  },
  // The table and the queues: what is stored, by the domain's modules.
  { name: 'storage', paths: ['lib/db', 'lib/queues'] },
  {
    name: 'domain',
    paths: [
      'lib/social',
      'lib/billing',
      'lib/resources',
      'lib/auth',
      'lib/admin',
      'lib/workspace',
      'lib/jobs',
      'lib/webhooks',
      'lib/oauth',
      'lib/usage',
      'lib/stream',
    ],
  },
  // The route table and its path templates: data the chain, the adapters and the stack read (it
  // names the table's index). Below the chain, which reads it and never the other way round.
  { name: 'routes', paths: ['lib/routes.ts', 'lib/route-pattern.ts'] },
  { name: 'http', paths: ['lib/http'] },
  { name: 'adapters', paths: ['lib/mcp', 'lib/openapi', 'lib/local', 'lib/console'] },
  { name: 'handlers', paths: ['functions'] },
] as const;

type Imports = Map<string, string[]>;

function tsFilesUnder(path: string): string[] {
  return readdirSync(join(ROOT, path), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Every relative module specifier a source imports or re-exports, statically or dynamically, resolved from the root. */
function importsIn(file: string, source: string): string[] {
  const specifiers = [...source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)['"]([^'"]+)['"]/gm)].map((match) => match[1] ?? '');
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)));
}

const graphOf = (files: string[]): Imports => new Map(files.map((file) => [file, importsIn(file, readFileSync(join(ROOT, file), 'utf8'))]));

/** The layer index of a path, or undefined when no layer names it. */
function layerOf(path: string): number | undefined {
  const index = LAYERS.findIndex((layer) => layer.paths.some((place) => path === place || path.startsWith(`${place}/`)));
  return index === -1 ? undefined : index;
}

/** Imports that reach a higher layer than their module's: `from → to`. */
function upwardImports(graph: Imports): string[] {
  return [...graph].flatMap(([from, targets]) =>
    targets.filter((to) => (layerOf(to) ?? -1) > (layerOf(from) ?? Number.POSITIVE_INFINITY)).map((to) => `${from} → ${to}`),
  );
}

/** The import circles of a graph: its strongly connected components of more than one module, or a module importing itself (Tarjan). */
function circles(graph: Imports): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('layering', () => {
  const lib = tsFilesUnder('lib');
  const graph = graphOf([...lib, ...tsFilesUnder('functions')]);

  it('places every module under lib/ in exactly one layer', () => {
    expect(lib.length).toBeGreaterThan(100);
    expect(lib.filter((file) => layerOf(file) === undefined)).toEqual([]);
    const places = LAYERS.flatMap((layer) => layer.paths as readonly string[]);
    expect(new Set(places).size).toBe(places.length);
  });

  it('has no import that reaches a higher layer, anywhere in lib/ and functions/ (storage never imports the domain, nothing below lib/http imports it)', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no import circle under lib/, type-only imports included', () => {
    expect(circles(new Map([...graph].filter(([file]) => file.startsWith('lib/'))))).toEqual([]);
  });

  it('would catch each kind of offence', () => {
    const probe: Imports = new Map([
      ['lib/db/a.ts', ['lib/social/run.ts', 'lib/db/b.ts']],
      ['lib/db/b.ts', ['lib/db/c.ts', 'lib/model.ts']],
      ['lib/db/c.ts', ['lib/db/a.ts']],
      ['lib/social/run.ts', ['lib/http/endpoint.ts']],
      ['lib/routes.ts', ['lib/http/route-pattern.ts']],
      ['lib/model.ts', []],
    ]);
    expect(upwardImports(probe)).toEqual([
      'lib/db/a.ts → lib/social/run.ts',
      'lib/social/run.ts → lib/http/endpoint.ts',
      'lib/routes.ts → lib/http/route-pattern.ts',
    ]);
    expect(circles(probe)).toEqual([['lib/db/a.ts', 'lib/db/b.ts', 'lib/db/c.ts']]);
    expect(layerOf('lib/newfolder/thing.ts')).toBeUndefined();
    expect(
      importsIn('lib/db/x.ts', "import type { A } from '../social/y.ts';\nexport { B } from './z.ts';\nawait import('../http/w.ts');"),
    ).toEqual(['lib/social/y.ts', 'lib/db/z.ts', 'lib/http/w.ts']);
  });
});
