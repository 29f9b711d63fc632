import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
// Absolute, so a script can run with another working directory (a temporary .local/).
export const TSX = import.meta.resolve('tsx');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript script of this repository in a fresh node process. */
export const runScript = (script: string, args: string[], options: RunOptions = {}): Promise<Finished> =>
  runNode(['--import', TSX, `${REPO}${script}`, ...args], options);

/** Runs the admin CLI as `npm run admin` does: plain node on the launcher, which runs a cached build. */
export const runAdmin = (args: string[], options: RunOptions = {}): Promise<Finished> =>
  runNode([`${REPO}scripts/admin-launcher.mjs`, ...args], options);

interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
}

function runNode(nodeArgs: string[], options: RunOptions): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, {
      cwd: options.cwd ?? REPO,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
