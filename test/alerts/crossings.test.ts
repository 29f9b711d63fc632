/**
 * Alerts found from the table's change stream (docs/alerts.md): real charges through the run
 * route, the local stream poller feeding the consumers, real receivers on 127.0.0.1.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as createJob } from '../../functions/create-social-job.ts';
import { handler as createWebhook } from '../../functions/create-webhook.ts';
import { handler as putSettings } from '../../functions/put-alert-settings.ts';
import { handler as putMember } from '../../functions/put-member.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { handler as tableStream } from '../../functions/table-stream.ts';
import { handler as updateOrganization } from '../../functions/update-organization.ts';
import { grantCredits } from '../../lib/billing/grants.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { drainJobs } from '../support/jobs.ts';
import { runUrl } from '../support/social.ts';
import { startTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';
import { receiver } from './receivers.ts';

const stream = await startTableStream();
afterAll(() => stream.stop());

async function endpointFor(orgId: string, owner: string, events: string[]) {
  const hook = await receiver();
  const created = await call(createWebhook, {
    method: 'POST',
    url: `/organizations/${orgId}/webhooks`,
    token: owner,
    body: { url: hook.url, events },
  });
  return { ...hook, secret: created.body.secret as string };
}

const run = (orgId: string, token: string) =>
  call(runOperation, { method: 'POST', url: runUrl('x_profile', orgId), token, body: { handle: 'nasa' } });

/** Everything charged so far has reached the consumers, and every delivery they queued is made. */
async function settle(): Promise<void> {
  await stream.catchUp();
  await drainJobs({ webhookBackoffMs: 20 });
}

describe('spending_limit.threshold_reached', () => {
  // As many runs at once as the limit: each crosses a threshold for the organization, and only one
  // event per threshold may come of them (8 do what 20 did, about 80 DynamoDB requests fewer).
  const RUNS = 8;
  it(`is one event for ${RUNS} runs that cross the same thresholds at once, for the organization`, async () => {
    const { orgId, users } = await workspace({ credits: 100, spendingLimit: RUNS });
    const owner = tokenFor(users.owner);
    await call(putSettings, {
      method: 'PUT',
      url: `/organizations/${orgId}/alerts`,
      token: owner,
      body: { low_balance: null, thresholds: [50, 100] },
    });
    const hook = await endpointFor(orgId, owner, ['spending_limit.threshold_reached']);

    const answers = await Promise.all(Array.from({ length: RUNS }, () => run(orgId, tokenFor(users.editor))));
    await settle();

    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(RUNS);
    const organization = hook.events().filter((event) => event.data.scope === 'organization');
    expect(organization.map((event) => event.data.threshold).sort()).toEqual([100, 50]);
    for (const event of organization) {
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        type: 'spending_limit.threshold_reached',
        created_at: expect.any(String),
        organization_id: orgId,
        data: {
          scope: 'organization',
          id: orgId,
          period: 'month',
          threshold: event.data.threshold,
          spending_limit: RUNS,
          spent: expect.any(Number),
        },
      });
      expect(event.data.spent * 100).toBeGreaterThanOrEqual(event.data.threshold * RUNS);
    }
    expect(new Set(hook.received.map((delivery) => delivery.headers['webhook-id'])).size).toBe(hook.received.length);
  });
});

describe('spending_limit.threshold_reached of a daily limit', () => {
  /** A workspace whose only limit is a daily limit of 5 on `scope`, and the token that spends against it. */
  async function dailyLimited(scope: 'organization' | 'member' | 'api_key') {
    const { orgId, users } = await workspace({ credits: 100 });
    const owner = tokenFor(users.owner);
    if (scope === 'organization') {
      const patched = await call(updateOrganization, {
        method: 'PATCH',
        url: `/organizations/${orgId}`,
        token: owner,
        body: { daily_limit: 5 },
      });
      expect(patched.status).toBe(200);
      return { orgId, owner, id: orgId, token: tokenFor(users.editor) };
    }
    if (scope === 'member') {
      const put = await call(putMember, {
        method: 'PUT',
        url: `/organizations/${orgId}/members/${users.editor}`,
        token: owner,
        body: { role: 'editor', daily_limit: 5 },
      });
      expect(put.status).toBe(200);
      return { orgId, owner, id: users.editor, token: tokenFor(users.editor) };
    }
    const key = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: owner,
      body: { name: 'nightly agent', role: 'editor', daily_limit: 5 },
    });
    expect(key.status).toBe(201);
    return { orgId, owner, id: key.body.id as string, token: key.body.token as string };
  }

  it.each([
    'organization',
    'member',
    'api_key',
  ] as const)('is one event per threshold when the runs of the day cross 4 and then 5 credits, for the %s', async (scope) => {
    const { orgId, owner, id, token } = await dailyLimited(scope);
    await call(putSettings, {
      method: 'PUT',
      url: `/organizations/${orgId}/alerts`,
      token: owner,
      body: { low_balance: null, thresholds: [80, 100] },
    });
    const hook = await endpointFor(orgId, owner, ['spending_limit.threshold_reached']);

    const answers = [];
    for (let i = 0; i < 6; i += 1) answers.push((await run(orgId, token)).status);
    await settle();

    // Each run costs 1: the 4th crosses 80 %, the 5th 100 %, the 6th is refused by the limit.
    expect(answers).toEqual([...Array(5).fill(200), 402]);
    // In threshold order: deliveries arrive in any order.
    const received = hook.events().sort((a, b) => a.data.threshold - b.data.threshold);
    expect(received.map((event) => event.data)).toEqual([
      { scope, id, period: 'day', threshold: 80, spending_limit: 5, spent: 4 },
      { scope, id, period: 'day', threshold: 100, spending_limit: 5, spent: 5 },
    ]);
    expect(new Set(hook.events().map((event) => event.id)).size).toBe(2);
  });
});

describe('credits.balance_low', () => {
  it('is sent once when the balance falls below the setting, and again only after a grant re-arms it', async () => {
    const { orgId, users } = await workspace({ credits: 6 });
    const owner = tokenFor(users.owner);
    await call(putSettings, {
      method: 'PUT',
      url: `/organizations/${orgId}/alerts`,
      token: owner,
      body: { low_balance: 4, thresholds: [80, 100] },
    });
    const hook = await endpointFor(orgId, owner, ['credits.balance_low']);
    const editor = tokenFor(users.editor);

    for (let i = 0; i < 4; i += 1) await run(orgId, editor);
    await settle();
    const first = hook.events();
    // Back to the line exactly (2 → 4): at or above it re-arms; the next run falls below again.
    await grantCredits(orgId, 2);
    await settle();
    for (let i = 0; i < 2; i += 1) await run(orgId, editor);
    await settle();

    expect(first).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: 'credits.balance_low',
        created_at: expect.any(String),
        organization_id: orgId,
        data: { balance: 3, low_balance: 4 },
      },
    ]);
    expect(hook.events().map((event) => event.data)).toEqual([
      { balance: 3, low_balance: 4 },
      { balance: 3, low_balance: 4 },
    ]);
  });

  it('is still one event when the stream record comes again', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const owner = tokenFor(users.owner);
    await call(putSettings, {
      method: 'PUT',
      url: `/organizations/${orgId}/alerts`,
      token: owner,
      body: { low_balance: 5, thresholds: [80, 100] },
    });
    const hook = await endpointFor(orgId, owner, ['*']);
    const seen: Parameters<typeof tableStream>[0][] = [];
    // This organization's records only: the second poller reads the stream from its start, the
    // earlier tests' records too, whose endpoints nothing here listens to.
    const ofOrg = (record: Parameters<typeof tableStream>[0]['Records'][number]) =>
      JSON.stringify(record.dynamodb?.Keys ?? {}).includes(`#${orgId}"`);
    const replay = await startTableStream({
      handler: (event) => {
        const records = { Records: event.Records.filter(ofOrg) };
        if (records.Records.length > 0) seen.push(records);
        return tableStream(records);
      },
    });

    await run(orgId, tokenFor(users.editor));
    await settle();
    await replay.catchUp();
    for (const event of seen) await tableStream(event);
    await drainJobs({ webhookBackoffMs: 20 });
    await replay.stop();

    const replayed = seen
      .flatMap((event) => event.Records)
      .filter((record) => record.dynamodb?.NewImage?.PK?.S === `ORG#${orgId}` && record.dynamodb?.NewImage?.SK?.S === 'ORG');
    expect(replayed.length).toBeGreaterThan(0);
    expect(hook.events().map((event) => event.type)).toEqual(['credits.balance_low']);
  });
});

describe('job.completed', () => {
  it("is sent to the endpoints subscribed when a job ends, besides the job's own webhook_url", async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const owner = tokenFor(users.owner);
    const hook = await endpointFor(orgId, owner, ['job.completed']);
    const own = await receiver();

    const created = await call(createJob, {
      method: 'POST',
      url: `/social/x_profile/jobs?organization_id=${orgId}`,
      token: tokenFor(users.editor),
      body: { inputs: [{ handle: 'nasa' }], webhook_url: own.url },
    });
    await drainJobs({ webhookBackoffMs: 20 });
    await settle();

    expect(own.events()).toHaveLength(1);
    expect(hook.events()).toEqual([
      {
        id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        type: 'job.completed',
        created_at: expect.any(String),
        organization_id: orgId,
        data: expect.objectContaining({ id: created.body.id, status: 'completed', succeeded: 1 }),
      },
    ]);
  });
});
