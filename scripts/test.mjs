/**
 * `npm test`: Vitest's integration tier, its unit tier and the checks (the typecheck by tsgo, of
 * the service and then of the console; the lint by Biome), side by side in processes of their own.
 *
 * The integration tier sets the pace. Its files spend part of their time waiting (on DynamoDB
 * Local, a timer, a browser), and even three of them at once leave a share of the 2-core machine
 * idle. The unit tier (about 20 CPU-s) and the checks (about 12) wait on nothing, so they run at
 * the lowest CPU priority (nice 19): the kernel gives them the time the integration tier leaves
 * idle rather than a share of its own, and whatever of them is left runs at the end at full speed.
 * One Vitest for both tiers ran the unit tier after the other, on its own, for its last 10 s:
 * Vitest runs projects one after another, and a worker that reuses its modules serves one project
 * (docs/performance.md, "The test suite").
 *
 * Vitest's integration output streams as it comes; the unit tier's and each check's output is
 * printed when it ends, and a line at the end names each verdict. The exit code is non-zero if
 * any of them failed. With arguments (`npm test -- test/x.test.ts`), one Vitest runs both tiers
 * with them, as `vitest run` would: a file filter names files of one tier or the other.
 * Plain JavaScript: nothing to transform.
 *
 * Into a pipe or a file (CI's log), Vitest reports with dots rather than a line per test: the
 * failures come out in full either way, and the 3,500 lines cost its main process about a tenth
 * of the unit tier's CPU (test:unit 26.7 -> 24.3 CPU-s). `-- --reporter=default` for the lines.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
/** The lowest CPU priority: only what the integration tier leaves idle. */
const BACKGROUND = 19;

/**
 * In order: each starts once the one before passed (a type error makes the lint's verdict moot).
 * tsgo on one thread: its checkers in parallel redo shared work (the service's typecheck
 * 9.9 -> 6.7-7.3 CPU-s, at the same ~6 s beside Vitest), and here CPU is what the suite waits for.
 */
const CHECKS = [
  ['typecheck', bin('tsgo'), ['-p', '.', '--singleThreaded']],
  ['console typecheck', bin('tsgo'), ['-p', 'console', '--singleThreaded']],
  ['lint', bin('biome'), ['check', '--error-on-warnings', '.']],
];

/**
 * Runs a command from the repository's root: its exit code, and its output unless it inherits
 * ours. In the background, the child gets the lowest priority right after it is spawned, before
 * it starts its workers, which inherit it (Vitest forks them from its main thread). Where the
 * system refuses, it runs at ours: slower, never wrong.
 */
function run(command, args, { capture, background = false }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (background && child.pid) {
      try {
        setPriority(child.pid, BACKGROUND);
      } catch {}
    }
    let output = '';
    if (capture) {
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
    }
    child.once('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

/** A part of the run: its name and whether it passed. */
const verdict = (name, code) => ({ name, passed: code === 0 });

/** A part in the background, its output printed when it ends (if it printed any, or failed). */
async function inBackground(name, command, args) {
  const { code, output } = await run(command, args, { capture: true, background: true });
  if (code !== 0 || output.trim()) process.stdout.write(`\n${name} (${[command.replace(`${ROOT}/`, ''), ...args].join(' ')}):\n${output}`);
  return verdict(name, code);
}

async function checks() {
  const verdicts = [];
  for (const [name, command, args] of CHECKS) {
    verdicts.push(await inBackground(name, command, args));
    if (!verdicts.at(-1).passed) break;
  }
  return verdicts;
}

const args = process.argv.slice(2);
const reporter = process.stdout.isTTY || args.some((arg) => arg.startsWith('--reporter')) ? [] : ['--reporter=dot'];
const projects = (...names) => names.flatMap((name) => ['--project', name]);
/** Vitest in the foreground: its output streams into ours. */
const vitest = async (name, names) =>
  verdict(name, (await run(bin('vitest'), ['run', ...projects(...names), ...reporter, ...args], { capture: false })).code);

const verdicts = (
  await Promise.all(
    args.length > 0
      ? [checks(), vitest('tests', ['unit', 'integration'])]
      : [
          checks(),
          inBackground('unit tier', bin('vitest'), ['run', ...projects('unit'), '--reporter=dot']),
          vitest('integration tier', ['integration']),
        ],
  )
).flat();
process.stdout.write(`\n${verdicts.map(({ name, passed }) => `${name} ${passed ? 'passed' : 'FAILED'}`).join(', ')}\n`);
process.exitCode = verdicts.every(({ passed }) => passed) ? 0 : 1;
