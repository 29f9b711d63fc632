/**
 * Daily limits (docs/charges.md, "Limits"): `daily_limit` of the organization, a member and an API
 * key, held by the charge transaction beside the monthly limits, exactly under concurrency, at
 * the day's and the month's boundary at once, and while an owner lowers a limit under runs in
 * flight; a charge counts in the day it was made, however late its run settles or is refunded.
 * Where the limits show: the credits route, the quote, the MCP tool get_budget. Through the real
 * handlers on DynamoDB Local (the clock, where a test needs one, through the run's own `now`).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as getCredits } from '../../functions/get-credits.ts';
import { handler as mcpHandler } from '../../functions/mcp.ts';
import { handler as putMember } from '../../functions/put-member.ts';
import { handler as quote } from '../../functions/quote-social-operation.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { handler as updateKey } from '../../functions/update-api-key.ts';
import { handler as updateOrganization } from '../../functions/update-organization.ts';
import { readCreditsOverview } from '../../lib/billing/balance.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { memberSpendKey, orgSpendKey } from '../../lib/db/keys.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { UpstreamError } from '../../lib/social/providers/types.ts';
import { runSocialOperation } from '../../lib/social/run.ts';
import { chargeDirectly } from '../support/charges.ts';
import { atDepth } from '../support/depth.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { inFlight } from '../support/hold-charges.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

/**
 * Runs in flight at once against a limit of LIMIT: two and a half times it, so most must be refused
 * (everyday 20 against 8; `npm run test:long` 50 against 20, test/support/depth.ts).
 */
const { PARALLEL, LIMIT } = atDepth({ PARALLEL: 20, LIMIT: 8 }, { PARALLEL: 50, LIMIT: 20 });

const run = (orgId: string, token: string) =>
  call(runOperation, { method: 'POST', url: runUrl('tiktok_profile', orgId), token, body: { handle: 'nasa' } });

const nextMidnight = () => new Date((Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000).toISOString();

const counter = async (key: { PK: string; SK: string }) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

const tally = (answers: { status: number; body: any }[]) => {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = answer.status === 200 ? '200' : `${answer.status} ${answer.body.code} ${answer.body.data?.period ?? ''}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

const charged = async (orgId: string) => (await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged').length;

/** A workspace whose payer (`scope`) has a daily limit of `limit`, and the token that pays. */
async function limited(scope: 'organization' | 'member' | 'api_key', limit: number, credits = 100) {
  const { orgId, users } = await workspace({ credits });
  const owner = tokenFor(users.owner);
  if (scope === 'organization') {
    const patched = await call(updateOrganization, {
      method: 'PATCH',
      url: `/organizations/${orgId}`,
      token: owner,
      body: { daily_limit: limit },
    });
    expect(patched.body.daily_limit).toBe(limit);
    return { orgId, users, token: tokenFor(users.editor), payer: users.editor };
  }
  if (scope === 'member') {
    const put = await call(putMember, {
      method: 'PUT',
      url: `/organizations/${orgId}/members/${users.editor}`,
      token: owner,
      body: { role: 'editor', daily_limit: limit },
    });
    expect(put.body.daily_limit).toBe(limit);
    return { orgId, users, token: tokenFor(users.editor), payer: users.editor };
  }
  const key = await call(createKey, {
    method: 'POST',
    url: `/organizations/${orgId}/api-keys`,
    token: owner,
    body: { name: 'agent', role: 'editor', daily_limit: limit },
  });
  return { orgId, users, token: key.body.token as string, payer: key.body.id as string };
}

describe('a daily limit under concurrency', () => {
  it.each([
    'organization',
    'member',
    'api_key',
  ] as const)(`%s: a daily limit of ${LIMIT} and ${PARALLEL} parallel runs: exactly ${LIMIT} charged, the rest 402 with period "day"`, async (scope) => {
    const { orgId, token, payer } = await limited(scope, LIMIT);

    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => run(orgId, token)));

    expect(tally(answers)).toEqual({ '200': LIMIT, '402 spending_limit_exceeded day': PARALLEL - LIMIT });
    expect(await charged(orgId)).toBe(LIMIT);
    expect((await getOrganization(orgId))?.credits).toBe(100 - LIMIT);
    const today = `spent_day_${new Date().toISOString().slice(8, 10)}`;
    const key =
      scope === 'organization'
        ? orgSpendKey(orgId, new Date().toISOString().slice(0, 7))
        : memberSpendKey(orgId, payer, new Date().toISOString().slice(0, 7));
    expect(await counter(key)).toMatchObject({ spent: LIMIT, [today]: LIMIT });
    const refused = answers.find((answer) => answer.status === 402)!;
    const whose = { organization: "the organization's", member: 'your', api_key: "this API key's" }[scope];
    expect(withoutRequestId(refused.body)).toEqual({
      code: 'spending_limit_exceeded',
      message: `this run would exceed ${whose} daily spending limit${scope === 'member' ? ' in this organization' : ''}: ${LIMIT} of ${LIMIT} credits spent and this operation costs 1; the limit resets at ${nextMidnight()}`,
      data: { scope, period: 'day', spending_limit: LIMIT, spent: LIMIT, cost: 1, resets_at: nextMidnight() },
    });
  });

  it('a balance equal to the daily limit: the limit answers the losers, not the balance (the limits, then insufficient_credits)', async () => {
    const { orgId, token } = await limited('api_key', LIMIT, LIMIT);
    const answers = await Promise.all(Array.from({ length: PARALLEL }, () => run(orgId, token)));
    expect(tally(answers)).toEqual({ '200': LIMIT, '402 spending_limit_exceeded day': PARALLEL - LIMIT });
    expect((await getOrganization(orgId))?.credits).toBe(0);
  });

  it('the organization’s limit before the payer’s, the day before the month', async () => {
    const { orgId, users, token } = await limited('api_key', 1, 100);
    const owner = tokenFor(users.owner);
    await call(updateOrganization, {
      method: 'PATCH',
      url: `/organizations/${orgId}`,
      token: owner,
      body: { daily_limit: 1, spending_limit: 1 },
    });
    expect((await run(orgId, token)).status).toBe(200);
    const refused = await run(orgId, token);
    expect(refused.body.data).toMatchObject({ scope: 'organization', period: 'day', spending_limit: 1, spent: 1 });
  });
});

describe('the day’s and the month’s boundary at once', () => {
  /**
   * January has SPENT of its MONTHLY spent (on the 15th); each day may take DAILY. Half the runs
   * land either side of midnight: more than either side's limit lets through.
   */
  const { SPENT, MONTHLY, DAILY } = atDepth({ SPENT: 6, MONTHLY: 12, DAILY: 8 }, { SPENT: 15, MONTHLY: 30, DAILY: 20 });
  const EACH_SIDE = PARALLEL / 2;

  it(`${PARALLEL} parallel runs either side of midnight on a month's last day: each day and each month holds its limits exactly`, async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 1_000 });
    await call(updateOrganization, {
      method: 'PATCH',
      url: `/organizations/${orgId}`,
      token: tokenFor(users.owner),
      body: { daily_limit: DAILY, spending_limit: MONTHLY },
    });
    await chargeDirectly({ orgId, userId: users.editor, cost: SPENT, now: new Date('2030-01-15T12:00:00.000Z') });
    const before = Date.parse('2030-01-31T23:59:59.990Z');
    const after = Date.parse('2030-02-01T00:00:00.010Z');

    // Act: half the runs charged 10 ms before midnight, half 10 ms after, all at once.
    const attempts = Array.from({ length: PARALLEL }, (_, i) =>
      runSocialOperation({
        caller: { userId: users.editor },
        orgId,
        operationName: 'tiktok_profile',
        input: { handle: 'nasa' },
        now: () => (i % 2 === 0 ? before : after),
      }).then(
        () => ({ side: i % 2 === 0 ? 'jan' : 'feb', outcome: 'charged' }),
        (error: { code?: string; name: string; details?: { data?: { period?: string } } }) => ({
          side: i % 2 === 0 ? 'jan' : 'feb',
          outcome: `${error.code ?? error.name} ${error.details?.data?.period ?? ''}`.trim(),
        }),
      ),
    );
    const outcomes = await Promise.all(attempts);

    // Assess: January's last day is held by the month (what is left of it, under a day's limit),
    // February's first by the day.
    const janLeft = MONTHLY - SPENT;
    expect(janLeft).toBeLessThan(DAILY);
    expect(DAILY).toBeLessThan(EACH_SIDE);
    const count = (side: string, outcome: string) => outcomes.filter((o) => o.side === side && o.outcome === outcome).length;
    expect([count('jan', 'charged'), count('jan', 'spending_limit_exceeded month')]).toEqual([janLeft, EACH_SIDE - janLeft]);
    expect([count('feb', 'charged'), count('feb', 'spending_limit_exceeded day')]).toEqual([DAILY, EACH_SIDE - DAILY]);
    expect(await counter(orgSpendKey(orgId, '2030-01'))).toMatchObject({ spent: MONTHLY, spent_day_15: SPENT, spent_day_31: janLeft });
    expect(await counter(orgSpendKey(orgId, '2030-02'))).toMatchObject({ spent: DAILY, spent_day_01: DAILY });
    expect((await getOrganization(orgId))?.credits).toBe(1_000 - SPENT - janLeft - DAILY);
  });
});

describe('a charge counts in the day it was made', () => {
  /** A clock that reads `before` until the charge transaction has landed, and `after` from then on. */
  function clockTurningAtTheCharge(before: number, after: number) {
    let now = before;
    const name = `turn-${Math.random()}`;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'TransactWriteItemsCommand') now = after;
        return result;
      },
      { step: 'initialize', name },
    );
    return { now: () => now, turned: () => now === after, remove: () => db().middlewareStack.remove(name) };
  }

  it('a run charged before midnight and settled after it counts in the day it was charged', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const clock = clockTurningAtTheCharge(Date.parse('2030-03-31T23:59:59.999Z'), Date.parse('2030-04-01T00:00:00.500Z'));
    try {
      const result = await runSocialOperation({
        caller: { userId: users.editor },
        orgId,
        operationName: 'tiktok_profile',
        input: { handle: 'nasa' },
        now: clock.now,
      });
      expect(result.charged).toBe(1);
      expect(clock.turned()).toBe(true);
    } finally {
      clock.remove();
    }
    expect(await counter(memberSpendKey(orgId, users.editor, '2030-03'))).toMatchObject({ spent: 1, spent_day_31: 1 });
    expect(await counter(memberSpendKey(orgId, users.editor, '2030-04'))).toBeUndefined();
    const lastDay = await readCreditsOverview({ userId: users.editor }, orgId, new Date('2030-03-31T12:00:00Z'));
    const nextDay = await readCreditsOverview({ userId: users.editor }, orgId, new Date('2030-04-01T12:00:00Z'));
    expect([lastDay.member.spent_today, lastDay.organization.spent_today]).toEqual([1, 1]);
    expect([nextDay.member.spent_today, nextDay.member.spent]).toEqual([0, 0]);
  });

  it('its refund after midnight gives back the day it was charged, and touches no other', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const clock = clockTurningAtTheCharge(Date.parse('2030-03-31T23:59:59.999Z'), Date.parse('2030-04-01T00:00:00.500Z'));
    const spy = vi.spyOn(sampleProvider, 'run').mockRejectedValueOnce(new UpstreamError('upstream down'));
    try {
      await expect(
        runSocialOperation({
          caller: { userId: users.editor },
          orgId,
          operationName: 'tiktok_profile',
          input: { handle: 'nasa' },
          now: clock.now,
        }),
      ).rejects.toMatchObject({ code: 'upstream_failed' });
    } finally {
      clock.remove();
      spy.mockRestore();
    }
    expect(await counter(orgSpendKey(orgId, '2030-03'))).toMatchObject({ spent: 0, spent_day_31: 0 });
    expect(await counter(orgSpendKey(orgId, '2030-04'))).toBeUndefined();
    expect((await getOrganization(orgId))?.credits).toBe(10);
  });
});

describe('lowering a limit while runs are in flight', () => {
  /** Runs in flight when the limit drops to 5 (test/support/depth.ts). */
  const IN_FLIGHT = atDepth(12, 30);

  it.each([
    ["the key's daily limit (PATCH api-keys)", 'api_key'],
    ["the organization's monthly limit (PATCH organizations)", 'organization'],
    ["a member's daily limit (PUT members)", 'member'],
  ] as const)('%s: once the change has answered, no run the new limit refuses is charged', async (_label, scope) => {
    const { orgId, users, token, payer } = await limited(scope, 1_000);
    const owner = tokenFor(users.owner);
    // Every run has read the old limit and built its charge: all of them are in flight.
    const answers = await inFlight(
      IN_FLIGHT,
      () => run(orgId, token),
      async () => {
        const lowered =
          scope === 'api_key'
            ? await call(updateKey, {
                method: 'PATCH',
                url: `/organizations/${orgId}/api-keys/${payer}`,
                token: owner,
                body: { daily_limit: 5 },
              })
            : scope === 'organization'
              ? await call(updateOrganization, {
                  method: 'PATCH',
                  url: `/organizations/${orgId}`,
                  token: owner,
                  body: { spending_limit: 5 },
                })
              : await call(putMember, {
                  method: 'PUT',
                  url: `/organizations/${orgId}/members/${payer}`,
                  token: owner,
                  body: { role: 'editor', daily_limit: 5 },
                });
        expect(lowered.status).toBe(200);
      },
    );

    const period = scope === 'organization' ? 'month' : 'day';
    expect(tally(answers)).toEqual({ '200': 5, [`402 spending_limit_exceeded ${period}`]: IN_FLIGHT - 5 });
    expect(await charged(orgId)).toBe(5);
    expect(answers.find((answer) => answer.status === 402)?.body.data).toMatchObject({ scope, period, spending_limit: 5, spent: 5 });
  });
});

describe('where daily limits show', () => {
  it('the credits route: the organization’s and the caller’s daily limits with today’s spend; a key’s own as api_key', async () => {
    const { orgId, users, token, payer } = await limited('api_key', 7);
    await call(updateOrganization, {
      method: 'PATCH',
      url: `/organizations/${orgId}`,
      token: tokenFor(users.owner),
      body: { daily_limit: 50 },
    });
    await run(orgId, token);
    await run(orgId, token);

    const asKey = await call(getCredits, { url: `/organizations/${orgId}/credits`, token });
    const asOwner = await call(getCredits, { url: `/organizations/${orgId}/credits`, token: tokenFor(users.owner) });

    const own = { spending_limit: null, spent: 2, daily_limit: 7, spent_today: 2 };
    expect(asKey.body).toMatchObject({
      balance: 98,
      organization: { spending_limit: null, spent: 2, daily_limit: 50, spent_today: 2 },
      member: { role: 'editor', ...own },
      api_key: { id: payer, ...own },
    });
    expect(asOwner.body.api_key).toBeUndefined();
    expect(asOwner.body.member).toEqual({ role: 'owner', spending_limit: null, spent: 0, daily_limit: null, spent_today: 0 });
  });

  it('the quote reports a daily limit’s refusal, with its period and reset', async () => {
    const { orgId, token } = await limited('member', 1);
    expect((await run(orgId, token)).status).toBe(200);
    const quoted = await call(quote, {
      method: 'POST',
      url: `/social/tiktok_profile/quote?organization_id=${orgId}`,
      token,
      body: { handle: 'nasa' },
    });
    expect(quoted.body).toMatchObject({
      allowed: false,
      refusal: {
        code: 'spending_limit_exceeded',
        data: { scope: 'member', period: 'day', spending_limit: 1, spent: 1, cost: 1, resets_at: nextMidnight() },
      },
    });
  });

  it.each([
    [
      'PATCH organizations',
      (orgId: string, owner: string, limit: unknown) =>
        call(updateOrganization, { method: 'PATCH', url: `/organizations/${orgId}`, token: owner, body: { daily_limit: limit } }),
    ],
    [
      'PUT members',
      (orgId: string, owner: string, limit: unknown) =>
        call(putMember, {
          method: 'PUT',
          url: `/organizations/${orgId}/members/${uniqueId('m_')}`,
          token: owner,
          body: { role: 'editor', daily_limit: limit },
        }),
    ],
  ])('%s refuses a negative, fractional or non-numeric daily_limit with 400 naming it', async (_route, send) => {
    const { orgId, users } = await workspace();
    for (const limit of [-1, 2.5, '3', true]) {
      const answer = await send(orgId, tokenFor(users.owner), limit);
      expect(answer.status).toBe(400);
      expect(answer.body.data.issues[0].path).toEqual(['body', 'daily_limit']);
    }
  });
});

describe('get_budget (MCP)', () => {
  const budget = (orgId: string, token: string, args?: Record<string, unknown>) =>
    call(mcpHandler, {
      method: 'POST',
      url: `/mcp?organization_id=${orgId}`,
      token,
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_budget', ...(args ? { arguments: args } : {}) } },
    });

  it("answers the credits route's body for its caller as structuredContent, for any role and for a key", async () => {
    const { orgId, users, token } = await limited('api_key', 9);
    await run(orgId, token);
    for (const caller of [token, tokenFor(users.viewer)]) {
      const [tool, rest] = await Promise.all([
        budget(orgId, caller),
        call(getCredits, { url: `/organizations/${orgId}/credits`, token: caller }),
      ]);
      expect(tool.body.result.isError).toBeUndefined();
      expect(tool.body.result.structuredContent).toEqual(rest.body);
      expect(JSON.parse(tool.body.result.content[0].text)).toEqual(rest.body);
    }
    expect((await budget(orgId, token)).body.result.structuredContent.api_key).toMatchObject({ daily_limit: 9, spent_today: 1 });
  });

  it('takes no arguments, and refuses a non-member as the credits route does', async () => {
    const { orgId } = await workspace();
    const stranger = await budget(orgId, tokenFor(uniqueId('stranger_')));
    expect(stranger.body.result.isError).toBe(true);
    expect(JSON.parse(stranger.body.result.content[0].text).code).toBe('not_found');
    const { users } = await workspace();
    const withArgs = await budget(orgId, tokenFor(users.owner), { organization_id: 'org_other' });
    expect(withArgs.body.result.isError).toBe(true);
    expect(JSON.parse(withArgs.body.result.content[0].text)).toMatchObject({
      code: 'validation_failed',
      data: { issues: [{ path: ['arguments', 'organization_id'], code: 'unrecognized_keys', message: 'get_budget takes no arguments' }] },
    });
  });
});
