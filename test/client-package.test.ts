/**
 * The typed client as another project gets it: `npm pack` in client/ (its prepack builds
 * dist/), the tarball installed offline into a separate ESM TypeScript project in a temporary
 * folder, that project typechecked (libraries included: skipLibCheck off) and compiled, and run
 * by plain node against the local stack, calling /me. The types are checked to be real: a
 * wrong path and a wrong field fail to compile. The package's README example typechecks too.
 *
 * In the long tier (`npm run test:long`, vitest.config.ts): it packs the client and compiles a project of its own.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack } from './support/local-stack.ts';
import { REPO } from './support/processes.ts';

const CLIENT = join(REPO, 'client');
const TSGO = join(REPO, 'node_modules', '.bin', 'tsgo');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command's exit code and output (never throws for a non-zero exit). */
const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> =>
  new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

/** The consumer: an ESM TypeScript project of its own, strict, libraries checked, @types/node for process. */
function consumerProject(dir: string, files: Record<string, string>): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022'],
        strict: true,
        skipLibCheck: false,
        outDir: 'dist',
        rootDir: 'src',
        types: ['node'],
        // This repository's @types/node: a Node project has its own; installing it here would need the network.
        typeRoots: [join(REPO, 'node_modules', '@types')],
      },
      include: ['src'],
    }),
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'src', name), text);
}

const MAIN = `import { createWorkspaceClient, type WorkspaceClient } from '@workspace-service/client';

const api: WorkspaceClient = createWorkspaceClient({ baseUrl: process.env.WORKSPACE_API_URL ?? '', token: process.env.WORKSPACE_TOKEN ?? '' });
const { data, error, response } = await api.GET('/me');
if (error) throw new Error(\`\${response.status} \${error.code}: \${error.message}\`);
const memberships: string[] = data.organizations.map((organization) => \`\${organization.organization_id} (\${organization.role})\`);
console.log(\`\${data.user_id} \${data.token_kind}: \${memberships.join(', ')}\`);
`;

const WRONG = `import { createWorkspaceClient } from '@workspace-service/client';

const api = createWorkspaceClient({ baseUrl: 'http://127.0.0.1:3000', token: 't' });
await api.GET('/no/such/path', {});
const { data } = await api.GET('/me');
console.log(data?.organizations[0]?.nope);
`;

const stack = await startLocalStack();
afterAll(() => stack.stop());

describe('the typed client as a package (client/)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'client-package-'));
  const version = (JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as { version: string }).version;
  const tarball = join(dir, `workspace-service-client-${version}.tgz`);
  const app = join(dir, 'app');

  beforeAll(async () => {
    const packed = await run('npm', ['pack', '--pack-destination', dir], CLIENT);
    expect(packed, packed.stderr).toMatchObject({ code: 0 });
    consumerProject(app, { 'main.ts': MAIN });
    // An empty cache and --offline: the tarball must install with nothing else.
    const installed = await run(
      'npm',
      ['install', '--offline', '--no-audit', '--no-fund', '--cache', join(dir, 'npm-cache'), tarball],
      app,
    );
    expect(installed, installed.stderr).toMatchObject({ code: 0 });
  }, 180_000);

  it('ships the module, its types and the licenses, and depends on nothing', async () => {
    const listed = await run('tar', ['-tzf', tarball], dir);
    expect(listed.stdout.trim().split('\n').sort()).toEqual(
      [
        'README.md',
        'package.json',
        'dist/LICENSE',
        'dist/index.d.ts',
        'dist/index.js',
        'dist/schema.d.ts',
        'dist/vendor/openapi-fetch.LICENSE',
        'dist/vendor/openapi-fetch.d.ts',
        'dist/vendor/openapi-typescript-helpers.LICENSE',
        'dist/vendor/openapi-typescript-helpers.d.ts',
      ]
        .map((file) => `package/${file}`)
        .sort(),
    );
    const installed = JSON.parse(readFileSync(join(app, 'node_modules', '@workspace-service', 'client', 'package.json'), 'utf8'));
    expect(installed).toMatchObject({ name: '@workspace-service/client', license: 'MIT', type: 'module' });
    expect(installed.dependencies).toBeUndefined();
    expect(installed.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
  });

  it('typechecks and compiles in a separate ESM TypeScript project, whose build calls /me on the local stack', async () => {
    const compiled = await run(TSGO, ['-p', '.'], app);
    expect(compiled, compiled.stdout).toMatchObject({ code: 0 });

    const ran = await run(process.execPath, [join(app, 'dist', 'main.js')], app, {
      WORKSPACE_API_URL: stack.baseUrl,
      WORKSPACE_TOKEN: stack.ownerToken,
    });
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    expect(ran.stdout).toBe(`user_demo_owner user: ${stack.organizationId} (owner)\n`);
  }, 60_000);

  it('has real types: a path the API lacks and a field its answer lacks do not compile', async () => {
    const wrong = join(dir, 'wrong');
    consumerProject(wrong, { 'wrong.ts': WRONG });
    writeFileSync(join(wrong, 'package.json'), JSON.stringify({ name: 'wrong', private: true, type: 'module' }));
    // The installed package, as the consumer has it.
    await run('cp', ['-r', join(app, 'node_modules'), wrong], dir);
    const compiled = await run(TSGO, ['-p', '.', '--noEmit'], wrong);
    expect(compiled.code).not.toBe(0);
    expect(compiled.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^src\/wrong\.ts\(4,\d+\): error TS2345: Argument of type '"\/no\/such\/path"' is not assignable to parameter of type 'PathsWithMethod<paths, "get">'/,
      ),
      expect.stringMatching(
        /^src\/wrong\.ts\(6,\d+\): error TS2339: Property 'nope' does not exist on type '\{ organization_id: string; role: /,
      ),
    ]);
  }, 60_000);

  it("typechecks the package README's example as written", async () => {
    const readme = readFileSync(join(CLIENT, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("import { createWorkspaceClient } from '@workspace-service/client';");
    const project = join(dir, 'readme');
    consumerProject(project, { 'example.ts': example ?? '' });
    await run('cp', ['-r', join(app, 'node_modules'), project], dir);
    const compiled = await run(TSGO, ['-p', '.', '--noEmit'], project);
    expect(compiled, compiled.stdout).toMatchObject({ code: 0 });
  }, 60_000);
});
