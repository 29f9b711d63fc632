/**
 * The admin CLI as an operator uses it: each command's JSON document, exit code and message.
 * Most cases run the CLI's own `main` in this process against this file's table (fast); a
 * handful run `npm run admin`'s real entry (the cached build) in a child process, for what only
 * a process shows: exit codes, stdout versus stderr, the local stack's .local/dev.json.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as acceptInvitation } from '../functions/accept-invitation.ts';
import { handler as createKey } from '../functions/create-api-key.ts';
import { handler as createWebhook } from '../functions/create-webhook.ts';
import { handler as getMe } from '../functions/get-me.ts';
import { handler } from '../functions/list-billing-events.ts';
import { handler as putAlertSettings } from '../functions/put-alert-settings.ts';
import { handler as runOperation } from '../functions/run-social-operation.ts';
import { handler as testWebhook } from '../functions/test-webhook.ts';
import { refundRun } from '../lib/billing/paid-run.ts';
import { db } from '../lib/db/client.ts';
import { getMembership } from '../lib/db/memberships.ts';
import { getOrganization } from '../lib/db/organizations.ts';
import { countRoundTrips } from '../lib/db/round-trips.ts';
import { createLocalServer } from '../lib/local/server.ts';
import { type LocalSes, readOutbox, startLocalSes } from '../lib/local/ses-outbox.ts';
import { WEBHOOK_ATTEMPTS } from '../lib/webhooks/delivery.ts';
import { main } from '../scripts/admin/main.ts';
import { receiver } from './alerts/receivers.ts';
import { chargeDirectly } from './support/charges.ts';
import { atDepth } from './support/depth.ts';
import { uniqueId, workspace } from './support/fixtures.ts';
import { call } from './support/http.ts';
import { drainJobs } from './support/jobs.ts';
import { runAdmin } from './support/processes.ts';
import { TEST_AUDIENCE, TEST_ISSUER, tokenFor, trustedKey } from './support/tokens.ts';

const table = ['--table', process.env.TABLE_NAME!, '--endpoint', process.env.DYNAMODB_ENDPOINT!, '--region', 'us-east-1'];

/** One CLI call in this process: its exit code, what it printed, and the JSON document on success. */
async function admin(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main([...args, ...table], { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr, json: code === 0 && stdout.startsWith('{') ? JSON.parse(stdout) : undefined };
}

/** A charge of `cost` by `userId` now, through the service's own charge transaction (limits as stored). */
async function charge(orgId: string, userId: string, cost: number) {
  return chargeDirectly({ orgId, userId, cost });
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

const month = new Date().toISOString().slice(0, 7);
const period = {
  start: `${month}-01T00:00:00.000Z`,
  end: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/),
};

describe('org', () => {
  it('set-spending-limit: sets and clears the limit, and the next run is held to it', async () => {
    const { orgId, users } = await workspace({ credits: 100 });

    const set = await admin('org', 'set-spending-limit', '--org', orgId, '--limit', '1');
    await charge(orgId, users.editor, 1);
    const refused = await charge(orgId, users.editor, 1).catch((error: unknown) => error);
    const cleared = await admin('org', 'set-spending-limit', '--org', orgId, '--limit', 'none');
    const unknown = await admin('org', 'set-spending-limit', '--org', 'org_nowhere_limit', '--limit', '5');

    expect(set).toMatchObject({ code: 0, json: { id: orgId, spending_limit: 1 } });
    expect(refused).toMatchObject({
      code: 'spending_limit_exceeded',
      details: { data: { scope: 'organization', spending_limit: 1, spent: 1 } },
    });
    expect(cleared).toMatchObject({ code: 0, json: { id: orgId, spending_limit: null } });
    expect(await charge(orgId, users.editor, 1)).toMatchObject({ cost: 1 });
    expect(unknown).toMatchObject({ code: 1, stderr: 'admin: organization org_nowhere_limit does not exist\n' });
  });

  it('rename: the organization and its directory entry, in one write; the id stays', async () => {
    const orgId = uniqueId('org_');
    await admin('org', 'create', '--id', orgId, '--name', 'Old name');

    const renamed = await admin('org', 'rename', '--org', orgId, '--name', '  Acme Research  ');
    const listed = await admin('org', 'list', '--after', orgId.slice(0, -1));
    const unknown = await admin('org', 'rename', '--org', 'org_nowhere_rename', '--name', 'X');

    expect(renamed).toMatchObject({ code: 0, json: { id: orgId, name: 'Acme Research' } });
    expect(listed.json.organizations.find((org: { id: string }) => org.id === orgId)).toMatchObject({ name: 'Acme Research' });
    expect(unknown).toMatchObject({ code: 1, stderr: 'admin: organization org_nowhere_rename does not exist\n' });
  });

  it('create: the organization with its opening balance, then show and grant', async () => {
    const orgId = uniqueId('org_');

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
    const granted = await admin('credits', 'grant', '--org', orgId, '--amount', '25');

    expect(created.code).toBe(0);
    expect(created.json).toEqual({
      id: orgId,
      name: 'Acme',
      networks: ['instagram', 'x'],
      credits: 100,
      spending_limit: 50,
      daily_limit: null,
      confirm_above: null,
      created_at: expect.any(String),
    });
    expect(granted.json.organization.credits).toBe(125);
    expect(granted.json.event).toMatchObject({ type: 'credits.granted', amount: 25, currency: 'credits' });
    expect(await getOrganization(orgId)).toMatchObject({ credits: 125 });
  });

  it('show: balance, networks, spending limit and what was spent this month (charges less refunds)', async () => {
    const { orgId, users } = await workspace({ credits: 100, spendingLimit: 80, networks: ['tiktok'] });
    await charge(orgId, users.editor, 7);
    await refundRun(await charge(orgId, users.owner, 3), 'test');

    const shown = await admin('org', 'show', '--org', orgId);

    expect(shown.code).toBe(0);
    expect(shown.json).toEqual({
      id: orgId,
      name: orgId,
      networks: ['tiktok'],
      credits: 93,
      spending_limit: 80,
      daily_limit: null,
      confirm_above: null,
      created_at: expect.any(String),
      period,
      spent: 7,
      spent_today: 7,
    });
  });

  it('show: an organization that spent nothing this month has spent 0; an unknown one is refused', async () => {
    const { orgId } = await workspace({ credits: 5 });

    expect((await admin('org', 'show', '--org', orgId)).json).toMatchObject({ credits: 5, spending_limit: null, spent: 0 });
    const unknown = await admin('org', 'show', '--org', 'org_nobody_here');
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'admin: organization org_nobody_here does not exist\n' });
  });

  it('list: every organization once, in id order, a page at a time, with its balance', async () => {
    const prefix = uniqueId('org_list_');
    const ids = [`${prefix}_a`, `${prefix}_b`, `${prefix}_c`];
    for (const [i, id] of ids.entries()) await admin('org', 'create', '--id', id, '--credits', String(i + 1));

    const seen: { id: string; credits: number }[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page = await admin('org', 'list', '--limit', '2', ...(after ? ['--after', after] : []));
      expect(page.code).toBe(0);
      expect(page.json.organizations.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.organizations);
      after = page.json.next;
      pages += 1;
    } while (after && pages < 100);

    const listedIds = seen.map((org) => org.id);
    expect(listedIds).toEqual([...listedIds].sort());
    expect(new Set(listedIds).size).toBe(listedIds.length);
    expect(seen.filter((org) => org.id.startsWith(prefix))).toEqual(
      ids.map((id, i) => ({
        id,
        name: id,
        networks: expect.any(Array),
        credits: i + 1,
        spending_limit: null,
        daily_limit: null,
        confirm_above: null,
        created_at: expect.any(String),
      })),
    );
  });

  it('list: reads the organization directory with one Query and one BatchGet, never a Scan', async () => {
    const counter = countRoundTrips(db());
    try {
      await admin('org', 'list', '--limit', '5');
    } finally {
      counter.stop();
    }
    expect(counter.log.commands).toEqual(['QueryCommand', 'BatchGetItemCommand']);
  });
});

describe('key', () => {
  it('binds a leaked key to addresses and gives a runaway one a daily limit, in force from its next request', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const created = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: tokenFor(users.owner),
      body: { name: 'nightly', role: 'editor' },
    });
    const runFrom = (sourceIp: string) =>
      call(runOperation, {
        method: 'POST',
        url: `/social/tiktok_profile?organization_id=${orgId}`,
        token: created.body.token,
        body: { handle: 'nasa' },
        sourceIp,
      });

    const bound = await admin('key', 'set-allowed-ips', '--org', orgId, '--key', created.body.id, '--ips', '203.0.113.0/24, 2001:db8::/32');
    const away = await runFrom('198.51.100.7');
    const capped = await admin('key', 'set-daily-limit', '--org', orgId, '--key', created.body.id, '--limit', '1');
    const first = await runFrom('203.0.113.8');
    const second = await runFrom('203.0.113.8');
    const unbound = await admin('key', 'set-allowed-ips', '--org', orgId, '--key', created.body.id, '--ips', 'none');
    const orgDaily = await admin('org', 'set-daily-limit', '--org', orgId, '--limit', '0');
    const memberDaily = await admin('member', 'set-daily-limit', '--org', orgId, '--user', users.editor, '--limit', '4');

    expect(bound.json).toMatchObject({ id: created.body.id, allowed_ips: ['203.0.113.0/24', '2001:db8::/32'] });
    expect([away.status, away.body.code]).toEqual([403, 'ip_not_allowed']);
    expect(capped.json).toMatchObject({ daily_limit: 1 });
    expect([first.status, second.status, second.body.data?.period]).toEqual([200, 402, 'day']);
    expect(unbound.json).toMatchObject({ allowed_ips: null, daily_limit: 1 });
    expect(orgDaily.json).toMatchObject({ id: orgId, daily_limit: 0 });
    expect(memberDaily.json).toMatchObject({ user_id: users.editor, daily_limit: 4 });
    const shown = await admin('org', 'show', '--org', orgId);
    expect(shown.json).toMatchObject({ daily_limit: 0, spent: 1, spent_today: 1 });
  });

  it("lists an organization's API keys with their spend, and revokes one so that its next request is refused", async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 10 });
    const created = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: tokenFor(users.owner),
      body: { name: 'leaked', role: 'editor', spending_limit: 5 },
    });
    await call(runOperation, {
      method: 'POST',
      url: `/social/tiktok_profile?organization_id=${orgId}`,
      token: created.body.token,
      body: { handle: 'nasa' },
    });

    // Act
    const listed = await admin('key', 'list', '--org', orgId);
    const revoked = await admin('key', 'revoke', '--org', orgId, '--key', created.body.id);
    const after = await call(getMe, { url: '/me', token: created.body.token });
    const unknown = await admin('key', 'revoke', '--org', orgId, '--key', `key_${'0'.repeat(32)}`);
    const malformed = await admin('key', 'revoke', '--org', orgId, '--key', 'nope');

    // Assess
    expect(listed.code).toBe(0);
    expect(listed.json.api_keys).toEqual([
      expect.objectContaining({ id: created.body.id, name: 'leaked', role: 'editor', spending_limit: 5, spent: 1, revoked_at: null }),
    ]);
    expect(revoked.code).toBe(0);
    expect(revoked.json).toMatchObject({ id: created.body.id, revoked_at: expect.any(String) });
    expect(after.status).toBe(401);
    expect(after.body.data).toEqual({ reason: 'revoked' });
    expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({
      code: 1,
      stderr: `admin: ${orgId} has no API key key_${'0'.repeat(32)}\n`,
    });
    const afterRevoke = await admin('key', 'set-daily-limit', '--org', orgId, '--key', created.body.id, '--limit', '3');
    expect({ code: afterRevoke.code, stderr: afterRevoke.stderr }).toEqual({
      code: 1,
      stderr: `admin: ${orgId} has no API key ${created.body.id} that is not revoked\n`,
    });
    expect(malformed.code).toBe(2);
  });
});

describe('webhooks', () => {
  /** An organization with an endpoint whose receiver answers `statuses`, and `tests` test events sent to it, each delivered or failed. */
  async function endpointWithDeliveries(statuses: number[], tests: number) {
    const { orgId, users } = await workspace();
    const owner = tokenFor(users.owner);
    const hook = await receiver(statuses);
    const created = await call(createWebhook, {
      method: 'POST',
      url: `/organizations/${orgId}/webhooks`,
      token: owner,
      body: { url: hook.url, events: ['credits.balance_low'] },
    });
    const sent = [];
    for (let i = 0; i < tests; i += 1) {
      const tested = await call(testWebhook, {
        method: 'POST',
        url: `/organizations/${orgId}/webhooks/${created.body.id}/test`,
        token: owner,
      });
      sent.push(tested.body);
      // One at a time, so that the receiver's statuses are this event's; distinct creation instants.
      await drainJobs({ webhookBackoffMs: 5 });
    }
    return { orgId, owner, hook, webhook: created.body, sent };
  }

  it("list: the organization's endpoints without their secrets, and its alert settings", async () => {
    const { orgId, owner, webhook } = await endpointWithDeliveries([200], 0);
    await call(putAlertSettings, {
      method: 'PUT',
      url: `/organizations/${orgId}/alerts`,
      token: owner,
      body: { low_balance: 25, thresholds: [100, 50] },
    });

    const listed = await admin('webhooks', 'list', '--org', orgId);
    const unknown = await admin('webhooks', 'list', '--org', 'org_nowhere_webhooks');

    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.json).toEqual({
      organization_id: orgId,
      alerts: { low_balance: 25, thresholds: [50, 100] },
      webhooks: [{ id: webhook.id, url: webhook.url, events: ['credits.balance_low'], created_at: webhook.created_at }],
    });
    expect(listed.stdout).not.toContain('whsec_');
    expect(unknown).toMatchObject({ code: 1, stderr: 'admin: organization org_nowhere_webhooks does not exist\n' });
  });

  it("deliveries: an endpoint's deliveries newest first, by status, at most --limit; unknown endpoints refused", async () => {
    // The first test event is retried until it fails, the second is delivered at once.
    const { orgId, webhook, sent } = await endpointWithDeliveries([...Array(WEBHOOK_ATTEMPTS).fill(500), 200], 2);
    const [failedEvent, deliveredEvent] = sent;

    const all = await admin('webhooks', 'deliveries', '--org', orgId, '--webhook', webhook.id);
    const failed = await admin('webhooks', 'deliveries', '--org', orgId, '--webhook', webhook.id, '--status', 'failed');
    const newest = await admin('webhooks', 'deliveries', '--org', orgId, '--webhook', webhook.id, '--limit', '1');
    const pending = await admin('webhooks', 'deliveries', '--org', orgId, '--webhook', webhook.id, '--status', 'pending');
    const unknown = await admin('webhooks', 'deliveries', '--org', orgId, '--webhook', `whk_${'0'.repeat(32)}`);
    const badStatus = await admin('webhooks', 'deliveries', '--org', orgId, '--webhook', webhook.id, '--status', 'lost');
    const badLimit = await admin('webhooks', 'deliveries', '--org', orgId, '--webhook', webhook.id, '--limit', '0');
    const badId = await admin('webhooks', 'deliveries', '--org', orgId, '--webhook', 'whk_nope');

    const failedView = { ...failedEvent, status: 'failed', attempts: WEBHOOK_ATTEMPTS, last_status_code: 500, next_attempt_at: null };
    const deliveredView = { ...deliveredEvent, status: 'delivered', attempts: 1, last_status_code: 200 };
    expect(all.json).toEqual({
      organization_id: orgId,
      webhook_id: webhook.id,
      url: webhook.url,
      deliveries: [deliveredView, failedView],
      has_more: false,
    });
    expect(failed.json).toMatchObject({ deliveries: [failedView], has_more: false });
    expect(newest.json).toMatchObject({ deliveries: [deliveredView], has_more: true });
    expect(pending.json).toMatchObject({ deliveries: [], has_more: false });
    expect(unknown).toMatchObject({ code: 1, stderr: `admin: ${orgId} has no webhook endpoint whk_${'0'.repeat(32)}\n` });
    expect(badStatus).toMatchObject({ code: 2 });
    expect(badStatus.stderr).toContain('--status must be one of pending, delivered, failed, got "lost"');
    expect(badLimit.stderr).toContain('--limit must be a whole number from 1 to 1000, got "0"');
    expect(badId.stderr).toContain('--webhook must look like whk_<32 lowercase hex digits>, got "whk_nope"');
  });

  it("resend: a failed delivery goes again through the local stack's queue, same webhook-id, and is delivered", async () => {
    // Prepare: a delivery failed after every attempt; "the local stack" is this file's table and a
    // local server answering SQS into this process's embedded queues.
    const { orgId, webhook, hook, sent } = await endpointWithDeliveries([...Array(WEBHOOK_ATTEMPTS).fill(500), 204], 1);
    const [event] = sent;
    const server = createLocalServer(new Map(), { sqsBridge: true });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const cwd = mkdtempSync(join(tmpdir(), 'admin-webhooks-'));
    mkdirSync(join(cwd, '.local'));
    writeFileSync(
      join(cwd, '.local', 'dev.json'),
      JSON.stringify({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT,
        tableName: process.env.TABLE_NAME,
      }),
    );

    try {
      // Act
      const deployed = await admin('webhooks', 'resend', '--org', orgId, '--webhook', webhook.id, '--event', event.id);
      const resent = await runAdmin(['webhooks', 'resend', '--org', orgId, '--webhook', webhook.id, '--event', event.id], { cwd });
      const again = await runAdmin(['webhooks', 'resend', '--org', orgId, '--webhook', webhook.id, '--event', event.id], { cwd });
      await drainJobs({ webhookBackoffMs: 5 });
      const unknownEvent = await runAdmin(
        ['webhooks', 'resend', '--org', orgId, '--webhook', webhook.id, '--event', `evt_${'0'.repeat(32)}`],
        {
          cwd,
        },
      );
      const log = await admin('webhooks', 'deliveries', '--org', orgId, '--webhook', webhook.id);

      // Assess
      expect(deployed.code).toBe(2);
      expect(deployed.stderr).toContain(
        "--webhooks-queue-url is required against a deployed table (the stack's WebhooksQueueUrl; the local stack needs none)",
      );
      expect({ code: resent.code, stderr: resent.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(resent.stdout)).toEqual({
        ...event,
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        next_attempt_at: null,
      });
      // The resend's message not yet handled: the delivery is pending, a second resend refused.
      expect({ code: again.code, stderr: again.stderr }).toEqual({
        code: 1,
        stderr: `admin: the delivery of ${event.id} is still pending (0 attempts made): it can be resent once delivered or failed\n`,
      });
      expect(hook.received).toHaveLength(WEBHOOK_ATTEMPTS + 1);
      expect(new Set(hook.received.map((delivery) => delivery.headers['webhook-id']))).toEqual(new Set([event.id]));
      expect(log.json.deliveries).toEqual([{ ...event, status: 'delivered', attempts: 1, last_status_code: 204 }]);
      expect(unknownEvent).toMatchObject({
        code: 1,
        stderr: `admin: webhook endpoint ${webhook.id} has no delivery of event evt_${'0'.repeat(32)} (deliveries are kept 30 days)\n`,
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('member', () => {
  it('list: role, spending limit, what each member spent this month, and the address it accepted an invitation with', async () => {
    const { orgId, users } = await workspace({ credits: 50 });
    await admin('member', 'set-spending-limit', '--org', orgId, '--user', users.editor, '--limit', '20');
    await charge(orgId, users.editor, 4);
    await charge(orgId, users.editor, 2);

    const listed = await admin('member', 'list', '--org', orgId);

    expect(listed.code).toBe(0);
    expect(listed.json.organization_id).toBe(orgId);
    expect(listed.json.period).toEqual(period);
    const byUser = Object.fromEntries(listed.json.members.map((member: { user_id: string }) => [member.user_id, member]));
    expect(byUser).toEqual({
      [users.owner]: {
        organization_id: orgId,
        user_id: users.owner,
        role: 'owner',
        spending_limit: null,
        daily_limit: null,
        spent: 0,
        spent_today: 0,
        created_at: expect.any(String),
        email: null,
      },
      [users.editor]: {
        organization_id: orgId,
        user_id: users.editor,
        role: 'editor',
        spending_limit: 20,
        daily_limit: null,
        spent: 6,
        spent_today: 6,
        created_at: expect.any(String),
        email: null,
      },
      [users.viewer]: {
        organization_id: orgId,
        user_id: users.viewer,
        role: 'viewer',
        spending_limit: null,
        daily_limit: null,
        spent: 0,
        spent_today: 0,
        created_at: expect.any(String),
        email: null,
      },
    });
  });

  it('add: a new member; an existing one is refused, names the commands that change one, and is left as it was', async () => {
    const { orgId, users } = await workspace({ roles: ['owner', 'editor'] });
    const added = await admin('member', 'add', '--org', orgId, '--user', 'u_new', '--role', 'viewer', '--spending-limit', '10');
    await admin('member', 'set-spending-limit', '--org', orgId, '--user', users.editor, '--limit', '30');
    const before = await getMembership(orgId, users.editor);

    const again = await admin('member', 'add', '--org', orgId, '--user', users.editor, '--role', 'owner');

    expect(added.json).toEqual({
      organization_id: orgId,
      user_id: 'u_new',
      role: 'viewer',
      spending_limit: 10,
      daily_limit: null,
      created_at: expect.any(String),
    });
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toBe(
      `admin: ${users.editor} is already a member of ${orgId} (role editor, spending limit 30); change a member with \`member set-role\`, \`member set-spending-limit\` or \`member remove\`\n`,
    );
    expect(await getMembership(orgId, users.editor)).toEqual(before);
  });

  it('add: of two concurrent adds of one user, exactly one succeeds (a conditional put)', async () => {
    const { orgId } = await workspace({ roles: ['owner'] });

    const results = await Promise.all([
      admin('member', 'add', '--org', orgId, '--user', 'u_race', '--role', 'viewer'),
      admin('member', 'add', '--org', orgId, '--user', 'u_race', '--role', 'owner'),
    ]);

    expect(results.map((result) => result.code).sort()).toEqual([0, 1]);
  });

  it('add: to an organization that does not exist is refused', async () => {
    const result = await admin('member', 'add', '--org', 'org_missing_x', '--user', 'u1', '--role', 'owner');
    expect(result).toMatchObject({ code: 1, stderr: 'admin: organization org_missing_x does not exist\n' });
  });

  it('set-role: changes the role and keeps the spending limit and created_at', async () => {
    const { orgId, users } = await workspace({ roles: ['editor'] });
    await admin('member', 'set-spending-limit', '--org', orgId, '--user', users.editor, '--limit', '15');
    const before = (await getMembership(orgId, users.editor))!;

    const changed = await admin('member', 'set-role', '--org', orgId, '--user', users.editor, '--role', 'viewer');

    expect(changed.json).toEqual({ ...before, role: 'viewer' });
    expect(await getMembership(orgId, users.editor)).toEqual({ ...before, role: 'viewer' });
  });

  it('set-spending-limit: a number, then none', async () => {
    const { orgId, users } = await workspace({ roles: ['editor'] });

    const set = await admin('member', 'set-spending-limit', '--org', orgId, '--user', users.editor, '--limit', '5');
    const lifted = await admin('member', 'set-spending-limit', '--org', orgId, '--user', users.editor, '--limit', 'none');

    expect(set.json).toMatchObject({ role: 'editor', spending_limit: 5 });
    expect(lifted.json).toMatchObject({ role: 'editor', spending_limit: null });
  });

  it('remove: removes and shows the membership as it was; removing again is refused', async () => {
    const { orgId, users } = await workspace({ roles: ['owner', 'viewer'] });
    const before = await getMembership(orgId, users.viewer);

    const removed = await admin('member', 'remove', '--org', orgId, '--user', users.viewer);
    const again = await admin('member', 'remove', '--org', orgId, '--user', users.viewer);

    expect(removed.json).toEqual({ removed: before });
    expect(await getMembership(orgId, users.viewer)).toBeNull();
    expect(again).toMatchObject({ code: 1, stderr: `admin: ${users.viewer} is not a member of ${orgId}\n` });
  });

  it.each([
    ['set-role', '--role', 'owner'],
    ['set-spending-limit', '--limit', '3'],
  ])('%s: of someone who is not a member is refused, and creates no membership', async (command, option, value) => {
    const { orgId } = await workspace({ roles: ['owner'] });

    const result = await admin('member', command, '--org', orgId, '--user', 'u_stranger', option, value);

    expect(result).toMatchObject({ code: 1, stderr: `admin: u_stranger is not a member of ${orgId}\n` });
    expect(await getMembership(orgId, 'u_stranger')).toBeNull();
  });
});

describe('invitation', () => {
  // The email goes through SES's client to the stand-in on a port of this file's own, from the
  // sender and to the console a deployed table's command names (the local stack's are its own).
  const outboxDir = mkdtempSync(join(tmpdir(), 'admin-cli-outbox-'));
  let ses: LocalSes;
  beforeAll(async () => {
    ses = await startLocalSes(outboxDir);
    process.env.SES_ENDPOINT = ses.endpoint;
  });
  afterAll(async () => {
    await ses.close();
    rmSync(outboxDir, { recursive: true, force: true });
  });
  const mail = ['--from', 'invitations@workspace.test', '--console-url', 'https://console.test/console/'];
  const sentTo = (to: string) => readOutbox(outboxDir).filter((message) => message.to === to);

  it('create: invites as the route does, by nobody; one email with the link, whose token is printed nowhere', async () => {
    const { orgId } = await workspace({ roles: ['owner'] });
    const email = `${uniqueId('ada.')}+ops@example.com`;

    const created = await admin(
      'invitation',
      'create',
      '--org',
      orgId,
      '--email',
      ` ${email.toUpperCase()} `,
      '--role',
      'editor',
      '--spending-limit',
      '40',
      ...mail,
    );
    const again = await admin('invitation', 'create', '--org', orgId, '--email', email, '--role', 'viewer', ...mail);
    const unknown = await admin('invitation', 'create', '--org', 'org_nowhere_inv', '--email', email, '--role', 'viewer', ...mail);

    expect(created).toMatchObject({ code: 0, stderr: '' });
    const { id, created_at } = created.json;
    expect(created.json).toEqual({
      id: expect.stringMatching(/^inv_[0-9a-f]{32}$/),
      organization_id: orgId,
      email,
      role: 'editor',
      spending_limit: 40,
      daily_limit: null,
      status: 'pending',
      invited_by: null,
      created_at: expect.any(String),
      expires_at: new Date(Date.parse(created_at) + 7 * 86_400_000).toISOString(),
      accepted_at: null,
    });
    const [message, ...more] = sentTo(email);
    expect(more).toEqual([]);
    expect(message).toMatchObject({
      invitation_id: id,
      organization_id: orgId,
      accept_url: expect.stringMatching(/^https:\/\/console\.test\/console#invitation=[\w-]{43}$/),
    });
    expect(message!.text).toContain('40 credits a month, no daily limit');
    const token = message!.accept_url!.split('#invitation=')[1]!;
    expect(created.stdout).not.toContain(token);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toBe(`admin: invitation_pending: a pending invitation to this address exists (${id}): resend or revoke it\n`);
    expect(unknown).toMatchObject({ code: 1, stderr: 'admin: organization org_nowhere_inv does not exist\n' });

    // Its link is accepted as an owner's is (an operator's has no inviter whose standing to check).
    const accepted = await call(acceptInvitation, {
      method: 'POST',
      url: '/invitations/accept',
      token: tokenFor('u_invited_by_ops', { extra: { email, email_verified: true } }),
      body: { token },
    });
    const revoked = await admin('invitation', 'revoke', '--org', orgId, '--invitation', id);
    expect(accepted).toMatchObject({ status: 200, body: { organization_id: orgId, role: 'editor', spending_limit: 40 } });
    expect(revoked).toMatchObject({
      code: 1,
      stderr: 'admin: invitation_not_pending: this invitation was accepted: it can no longer be resent or revoked\n',
    });
  });

  it('create --at backdates it, so its expiry; list by status; revoke, and again: nothing changes', async () => {
    const { orgId } = await workspace({ roles: ['owner'] });
    const at = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const old = await admin(
      'invitation',
      'create',
      '--org',
      orgId,
      '--email',
      `${uniqueId('old.')}@example.com`,
      '--role',
      'viewer',
      '--expires-in-days',
      '7',
      '--at',
      at,
      ...mail,
    );
    const fresh = await admin(
      'invitation',
      'create',
      '--org',
      orgId,
      '--email',
      `${uniqueId('new.')}@example.com`,
      '--role',
      'owner',
      '--daily-limit',
      '5',
      ...mail,
    );

    const revoked = await admin('invitation', 'revoke', '--org', orgId, '--invitation', fresh.json.id);
    const again = await admin('invitation', 'revoke', '--org', orgId, '--invitation', fresh.json.id);
    const [all, expired, pending, unknownOrg, unknownInvitation] = await Promise.all([
      admin('invitation', 'list', '--org', orgId),
      admin('invitation', 'list', '--org', orgId, '--status', 'expired'),
      admin('invitation', 'list', '--org', orgId, '--status', 'pending'),
      admin('invitation', 'list', '--org', 'org_nowhere_inv'),
      admin('invitation', 'revoke', '--org', orgId, '--invitation', `inv_${'0'.repeat(32)}`),
    ]);

    expect(old.json).toMatchObject({
      status: 'expired',
      created_at: at,
      expires_at: new Date(Date.parse(at) + 7 * 86_400_000).toISOString(),
    });
    expect(revoked).toMatchObject({ code: 0, json: { id: fresh.json.id, status: 'revoked', role: 'owner', daily_limit: 5 } });
    expect(again).toMatchObject({ code: 0, json: revoked.json });
    expect(all.json).toEqual({ organization_id: orgId, invitations: [revoked.json, old.json] });
    expect(expired.json.invitations).toEqual([old.json]);
    expect(pending.json.invitations).toEqual([]);
    expect(unknownOrg).toMatchObject({ code: 1, stderr: 'admin: organization org_nowhere_inv does not exist\n' });
    expect(unknownInvitation).toMatchObject({
      code: 1,
      stderr: `admin: invitation inv_${'0'.repeat(32)} of organization ${orgId} does not exist\n`,
    });
  });
});

describe('credits deduct', () => {
  it('takes the credits off with a credits.deducted event whose description is the reason', async () => {
    const { orgId } = await workspace({ credits: 100 });

    const deducted = await admin('credits', 'deduct', '--org', orgId, '--amount', '30', '--reason', 'chargeback on invoice 1042');
    const events = await admin('events', 'list', '--org', orgId);

    expect(deducted.code).toBe(0);
    expect(deducted.json.organization).toMatchObject({ id: orgId, credits: 70 });
    expect(deducted.json.event).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'credits.deducted',
      title: 'Credits deducted',
      description: 'chargeback on invoice 1042',
      created_at: expect.any(String),
      amount: -30,
      currency: 'credits',
      metadata: { reason: 'chargeback on invoice 1042' },
    });
    expect(events.json.events[0]).toEqual(deducted.json.event);
  });

  it('is refused when the balance would go below zero, and writes nothing', async () => {
    const { orgId } = await workspace({ credits: 10 });

    const refused = await admin('credits', 'deduct', '--org', orgId, '--amount', '11', '--reason', 'too much');

    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(`admin: organization ${orgId} has 10 credits: deducting 11 would take the balance below zero\n`);
    expect(await getOrganization(orgId)).toMatchObject({ credits: 10 });
    expect((await admin('events', 'list', '--org', orgId)).json.events.map((event: { type: string }) => event.type)).toEqual([
      'credits.granted',
    ]);
  });

  it('of two concurrent deductions that together exceed the balance, one is refused (a condition, not a read)', async () => {
    const { orgId } = await workspace({ credits: 100 });

    const results = await Promise.all([
      admin('credits', 'deduct', '--org', orgId, '--amount', '60', '--reason', 'a'),
      admin('credits', 'deduct', '--org', orgId, '--amount', '60', '--reason', 'b'),
    ]);

    expect(results.map((result) => result.code).sort()).toEqual([0, 1]);
    expect(await getOrganization(orgId)).toMatchObject({ credits: 40 });
  });

  it('of an organization that does not exist is refused', async () => {
    const result = await admin('credits', 'deduct', '--org', 'org_missing_y', '--amount', '1', '--reason', 'r');
    expect(result).toMatchObject({ code: 1, stderr: 'admin: organization org_missing_y does not exist\n' });
  });
});

describe('events list', () => {
  it('lists newest first, within --days, at most --limit', async () => {
    const { orgId } = await workspace({ credits: 10 });
    await admin('credits', 'grant', '--org', orgId, '--amount', '1');
    await admin('credits', 'deduct', '--org', orgId, '--amount', '2', '--reason', 'r');

    const all = await admin('events', 'list', '--org', orgId, '--days', '1');
    const two = await admin('events', 'list', '--org', orgId, '--limit', '2');

    expect(all.json).toEqual({
      organization_id: orgId,
      since: expect.any(String),
      events: expect.any(Array),
      next_cursor: null,
      has_more: false,
    });
    expect(all.json.events.map((event: { amount: number }) => event.amount)).toEqual([-2, 1, 10]);
    expect(two.json.events.map((event: { amount: number }) => event.amount)).toEqual([-2, 1]);
    expect(two.json).toMatchObject({ next_cursor: expect.any(String), has_more: true });
  });

  it('pages with --cursor like the API: each event of the window once, in order, while new ones are written', async () => {
    const { orgId } = await workspace({ credits: 10 });
    for (let i = 1; i <= 4; i += 1) await admin('credits', 'grant', '--org', orgId, '--amount', String(i));
    const whole = await admin('events', 'list', '--org', orgId);
    const first = await admin('events', 'list', '--org', orgId, '--limit', '2');
    // Written after the walk began: outside its window, so no page shifts.
    await admin('credits', 'grant', '--org', orgId, '--amount', '100');
    const second = await admin('events', 'list', '--org', orgId, '--limit', '2', '--cursor', first.json.next_cursor);
    const third = await admin('events', 'list', '--org', orgId, '--limit', '2', '--cursor', second.json.next_cursor);

    // Exactly the events of one whole listing of that window, in its order (ties in a millisecond by id).
    const ids = (page: typeof first) => page.json.events.map((event: { id: string }) => event.id);
    expect([...ids(first), ...ids(second), ...ids(third)]).toEqual(ids(whole));
    expect(whole.json.events.map((event: { amount: number }) => event.amount).sort((a: number, b: number) => a - b)).toEqual([
      1, 2, 3, 4, 10,
    ]);
    expect([first.json.has_more, second.json.has_more, third.json.has_more]).toEqual([true, true, false]);
    expect(third.json.next_cursor).toBeNull();
    // The window stays the first page's.
    expect(new Set([first.json.since, second.json.since, third.json.since]).size).toBe(1);
    // A fresh walk sees the new event first.
    expect((await admin('events', 'list', '--org', orgId, '--limit', '1')).json.events[0].amount).toBe(100);
  });

  it('refuses a cursor that is not one it printed, or given with another --org or --days, before reading anything', async () => {
    const [{ orgId }, other] = await Promise.all([workspace({ credits: 10 }), workspace({ credits: 10 })]);
    await admin('credits', 'grant', '--org', orgId, '--amount', '1');
    const { next_cursor: cursor } = (await admin('events', 'list', '--org', orgId, '--limit', '1', '--days', '7')).json;

    const refusals = await Promise.all([
      admin('events', 'list', '--org', orgId, '--days', '7', '--cursor', `${cursor}x`),
      admin('events', 'list', '--org', other.orgId, '--days', '7', '--cursor', cursor),
      admin('events', 'list', '--org', orgId, '--cursor', cursor),
    ]);
    expect(refusals.map(({ code, stderr }) => ({ code, stderr }))).toEqual([
      {
        code: 2,
        stderr: expect.stringContaining(
          'events list: --cursor is not a cursor this service issued for this listing; list again without a cursor',
        ),
      },
      { code: 2, stderr: expect.stringContaining('events list: --cursor was issued for another organization') },
      {
        code: 2,
        stderr: expect.stringContaining(
          'events list: --cursor was issued for --days 7; send --days 7 with it, or list again without a cursor',
        ),
      },
    ]);
  });

  it('refuses an organization that does not exist rather than showing no events', async () => {
    const result = await admin('events', 'list', '--org', 'org_missing_z');
    expect(result).toMatchObject({ code: 1, stderr: 'admin: organization org_missing_z does not exist\n' });
  });
});

describe('resources', () => {
  it('creates, deletes at a given time, archives and gets a project on behalf of members', async () => {
    const { orgId, users } = await workspace({ roles: ['owner', 'editor'] });

    const project = await admin(
      'create',
      'project',
      '--org',
      orgId,
      '--by',
      users.owner,
      '--slug',
      'launch',
      '--title',
      'Launch',
      '--visibility',
      'private',
    );
    const taken = await admin('create', 'project', '--org', orgId, '--by', users.editor, '--slug', 'launch');
    const archived = await admin('archive', 'project', project.json.id, '--by', users.owner);
    const deleted = await admin('delete', 'project', project.json.id, '--by', users.owner, '--at', '2026-01-02T03:04:05.000Z');
    const fetched = await admin('get', 'project', project.json.id);
    const again = await admin('create', 'project', '--org', orgId, '--by', users.editor, '--slug', 'launch');

    expect(project.json).toMatchObject({
      organization_id: orgId,
      slug: 'launch',
      title: 'Launch',
      visibility: 'private',
      workspace_role: 'owner',
    });
    expect(taken).toMatchObject({ code: 1 });
    expect(taken.stderr).toContain('slug "launch" is taken by a live project');
    expect(archived.json).toMatchObject({ archived_by_id: users.owner, archived_at: expect.any(String) });
    expect(deleted.json).toMatchObject({ deleted_at: '2026-01-02T03:04:05.000Z', deleted_by_id: users.owner, archived_by_id: users.owner });
    expect(fetched.json).toEqual(deleted.json);
    // The slug is free again once its project is deleted.
    expect(again.code).toBe(0);
  });

  it.each(['asset', 'skill', 'conversation'])('creates a %s with every API field', async (kind) => {
    const { orgId, users } = await workspace({ roles: ['owner'] });
    const created = await admin('create', kind, '--org', orgId, '--by', users.owner, '--title', 'T', '--name', `N ${kind}`);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      deleted_at: null,
      deleted_by_id: null,
      workspace_role: 'owner',
    });
  });

  it('refuses a conversation in a deleted project', async () => {
    const { orgId, users } = await workspace({ roles: ['owner'] });
    const project = await admin('create', 'project', '--org', orgId, '--by', users.owner, '--slug', 'gone');
    await admin('delete', 'project', project.json.id, '--by', users.owner);

    const conversation = await admin('create', 'conversation', '--org', orgId, '--by', users.owner, '--project', project.json.id);

    expect(conversation.code).toBe(1);
    expect(conversation.stderr).toContain('is deleted (restore it first) or no longer exists');
  });

  it('refuses --by someone who is not a member of the organization, before writing anything', async () => {
    const { orgId, users } = await workspace({ roles: ['owner'] });
    const asset = await admin('create', 'asset', '--org', orgId, '--by', users.owner);

    const created = await admin('create', 'asset', '--org', orgId, '--by', 'u_outsider');
    const deleted = await admin('delete', 'asset', asset.json.id, '--by', 'u_outsider');
    const archived = await admin(
      'archive',
      'project',
      (await admin('create', 'project', '--org', orgId, '--by', users.owner)).json.id,
      '--by',
      'u_outsider',
    );

    for (const result of [created, deleted, archived])
      expect(result).toMatchObject({ code: 1, stderr: `admin: u_outsider is not a member of ${orgId}\n` });
    expect((await admin('get', 'asset', asset.json.id)).json.deleted_at).toBeNull();
  });

  it('refuses an unknown resource by name', async () => {
    const result = await admin('get', 'asset', '00000000-0000-4000-8000-000000000000');
    expect(result).toMatchObject({ code: 1, stderr: 'admin: asset 00000000-0000-4000-8000-000000000000 does not exist\n' });
  });
});

describe('bad usage', () => {
  it.each([
    [['org', 'create', '--id', 'acme'], 'org create: --id must look like org_<letters, digits, _ or ->, got "acme" (org create --help)'],
    [['org', 'create'], 'org create: --id is required (org create --help)'],
    [['org', 'show'], 'org show: --org is required (org show --help)'],
    [['org', 'list', '--limit', '101'], 'org list: --limit must be a whole number from 1 to 100, got "101" (org list --help)'],
    [
      ['org', 'set-networks', '--org', 'org_x', '--networks', 'instagram,myspace'],
      'org set-networks: network "myspace" in --networks must be one of',
    ],
    [
      ['member', 'add', '--org', 'org_x', '--user', 'u', '--role', 'admin'],
      'member add: --role must be one of viewer, editor, owner, got "admin"',
    ],
    [['member', 'set-role', '--org', 'org_x', '--user', 'u'], 'member set-role: --role is required'],
    [
      ['member', 'set-spending-limit', '--org', 'org_x', '--user', 'u', '--limit', '-1'],
      'member set-spending-limit: --limit must be a whole number from 0',
    ],
    [['member', 'add', '--org', 'org_x', '--user', 'x'.repeat(256), '--role', 'owner'], 'member add: --user must be 1 to 255 characters'],
    [
      ['credits', 'grant', '--org', 'org_x', '--amount', '0'],
      'credits grant: --amount must be a whole number from 1 to 9007199254740991, got "0"',
    ],
    [['credits', 'grant', '--org', 'org_x', '--amount', 'ten'], 'credits grant: --amount must be a whole number from 1'],
    [['credits', 'grant', '--org', 'org_x', '--amount', '1e3'], 'credits grant: --amount must be a whole number from 1'],
    [
      ['credits', 'grant', '--org', 'org_x', '--amount', '9007199254740992'],
      'credits grant: --amount must be a whole number from 1 to 9007199254740991',
    ],
    [
      ['credits', 'deduct', '--org', 'org_x', '--amount', '99999999999999999999', '--reason', 'r'],
      'credits deduct: --amount must be a whole number',
    ],
    [['credits', 'deduct', '--org', 'org_x', '--amount', '5'], 'credits deduct: --reason is required'],
    [
      ['credits', 'deduct', '--org', 'org_x', '--amount', '5', '--reason', 'x'.repeat(501)],
      'credits deduct: --reason must be at most 500 characters',
    ],
    [['events', 'list', '--org', 'org_x', '--days', '0'], 'events list: --days must be a whole number from 1 to 400'],
    [['events', 'list', '--org', 'org_x', '--limit', '1001'], 'events list: --limit must be a whole number from 1 to 1000'],
    [
      ['create', 'project', '--org', 'org_x', '--by', 'u', '--slug', 'Bad Slug!'],
      'create project: --slug must be lowercase letters and digits',
    ],
    [['create', 'project', '--org', 'org_x', '--by', 'u', '--slug', 'a--b'], 'create project: --slug must be lowercase letters and digits'],
    [
      ['create', 'project', '--org', 'org_x', '--by', 'u', '--slug', 'a'.repeat(61)],
      'create project: --slug must be lowercase letters and digits',
    ],
    [
      ['create', 'widget', '--org', 'org_x', '--by', 'u'],
      'unknown command "create widget": create takes asset, skill, conversation, project',
    ],
    [['create', 'asset', '--org', 'org_x'], 'create asset: --by is required'],
    [['delete', 'asset', '--by', 'u'], 'delete asset: a resource id is required'],
    [['delete', 'asset', 'x', 'y', '--by', 'u'], 'delete asset: unexpected argument "y"'],
    [['delete', 'asset', 'x', '--by', 'u', '--at', 'yesterday'], 'delete asset: --at must be an ISO 8601 date-time'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['org'], 'org: a command is required: create, show, list, set-networks, set-spending-limit, set-daily-limit, rename'],
    [['org', 'set-daily-limit', '--org', 'org_x', '--limit', '-2'], 'org set-daily-limit: --limit must be a whole number from 0'],
    [
      ['key', 'set-allowed-ips', '--org', 'org_x', '--key', `key_${'a'.repeat(32)}`, '--ips', '10.0.0.1/8'],
      'key set-allowed-ips: --ips: "10.0.0.1/8" has bits set past its /8 prefix',
    ],
    [
      [
        'key',
        'set-allowed-ips',
        '--org',
        'org_x',
        '--key',
        `key_${'a'.repeat(32)}`,
        '--ips',
        Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`).join(','),
      ],
      'key set-allowed-ips: --ips must list at most 50 addresses or networks',
    ],
    [
      ['key', 'set-daily-limit', '--org', 'org_x', '--key', 'nope', '--limit', '3'],
      'key set-daily-limit: --key must look like key_<32 lowercase hex digits>',
    ],
    [['org', 'rename', '--org', 'org_x', '--name', 'n'.repeat(201)], 'org rename: --name must be 1 to 200 characters'],
    [['org', 'set-spending-limit', '--org', 'org_x', '--limit', 'lots'], 'org set-spending-limit: --limit must be a whole number from 0'],
    [['org', 'create', '--bogus'], 'org create: unknown option --bogus (org create --help)'],
    [
      ['invitation', 'create', '--org', 'org_x', '--email', 'ada lovelace@example.com', '--role', 'editor'],
      'invitation create: --email must be an email address',
    ],
    [
      ['invitation', 'create', '--org', 'org_x', '--email', 'ada@localhost', '--role', 'editor'],
      'invitation create: --email must be an email address',
    ],
    [
      ['invitation', 'create', '--org', 'org_x', '--email', 'ada@example.com', '--role', 'admin'],
      'invitation create: --role must be one of viewer, editor, owner, got "admin"',
    ],
    [
      ['invitation', 'create', '--org', 'org_x', '--email', 'ada@example.com', '--role', 'viewer', '--expires-in-days', '31'],
      'invitation create: --expires-in-days must be a whole number from 1 to 30, got "31"',
    ],
    [
      ['invitation', 'create', '--org', 'org_x', '--email', 'ada@example.com', '--role', 'viewer', '--at', '2999-01-01T00:00:00Z'],
      'invitation create: --at must not be in the future',
    ],
    [
      ['invitation', 'create', '--org', 'org_x', '--email', 'ada@example.com', '--role', 'viewer', '--from', 'ops@example.com'],
      'invitation create: --from and --console-url go together',
    ],
    [
      ['invitation', 'create', '--org', 'org_x', '--email', 'ada@example.com', '--role', 'viewer'],
      "--from and --console-url are required against a deployed table (the stack's InvitationFromAddress and ConsoleUrl",
    ],
    [
      ['invitation', 'list', '--org', 'org_x', '--status', 'gone'],
      'invitation list: --status must be one of pending, accepted, revoked, expired',
    ],
    [
      ['invitation', 'revoke', '--org', 'org_x', '--invitation', 'inv_1'],
      'invitation revoke: --invitation must look like inv_<32 lowercase hex digits>',
    ],
    [['token', '--user', 'u1', '--email-verified', 'true'], 'token: --email-verified goes with --email (token --help)'],
    [['token', '--user', 'u1', '--email', 'a@example.com', '--email-verified'], 'token: --email-verified needs a value (token --help)'],
    [
      ['token', '--user', 'u1', '--email', 'a@example.com', '--email-verified', 'yes'],
      'token: --email-verified must be one of true, false, got "yes"',
    ],
    [['org', 'show', '--org'], 'org show: --org needs a value (org show --help)'],
  ])('exits 2 with one line, before any read or write: %j', async (args, message) => {
    const counter = countRoundTrips(db());
    let result: Awaited<ReturnType<typeof admin>>;
    try {
      result = await admin(...args);
    } finally {
      counter.stop();
    }

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`admin: ${message}`);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(counter.log.commands).toEqual([]);
  });

  it('--help prints the command list, a group or a command to stdout and exits 0', async () => {
    const overview = await admin('--help');
    const group = await admin('member', '--help');
    const command = await admin('credits', 'deduct', '--help');

    for (const result of [overview, group, command]) expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(overview.stdout).toContain('credits deduct --org ID --amount N --reason TEXT');
    expect(overview.stdout).toContain('org list [--limit N] [--after ID]');
    expect(group.stdout).toContain('member set-role --org ID --user SUB --role ROLE');
    expect(command.stdout).toMatch(/^usage: npm run --silent admin -- credits deduct --org ID --amount N --reason TEXT/);
    expect(command.stdout).toContain('--reason TEXT');
  });
});

describe('as a process (npm run admin)', () => {
  it('prints one JSON document on stdout and exits 0; a refusal exits 1; bad usage exits 2; --help exits 0 on stdout', async () => {
    const { orgId } = await workspace({ credits: 3 });

    const [shown, refused, bad, help] = await Promise.all([
      runAdmin(['org', 'show', '--org', orgId, ...table]),
      runAdmin(['credits', 'deduct', '--org', orgId, '--amount', '4', '--reason', 'r', ...table]),
      runAdmin(['credits', 'deduct', '--org', orgId, '--amount', '99999999999999999999', '--reason', 'r', ...table]),
      runAdmin(['org', 'show', '--help']),
    ]);

    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: orgId, credits: 3, spent: 0 });
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(`admin: organization ${orgId} has 3 credits: deducting 4 would take the balance below zero\n`);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('usage: npm run --silent admin -- org show --org ID');
  });

  it('builds once when first runs start at once on an empty cache: each runs, none fails on the other’s build', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'admin-cli-cache-'));

    // Two at once everyday; six under `npm run test:long` (each is a process: ~0.5 CPU-s).
    const runs = await Promise.all(
      Array.from({ length: atDepth(2, 6) }, () => runAdmin(['org', 'show', '--help'], { env: { ADMIN_CLI_CACHE: cache } })),
    );

    for (const run of runs) expect(run).toMatchObject({ code: 0, stderr: '' });
    const builds = readdirSync(cache).filter((name) => name !== 'manifest.json');
    expect(builds).toHaveLength(1);
    rmSync(cache, { recursive: true, force: true });
  });

  it('works on the local stack without --table; signs tokens the API accepts, and an expired one for a negative ttl', async () => {
    const { orgId, users } = await workspace({ roles: ['owner'], credits: 7 });
    const cwd = localStackDir();

    const [shown, valid, expired, withEmail] = await Promise.all([
      runAdmin(['org', 'show', '--org', orgId], { cwd }),
      runAdmin(['token', '--user', users.owner], { cwd }),
      runAdmin(['token', '--user', users.owner, '--ttl', '-30'], { cwd }),
      runAdmin(['token', '--user', users.owner, '--email', 'Ada@Example.COM'], { cwd }),
    ]);

    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: orgId, credits: 7 });

    expect(valid.code).toBe(0);
    const url = `/organizations/${orgId}/billing/events`;
    expect((await call(handler, { url, token: JSON.parse(valid.stdout).token })).status).toBe(200);
    expect((await call(handler, { url, token: JSON.parse(expired.stdout).token })).status).toBe(401);
    expect((await call(handler, { url, token: tokenFor(users.owner) })).status).toBe(200);
    // --email: the claims as written (email_verified a boolean), the address GET /me reads, lower-cased.
    const emailToken: string = JSON.parse(withEmail.stdout).token;
    const claims = JSON.parse(Buffer.from(emailToken.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ sub: users.owner, email: 'Ada@Example.COM', email_verified: true });
    expect((await call(getMe, { url: '/me', token: emailToken })).body).toMatchObject({ user_id: users.owner, email: 'ada@example.com' });
  });

  it('token refuses a non-local table; a real table needs a region; no local stack says how to start one', async () => {
    const [token, region, none] = await Promise.all([
      runAdmin(['token', '--user', 'u1', '--table', 'prod', '--region', 'eu-west-1'], { cwd: localStackDir() }),
      runAdmin(['get', 'asset', 'x', '--table', 'prod'], { env: { AWS_REGION: '', AWS_DEFAULT_REGION: '' } }),
      runAdmin(['get', 'asset', 'x'], { cwd: mkdtempSync(join(tmpdir(), 'empty-')) }),
    ]);

    expect(token).toMatchObject({
      code: 2,
      stderr: "admin: token signs with the local stack's key and refuses to run against a non-local table\n",
    });
    expect(region).toMatchObject({ code: 2, stderr: 'admin: --region is required with --table (or set AWS_REGION)\n' });
    expect(none).toMatchObject({
      code: 2,
      stderr: 'admin: no local stack found (.local/dev.json): start one with `npm start`, or pass --table\n',
    });
  });

  it('refuses --endpoint without --table instead of silently using the local stack', async () => {
    const result = await runAdmin(['org', 'show', '--org', 'org_x', '--endpoint', 'http://127.0.0.1:9'], { cwd: localStackDir() });

    expect(result).toMatchObject({ code: 2, stdout: '', stderr: 'admin: --endpoint needs --table: name the table on that endpoint\n' });
  });

  it('exits 3 when the table cannot be reached', async () => {
    const result = await runAdmin([
      'org',
      'show',
      '--org',
      'org_x',
      '--table',
      'nowhere',
      '--endpoint',
      'http://127.0.0.1:9',
      '--region',
      'us-east-1',
    ]);

    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^admin: failed: /);
  });
});
