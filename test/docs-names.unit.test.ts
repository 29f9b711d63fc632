/**
 * Every page of docs/ names code: every name it writes in backticks must still exist, so that
 * the pages cannot drift from the code they describe. A path (its first segment a file or folder
 * at the repository's root, or a file name with an extension) must exist in the repository; a
 * package path must name a package of the lock file; an identifier (`refusalOf`,
 * `ServiceError`, `endpoint()`, `REFUND_RESERVE_MS`) must occur in the code or the project's
 * configuration. Names that others define (AWS's metrics, an alarm the stack names after its
 * function, other tools' names) are listed below, each group saying whose they are. Pure file
 * reading.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const CODE = ['lib', 'functions', 'infra', 'scripts', 'test', 'client', 'examples', 'tools', 'console/src'];
const CONFIG = ['package.json', 'biome.json', 'tsconfig.json', 'cdk.json', 'vitest.config.ts', '.ci/run'];

const filesUnder = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

const codeText = [
  ...CODE.flatMap((dir) => filesUnder(dir).filter((file) => /\.(ts|tsx|mjs|java|css)$/.test(file))),
  ...CONFIG.map((file) => join(ROOT, file)),
]
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');

/** Folders git ignores (.gitignore): made at run time (`.local/dev.json`, `bench-output/`), never in a clone. */
const IGNORED = readFileSync(join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .filter((line) => line.endsWith('/'))
  .map((line) => line.replace(/^\//, ''));

/** What `git clone` gives: the files a page may name by their name alone. */
const repositoryFileNames = new Set(
  readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.name !== '.git' && !IGNORED.includes(`${entry.name}/`))
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(entry.name) : [entry.name]))
    .map((file) => basename(file)),
);

const lockedPackages = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> }).packages,
);

/**
 * Names others define, which no code of ours contains. An alarm the stack names after a group of
 * functions (`BackgroundFunctionsErrors`; `<Tag>RoutesThrottles`, a domain's: infra/alarms.ts) is
 * checked by the group's name instead.
 */
const NOT_OURS: Record<string, readonly string[]> = {
  'AWS metrics (CloudWatch, the services publish them)': [
    'ConcurrentExecutions',
    'InitDuration',
    'IntegrationLatency',
    'SuccessfulRequestLatency',
    'ThrottledRequests',
  ],
  'AWS API, error, SDK client and CDK property names, and the CDK bootstrap stack': [
    'TransactWrite',
    'cacheMiddleware',
    'InternalFailure',
    'domainMapping',
    'disableExecuteApiEndpoint',
    'CDKToolkit',
  ],
  'MCP clients, the MCP SDK and the conformance suite': ['mcpServers', 'McpServer', 'test_simple_text', 'test_image_content'],
  'Powertools Logger options': ['logEvent'],
  "MCP clients' configuration files": ['.mcp.json', 'claude_desktop_config.json'],
  'Spectral, run with npx in a scratch directory (openapi.md), not installed': [
    '@stoplight/spectral-cli',
    '@stoplight/spectral-owasp-ruleset',
  ],
  "scaling.md's reservations, a design not built": ['RES'],
};
const notOurs = new Set(Object.values(NOT_OURS).flat());
const ALARM = /^(\w+)(Errors|Throttles)$/;

const IDENTIFIER = /^[A-Za-z_$][\w$]*(\(\))?$/;
const PATH = /\/|\.(ts|md|json|mjs|java)$/;

/** The backticked names of a Markdown text that are paths or identifiers (commands, values and code snippets are left alone). */
function namesIn(markdown: string): { paths: string[]; identifiers: string[] } {
  const spans = [...markdown.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((match) => match[1] ?? '');
  const paths = spans.filter(
    (span) =>
      PATH.test(span) &&
      !/\s|<|…|\*|\$\{|:\/\//.test(span) &&
      !span.startsWith('/') &&
      // Outside the repository: the shared contract beside it.
      !span.startsWith('../'),
  );
  const identifiers = spans
    .filter((span) => !PATH.test(span) && IDENTIFIER.test(span) && !/^\$[A-Z_]+$/.test(span))
    .map((span) => span.replace(/\(\)$/, ''));
  return { paths: [...new Set(paths)], identifiers: [...new Set(identifiers)] };
}

interface Repository {
  exists(path: string): boolean;
  rootEntries: ReadonlySet<string>;
  fileNames: ReadonlySet<string>;
  packages: readonly string[];
  ignored: readonly string[];
}

/** Whether a backticked path is one that must exist, and does, or a name the code itself uses (`tools/list`, `index.mjs`). */
function pathHolds(span: string, code: string, repository: Repository): boolean {
  const path = span.replace(/[#:].*$/, '');
  // The code's text is megabytes: searched last, for the paths nothing else accounts for.
  return notOurs.has(path) || pathStands(path, repository) || code.includes(path);
}

/** Whether a path names what exists: a file or folder here, a locked package, an ignored folder's content. */
function pathStands(path: string, repository: Repository): boolean {
  const first = path.split('/')[0] ?? '';
  if (repository.ignored.some((folder) => `${path}/`.startsWith(folder))) return true;
  // A variable's value (`DATA_DIR/dynamodb-local.lock`).
  if (/^[A-Z_]+$/.test(first) && path.includes('/')) return true;
  if (first.startsWith('@') || repository.packages.some((entry) => entry === `node_modules/${first}`)) {
    const name = first.startsWith('@') ? path.split('/').slice(0, 2).join('/') : first;
    return repository.packages.includes(`node_modules/${name}`);
  }
  if (!path.includes('/')) return repository.fileNames.has(path);
  if (repository.rootEntries.has(first) || /\.(ts|md|json|mjs|java)$/.test(path)) return repository.exists(path);
  // A name with a slash that is not a path: `tools/list`, `AWS/Lambda`.
  return true;
}

/** Names the code does not contain (identifiers as whole words), and paths that do not exist. */
const codeOf = (text: string) => ({ text, words: new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []) });

function missing(markdown: string, code: { text: string; words: ReadonlySet<string> }, repository: Repository): string[] {
  const { paths, identifiers } = namesIn(markdown);
  const { words } = code;
  const known = (name: string) => words.has(name) || notOurs.has(name) || words.has(ALARM.exec(name)?.[1] ?? '');
  return [...paths.filter((path) => !pathHolds(path, code.text, repository)), ...identifiers.filter((name) => !known(name))];
}

const repository: Repository = {
  exists: (path) => existsSync(join(ROOT, path)),
  rootEntries: new Set(readdirSync(ROOT)),
  fileNames: repositoryFileNames,
  packages: lockedPackages,
  ignored: IGNORED,
};
const code = codeOf(codeText);
const PAGES = readdirSync(join(ROOT, 'docs'))
  .filter((file) => file.endsWith('.md'))
  .sort();

describe.each(PAGES)('docs/%s', (page) => {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');

  it('names only code that exists', () => {
    expect(missing(text, code, repository)).toEqual([]);
  });
});

describe('the names check', () => {
  it('reads every page and checks enough names to mean something', () => {
    const all = PAGES.map((page) => namesIn(readFileSync(join(ROOT, 'docs', page), 'utf8')));
    expect(PAGES.length).toBeGreaterThan(15);
    expect(all.flatMap(({ paths }) => paths).length).toBeGreaterThan(300);
    expect(all.flatMap(({ identifiers }) => identifiers).length).toBeGreaterThan(1000);
  });

  it('would catch a name that is gone, a path that moved, a package not installed and an alarm of no function', () => {
    const stale =
      'steps (`answerFromRecord`), the module `lib/social/charge.ts`, its `charge.ts`, `@aws-sdk/client-no-such`, `GetMeErrors`, `NoSuchFunctionErrors`, `refusalOf()` and `ServiceError`';
    const code = codeOf('export function refusalOf() {}\nclass ServiceError {}\nconst GetMe = 1;');
    const none: Repository = { exists: () => false, rootEntries: new Set(['lib']), fileNames: new Set(), packages: [], ignored: [] };

    expect(missing(stale, code, none)).toEqual([
      'lib/social/charge.ts',
      'charge.ts',
      '@aws-sdk/client-no-such',
      'answerFromRecord',
      'NoSuchFunctionErrors',
    ]);
  });

  it('leaves alone what is not ours to check: run-time files, URLs, names with a slash, the shared contract', () => {
    const page =
      "`.local/dev.json`, `https://api.scrapecreators.com`, `tools/list` (the code's 'tools/list'), `AWS/Lambda`, `../shared/DESIGN.md`, `DATA_DIR/x.lock`, `$TABLE`";
    const none: Repository = {
      exists: () => false,
      rootEntries: new Set(['lib']),
      fileNames: new Set(),
      packages: [],
      ignored: ['.local/'],
    };

    expect(missing(page, codeOf("case 'tools/list':"), none)).toEqual([]);
  });
});
