/**
 * Layers point one way (docs/architecture.md): scripts/ → infra/ → functions/ (HTTP shape) → the
 * adapters → lib/http/ → the route table → the domain, itself in sub-layers → storage (lib/db/)
 * → the shared leaves. Every module of lib/, functions/, infra/ and scripts/ belongs to exactly
 * one layer (a new folder fails here until it is placed), imports only its own layer or lower
 * ones, and no import circle exists anywhere among them, type-only imports included. test/ is
 * not a layer: it may import anything, and what scripts/ borrows from test/support is not checked.
 * Pure file reading: no module is loaded.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SCANNED = ['lib', 'functions', 'infra', 'scripts'];

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
      'lib/icons.ts',
    ],
  },
  // The table, the queues and email: what is stored or sent, by the domain's modules.
  { name: 'storage', paths: ['lib/db', 'lib/queues', 'lib/mail'] },
  // The domain, in sub-layers ordered by what its folders import: a folder may import its own
  // sub-layer's and those below, never one above (the delivery of signed events never reaches up
  // into jobs). First who is calling, the change stream handed to its consumers and the delivery
  // of signed events: each imports no other domain folder.
  { name: 'domain 1: foundations', paths: ['lib/auth', 'lib/stream', 'lib/webhooks'] },
  // An organization's money, resources, settings and members, and usage: on who is calling (and
  // usage on the stream).
  { name: "domain 2: an organization's own", paths: ['lib/billing', 'lib/resources', 'lib/workspace', 'lib/usage'] },
  // Running an operation, charged by billing; connecting an agent by OAuth, whose grant is an API
  // key as an owner's is (lib/workspace/) and whose client URLs are checked as a webhook's.
  { name: 'domain 3: runs and connections', paths: ['lib/social', 'lib/oauth'] },
  // Many runs: each item through the run path, its end queued as a signed event.
  { name: 'domain 4: jobs', paths: ['lib/jobs'] },
  // What an organization is told: crossings from the stream, jobs' ends, settings, endpoints.
  { name: 'domain 5: alerts', paths: ['lib/alerts'] },
  // The operator's commands, over all of it.
  { name: 'domain 6: admin', paths: ['lib/admin'] },
  // The route table and its path templates: data the chain, the adapters and the stack read (it
  // names the table's index). Below the chain, which reads it and never the other way round.
  { name: 'routes', paths: ['lib/routes.ts', 'lib/route-pattern.ts'] },
  { name: 'http', paths: ['lib/http'] },
  { name: 'adapters', paths: ['lib/mcp', 'lib/openapi', 'lib/local', 'lib/console'] },
  { name: 'handlers', paths: ['functions'] },
  // The CDK app: it reads the route table, the table's definition and the stream function's
  // consumers, and builds the console (lib/console/build.ts) before synth.
  { name: 'infra', paths: ['infra'] },
  // npm start, the admin CLI, the benches and the build steps: anything below may serve them (the
  // bundle report reads infra/'s bundling), and nothing imports them.
  { name: 'scripts', paths: ['scripts'] },
] as const;

type Imports = Map<string, string[]>;

function sourcesUnder(path: string): string[] {
  return readdirSync(join(ROOT, path), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
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
  const files = SCANNED.flatMap(sourcesUnder);
  const graph = graphOf(files);

  it('places every module of lib/, functions/, infra/ and scripts/ in exactly one layer', () => {
    expect(files.filter((file) => file.startsWith('lib/')).length).toBeGreaterThan(100);
    expect(files.filter((file) => layerOf(file) === undefined)).toEqual([]);
    const places = LAYERS.flatMap((layer) => layer.paths as readonly string[]);
    expect(new Set(places).size).toBe(places.length);
  });

  it('has no import that reaches a higher layer, anywhere in lib/, functions/, infra/ and scripts/', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no import circle anywhere in them, type-only imports included', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('would catch each kind of offence', () => {
    const probe: Imports = new Map([
      ['lib/db/a.ts', ['lib/social/run.ts', 'lib/db/b.ts']],
      ['lib/db/b.ts', ['lib/db/c.ts', 'lib/model.ts']],
      ['lib/db/c.ts', ['lib/db/a.ts']],
      ['lib/social/run.ts', ['lib/http/endpoint.ts']],
      ['lib/routes.ts', ['lib/http/route-pattern.ts']],
      ['lib/model.ts', []],
      // Within the domain: the delivery of signed events reaching up into jobs (refused); jobs queuing a delivery (allowed).
      ['lib/webhooks/sources.ts', ['lib/jobs/job-ended.ts']],
      ['lib/jobs/job-ended.ts', ['lib/webhooks/delivery.ts']],
      // The top layers: the CDK app reaching up into a script (refused); a script reading the CDK app's bundling (allowed).
      ['infra/app.ts', ['scripts/build-console.ts']],
      ['scripts/bundle-report.ts', ['infra/bundle.ts']],
    ]);
    expect(upwardImports(probe)).toEqual([
      'lib/db/a.ts → lib/social/run.ts',
      'lib/social/run.ts → lib/http/endpoint.ts',
      'lib/routes.ts → lib/http/route-pattern.ts',
      'lib/webhooks/sources.ts → lib/jobs/job-ended.ts',
      'infra/app.ts → scripts/build-console.ts',
    ]);
    expect(circles(probe)).toEqual([['lib/db/a.ts', 'lib/db/b.ts', 'lib/db/c.ts']]);
    expect(layerOf('lib/newfolder/thing.ts')).toBeUndefined();
    expect(
      importsIn('lib/db/x.ts', "import type { A } from '../social/y.ts';\nexport { B } from './z.ts';\nawait import('../http/w.ts');"),
    ).toEqual(['lib/social/y.ts', 'lib/db/z.ts', 'lib/http/w.ts']);
  });
});
