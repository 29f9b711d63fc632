import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handler } from '../functions/list-billing-events.ts';
import { getMembership } from '../lib/db/memberships.ts';
import { getOrganization } from '../lib/db/organizations.ts';
import { uniqueId } from './support/fixtures.ts';
import { call } from './support/http.ts';
import { runScript } from './support/processes.ts';
import { TEST_AUDIENCE, TEST_ISSUER, trustedKey } from './support/tokens.ts';

const table = ['--table', process.env.TABLE_NAME!, '--endpoint', process.env.DYNAMODB_ENDPOINT!, '--region', 'us-east-1'];

async function admin(...args: string[]) {
  const result = await runScript('scripts/admin.ts', [...args, ...table]);
  return { ...result, json: result.code === 0 ? JSON.parse(result.stdout) : undefined };
}

/** A working directory whose .local/dev.json describes "the local stack": this test's table and key. */
function localStackDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'admin-cli-'));
  mkdirSync(join(dir, '.local'));
  const keyFile = join(dir, '.local', 'signing-key.json');
  writeFileSync(keyFile, JSON.stringify(trustedKey()));
  writeFileSync(
    join(dir, '.local', 'dev.json'),
    JSON.stringify({
      dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT,
      tableName: process.env.TABLE_NAME,
      signingKeyFile: keyFile,
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
    }),
  );
  return dir;
}

describe('admin CLI', () => {
  it('creates an organization, adds members and grants credits; the API then shows the grants', async () => {
    const orgId = uniqueId('org_');
    const owner = uniqueId('u_');

    const created = await admin(
      'org',
      'create',
      '--id',
      orgId,
      '--name',
      'Acme',
      '--credits',
      '100',
      '--networks',
      'instagram,x',
      '--spending-limit',
      '50',
    );
    const member = await admin('member', 'add', '--org', orgId, '--user', owner, '--role', 'owner', '--spending-limit', '10');
    const granted = await admin('credits', 'grant', '--org', orgId, '--amount', '25');

    expect(created.code).toBe(0);
    expect(created.json).toEqual({
      id: orgId,
      name: 'Acme',
      networks: ['instagram', 'x'],
      credits: 100,
      spending_limit: 50,
      created_at: expect.any(String),
    });
    expect(member.json).toMatchObject({ organization_id: orgId, user_id: owner, role: 'owner', spending_limit: 10 });
    expect(granted.json.organization.credits).toBe(125);
    expect(granted.json.event).toMatchObject({ type: 'credits.granted', amount: 25, currency: 'credits' });
    expect(await getOrganization(orgId)).toMatchObject({ credits: 125 });
    expect(await getMembership(orgId, owner)).toMatchObject({ role: 'owner' });
  });

  it('creates, deletes at a given time, archives and gets resources', async () => {
    const orgId = uniqueId('org_');
    await admin('org', 'create', '--id', orgId);
    const project = await admin(
      'create',
      'project',
      '--org',
      orgId,
      '--by',
      'u1',
      '--slug',
      'launch',
      '--title',
      'Launch',
      '--visibility',
      'private',
    );
    expect(project.json).toMatchObject({
      organization_id: orgId,
      slug: 'launch',
      title: 'Launch',
      visibility: 'private',
      workspace_role: 'owner',
    });

    const taken = await admin('create', 'project', '--org', orgId, '--by', 'u2', '--slug', 'launch');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('slug "launch" is taken by a live project');

    const archived = await admin('archive', 'project', project.json.id, '--by', 'u1');
    expect(archived.json).toMatchObject({ archived_by_id: 'u1', archived_at: expect.any(String) });
    const deleted = await admin('delete', 'project', project.json.id, '--by', 'u1', '--at', '2026-01-02T03:04:05.000Z');
    expect(deleted.json).toMatchObject({ deleted_at: '2026-01-02T03:04:05.000Z', deleted_by_id: 'u1', archived_by_id: 'u1' });
    const fetched = await admin('get', 'project', project.json.id);
    expect(fetched.json).toEqual(deleted.json);

    // The slug is free again once its project is deleted.
    const again = await admin('create', 'project', '--org', orgId, '--by', 'u2', '--slug', 'launch');
    expect(again.code).toBe(0);
  });

  it.each(['asset', 'skill', 'conversation'])('creates a %s with every API field', async (kind) => {
    const orgId = uniqueId('org_');
    await admin('org', 'create', '--id', orgId);
    const created = await admin('create', kind, '--org', orgId, '--by', 'u1', '--title', 'T', '--name', `N ${kind}`);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      deleted_at: null,
      deleted_by_id: null,
      workspace_role: 'owner',
    });
  });

  it('refuses a conversation in a deleted project', async () => {
    const orgId = uniqueId('org_');
    await admin('org', 'create', '--id', orgId);
    const project = await admin('create', 'project', '--org', orgId, '--by', 'u1', '--slug', 'gone');
    await admin('delete', 'project', project.json.id, '--by', 'u1');
    const conversation = await admin('create', 'conversation', '--org', orgId, '--by', 'u1', '--project', project.json.id);
    expect(conversation.code).toBe(1);
    expect(conversation.stderr).toContain('is deleted (restore it first) or no longer exists');
  });

  it.each([
    [['org', 'create', '--id', 'acme'], '--id must look like org_'],
    [['org', 'create'], '--id is required'],
    [['member', 'add', '--org', 'org_x', '--user', 'u', '--role', 'admin'], '--role must be one of viewer, editor, owner'],
    [['credits', 'grant', '--org', 'org_x', '--amount', '0'], '--amount must be an integer >= 1'],
    [['credits', 'grant', '--org', 'org_x', '--amount', 'ten'], '--amount must be an integer >= 1'],
    [['create', 'widget', '--org', 'org_x', '--by', 'u'], 'resource kind must be one of asset, skill, conversation, project'],
    [['delete', 'asset', '--by', 'u'], 'a resource id is required'],
    [['delete', 'asset', 'x', '--by', 'u', '--at', 'yesterday'], '--at must be an ISO 8601 date-time'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['org', 'create', '--bogus'], "Unknown option '--bogus'"],
  ])('exits 2 on bad usage: %j', async (args, message) => {
    const result = await admin(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });

  it('exits 1 with a message when the organization does not exist', async () => {
    const result = await admin('credits', 'grant', '--org', uniqueId('org_'), '--amount', '5');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/organization org_\w+ does not exist/);
  });

  describe('token', () => {
    it('signs a token for the local stack that the API accepts', async () => {
      const orgId = uniqueId('org_');
      const user = uniqueId('u_');
      await admin('org', 'create', '--id', orgId);
      await admin('member', 'add', '--org', orgId, '--user', user, '--role', 'owner');
      const result = await runScript('scripts/admin.ts', ['token', '--user', user], { cwd: localStackDir() });
      expect(result.code).toBe(0);
      const { token } = JSON.parse(result.stdout);
      const answer = await call(handler, { url: `/organizations/${orgId}/billing/events`, token });
      expect(answer.status).toBe(200);
    });

    it('gives an expired token for a negative ttl', async () => {
      const result = await runScript('scripts/admin.ts', ['token', '--user', 'u1', '--ttl', '-30'], { cwd: localStackDir() });
      const { token } = JSON.parse(result.stdout);
      const answer = await call(handler, { url: `/organizations/org_any/billing/events`, token });
      expect(answer.status).toBe(401);
    });

    it('refuses to run against a non-local table', async () => {
      const result = await runScript('scripts/admin.ts', ['token', '--user', 'u1', '--table', 'prod', '--region', 'eu-west-1'], {
        cwd: localStackDir(),
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('refuses to run against a non-local table');
    });
  });

  it('asks for a region rather than guessing one for a real table', async () => {
    const result = await runScript('scripts/admin.ts', ['get', 'asset', 'x', '--table', 'prod'], {
      env: { AWS_REGION: '', AWS_DEFAULT_REGION: '' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--region is required with --table (or set AWS_REGION)');
  });

  it('says how to start the local stack when there is none', async () => {
    const result = await runScript('scripts/admin.ts', ['get', 'asset', 'x'], { cwd: mkdtempSync(join(tmpdir(), 'empty-')) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('start one with `npm start`, or pass --table');
  });
});
