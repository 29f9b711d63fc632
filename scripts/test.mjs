/**
 * `npm test`: the typecheck (tsgo: the service, then the console) and the lint (Biome) run beside
 * Vitest's unit and integration tiers rather than before them. Vitest leaves about a tenth of the
 * 2-core machine idle while files wait on DynamoDB Local, a browser or a timer, and the checks
 * (about 12 CPU-s, 7 s on their own) fill it (docs/local-development.md, "Tests").
 *
 * Vitest's output streams as it comes; a check's output is printed when that check ends, and a
 * line at the end names each check's verdict. The exit code is non-zero if any of them failed.
 * Arguments go to Vitest (`npm test -- test/x.test.ts`). Plain JavaScript: nothing to transform.
 *
 * Into a pipe or a file (CI's log), Vitest reports with dots rather than a line per test: the
 * failures come out in full either way, and the 3,500 lines cost its main process about a tenth
 * of the unit tier's CPU (test:unit 26.7 -> 24.3 CPU-s). `-- --reporter=default` for the lines.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

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

/** Runs a command from the repository's root; its exit code, and its output unless it inherits ours. */
function run(command, args, { capture }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (capture) {
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
    }
    child.once('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function checks() {
  const verdicts = [];
  for (const [name, command, args] of CHECKS) {
    const { code, output } = await run(command, args, { capture: true });
    if (code !== 0 || output.trim())
      process.stdout.write(`\n${name} (${[command.replace(`${ROOT}/`, ''), ...args].join(' ')}):\n${output}`);
    verdicts.push(`${name} ${code === 0 ? 'passed' : 'FAILED'}`);
    if (code !== 0) return { ok: false, verdicts };
  }
  return { ok: true, verdicts };
}

const args = process.argv.slice(2);
const reporter = process.stdout.isTTY || args.some((arg) => arg.startsWith('--reporter')) ? [] : ['--reporter=dot'];

const [checked, tested] = await Promise.all([
  checks(),
  run(bin('vitest'), ['run', '--project', 'unit', '--project', 'integration', ...reporter, ...args], { capture: false }),
]);
process.stdout.write(`\n${checked.verdicts.join(', ')}; tests ${tested.code === 0 ? 'passed' : 'FAILED'}\n`);
process.exitCode = checked.ok && tested.code === 0 ? 0 : 1;
