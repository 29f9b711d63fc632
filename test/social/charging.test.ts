import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/run-social-operation.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { memberSpendKey, orgSpendKey, spendMonth } from '../../lib/db/keys.ts';
import { setMemberSpendingLimit } from '../../lib/db/memberships.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { atDepth } from '../support/depth.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

/** Runs at once against a balance or limit of 10 (everyday 20, twice it; `npm run test:long` 50: test/support/depth.ts). */
const PARALLEL = atDepth(20, 50);
const profile = (orgId: string, user: string) =>
  call(handler, { method: 'POST', url: runUrl('instagram_profile', orgId), token: tokenFor(user), body: { handle: 'natgeo' } });

const spent = async (key: { PK: string; SK: string }) =>
  Number((await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item?.spent ?? 0);

const nextMonth = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
};

const statuses = (answers: { status: number; body: any }[]) => {
  const tally: Record<string, number> = {};
  for (const answer of answers) {
    const key = answer.status === 200 ? '200' : `${answer.status} ${answer.body.code}`;
    tally[key] = (tally[key] ?? 0) + 1;
  }
  return tally;
};

describe('charging under concurrency (DynamoDB Local)', () => {
  it(`a balance of 10 and ${PARALLEL} parallel runs of a 1-credit operation: 10 succeed, ${PARALLEL - 10} get 402, balance 0`, async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 10 });

    // Act
    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => profile(orgId, users.editor)));

    // Assess
    expect(statuses(answers)).toEqual({ '200': 10, '402 insufficient_credits': PARALLEL - 10 });
    expect((await getOrganization(orgId))!.credits).toBe(0);
    const events = await eventsOf(orgId);
    expect(events.filter((event) => event.type === 'social_operation.charged')).toHaveLength(10);
    expect(events.filter((event) => event.type === 'social_operation.refunded')).toHaveLength(0);
    const refused = answers.find((answer) => answer.status === 402)!;
    expect(withoutRequestId(refused.body)).toEqual({
      code: 'insufficient_credits',
      message: 'the organization has 0 credits and this operation costs 1 credit; ask an owner of this workspace to have credits added',
      data: {
        balance: 0,
        cost: 1,
        how_to_add_credits: 'ask an owner of this workspace to have credits added',
        billing_url: `http://127.0.0.1/console?organization_id=${orgId}#billing`,
      },
    });
  });

  it(`a member limit of 10 and ${PARALLEL} parallel runs: 10 succeed, ${PARALLEL - 10} get 402 spending_limit_exceeded`, async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    await setMemberSpendingLimit(orgId, users.editor, 10, TEST_OPERATOR);

    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => profile(orgId, users.editor)));

    expect(statuses(answers)).toEqual({ '200': 10, '402 spending_limit_exceeded': PARALLEL - 10 });
    expect((await getOrganization(orgId))!.credits).toBe(90);
    expect(await spent(memberSpendKey(orgId, users.editor, spendMonth(new Date())))).toBe(10);
    const events = await eventsOf(orgId);
    expect(events.filter((event) => event.type === 'social_operation.charged')).toHaveLength(10);
    const refused = answers.find((answer) => answer.status === 402)!;
    expect(withoutRequestId(refused.body)).toEqual({
      code: 'spending_limit_exceeded',
      message: `this run would exceed your monthly spending limit in this organization: 10 of 10 credits spent and this operation costs 1; the limit resets at ${nextMonth()}`,
      data: { scope: 'member', period: 'month', spending_limit: 10, spent: 10, cost: 1, resets_at: nextMonth() },
    });
  });

  it(`an organization limit of 10 and ${PARALLEL} parallel runs by two members: 10 succeed in total`, async () => {
    const { orgId, users } = await workspace({ credits: 100, spendingLimit: 10 });

    const answers = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => profile(orgId, i % 2 === 0 ? users.editor : users.owner)));

    expect(statuses(answers)).toEqual({ '200': 10, '402 spending_limit_exceeded': PARALLEL - 10 });
    expect((await getOrganization(orgId))!.credits).toBe(90);
    expect(await spent(orgSpendKey(orgId, spendMonth(new Date())))).toBe(10);
    const refused = answers.find((answer) => answer.status === 402)!;
    expect(refused.body.data).toEqual({
      scope: 'organization',
      period: 'month',
      spending_limit: 10,
      spent: 10,
      cost: 1,
      resets_at: nextMonth(),
    });
    expect(refused.body.message).toBe(
      `this run would exceed the organization's monthly spending limit: 10 of 10 credits spent and this operation costs 1; the limit resets at ${nextMonth()}`,
    );
    expect((await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged')).toHaveLength(10);
  });

  it('a member limit does not hold back other members', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    await setMemberSpendingLimit(orgId, users.editor, 1, TEST_OPERATOR);
    expect((await profile(orgId, users.editor)).status).toBe(200);
    expect((await profile(orgId, users.editor)).status).toBe(402);
    expect((await profile(orgId, users.owner)).status).toBe(200);
  });

  it('a limit below the cost refuses the first run of the month, reporting what was spent', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    await setMemberSpendingLimit(orgId, users.editor, 0, TEST_OPERATOR);
    const answer = await profile(orgId, users.editor);
    expect(answer.status).toBe(402);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'spending_limit_exceeded',
      message: `this run would exceed your monthly spending limit in this organization: 0 of 0 credits spent and this operation costs 1; the limit resets at ${nextMonth()}`,
      data: { scope: 'member', period: 'month', spending_limit: 0, spent: 0, cost: 1, resets_at: nextMonth() },
    });
  });

  it('an organization limit below the cost of an expensive operation reports its spend so far', async () => {
    const { orgId, users } = await workspace({ credits: 100, spendingLimit: 4 });
    expect((await profile(orgId, users.editor)).status).toBe(200);
    const answer = await call(handler, {
      method: 'POST',
      url: runUrl('tiktok_trend_scan', orgId),
      token: tokenFor(users.editor),
      body: { region: 'US' },
    });
    expect(answer.status).toBe(402);
    expect(answer.body.data).toEqual({
      scope: 'organization',
      period: 'month',
      spending_limit: 4,
      spent: 1,
      cost: 5,
      resets_at: nextMonth(),
    });
  });

  it('a balance below the cost reports both, read before any transaction', async () => {
    const { orgId, users } = await workspace({ credits: 3 });
    const answer = await call(handler, {
      method: 'POST',
      url: runUrl('tiktok_trend_scan', orgId),
      token: tokenFor(users.editor),
      body: { region: 'US' },
    });
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'insufficient_credits',
      message: 'the organization has 3 credits and this operation costs 5 credits; ask an owner of this workspace to have credits added',
      data: {
        balance: 3,
        cost: 5,
        how_to_add_credits: 'ask an owner of this workspace to have credits added',
        billing_url: `http://127.0.0.1/console?organization_id=${orgId}#billing`,
      },
    });
  });

  it('a limit raised after it was reached lets runs through again', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    await setMemberSpendingLimit(orgId, users.editor, 1, TEST_OPERATOR);
    await profile(orgId, users.editor);
    expect((await profile(orgId, users.editor)).status).toBe(402);
    await setMemberSpendingLimit(orgId, users.editor, 2, TEST_OPERATOR);
    expect((await profile(orgId, users.editor)).status).toBe(200);
  });

  it("a refund after the month turned gives back the charge month's spend, not the new month's", async () => {
    const { orgId, users } = await workspace({ credits: 10, spendingLimit: 5 });
    const { refundRun } = await import('../../lib/billing/paid-run.ts');
    const { chargeDirectly } = await import('../support/charges.ts');
    const run = await chargeDirectly({
      orgId,
      userId: users.editor,
      operation: 'instagram_profile',
      network: 'instagram',
      now: new Date('2025-01-31T23:59:59.900Z'),
      owner: 'attempt-1',
      sweepAfterMs: Date.parse('2025-02-01T00:01:00Z'),
    });
    expect(await refundRun(run, 'the upstream call failed', { now: new Date('2025-02-01T00:00:00.100Z') })).toBe('refunded');
    expect(await spent(orgSpendKey(orgId, '2025-01'))).toBe(0);
    expect(await spent(memberSpendKey(orgId, users.editor, '2025-01'))).toBe(0);
    expect(await spent(orgSpendKey(orgId, '2025-02'))).toBe(0);
    expect((await getOrganization(orgId))!.credits).toBe(10);
  });

  it('with no credits and a reached limit, the limit answers (DESIGN.md: the limits, then insufficient_credits)', async () => {
    const { orgId, users } = await workspace({ credits: 0, spendingLimit: 0 });
    const answer = await profile(orgId, users.editor);
    expect(answer.body.code).toBe('spending_limit_exceeded');
    expect(answer.body.data).toMatchObject({ scope: 'organization', period: 'month', spending_limit: 0, spent: 0 });
  });
});

describe('a 402 for exhausted credits says how this deployment adds them (CREDITS_HELP)', () => {
  it('in the message and in data, with the configured sentence', async () => {
    const { orgId, users } = await workspace({ credits: 0 });
    process.env.CREDITS_HELP = 'buy credits at https://billing.example.com/workspace';
    try {
      const answer = await call(handler, {
        method: 'POST',
        url: runUrl('instagram_profile', orgId),
        token: tokenFor(users.editor),
        body: { handle: 'nasa' },
      });
      expect(answer.status).toBe(402);
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'insufficient_credits',
        message: 'the organization has 0 credits and this operation costs 1 credit; buy credits at https://billing.example.com/workspace',
        data: {
          balance: 0,
          cost: 1,
          how_to_add_credits: 'buy credits at https://billing.example.com/workspace',
          billing_url: `http://127.0.0.1/console?organization_id=${orgId}#billing`,
        },
      });
    } finally {
      delete process.env.CREDITS_HELP;
    }
  });
});
