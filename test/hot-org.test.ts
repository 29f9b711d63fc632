/**
 * One hot organization (npm run bench:hot in miniature): many paid runs at once against one
 * balance, with DynamoDB's transaction conflicts modelled (DynamoDB Local has none). Every run
 * is served, the balance is exact; and the charge's retry policy stops where it must. Then a
 * hot organization's credit lanes (lib/billing/lanes.ts) under limits, changes and failures.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createKey } from '../functions/create-api-key.ts';
import { handler as revokeKey } from '../functions/revoke-api-key.ts';
import { handler } from '../functions/run-social-operation.ts';
import { handler as updateKey } from '../functions/update-api-key.ts';
import { grantCredits } from '../lib/billing/grants.ts';
import { laneSettings, returnIdleLanes } from '../lib/billing/lanes.ts';
import { socialConfig } from '../lib/config.ts';
import { db } from '../lib/db/client.ts';
import { BASE_MS, CAP_MS, conflictPauseMs, MAX_ATTEMPTS, mayRetryConflict } from '../lib/db/conflict-retry.ts';
import { readMembersSpend, readOrgSpend, readSpendAcross } from '../lib/db/credits.ts';
import { readLanes } from '../lib/db/lanes.ts';
import { removeMembership, setMemberDailyLimit } from '../lib/db/memberships.ts';
import { getOrganization, setOrganizationSpendingLimit } from '../lib/db/organizations.ts';
import { readMonthSpend } from '../lib/db/spend.ts';
import { REFUND_RESERVE_MS } from '../lib/social/provider-call.ts';
import { runSocialOperation } from '../lib/social/run.ts';
import { runHotOrganization } from '../scripts/bench/hot-org.ts';
import { TEST_OPERATOR, workspace } from './support/fixtures.ts';
import { call } from './support/http.ts';
import { eventsOf, runUrl, storedEventsOf } from './support/social.ts';
import { tokenFor } from './support/tokens.ts';

describe('one hot organization', () => {
  it("serves 24 paid runs sent at once, turns hot, and balance, spend, members' spend and events agree", async () => {
    const result = await runHotOrganization({ runs: 24, users: 4, conflicts: 'model', tokenFor }, handler as never);
    expect(result.failures).toEqual({});
    expect(result.balance).toEqual({ opening: 124, expected: 100, final: 100, exact: true });
    expect(result.spend).toEqual({ expected: 24, counted: 24, members: 24 });
    expect(result.chargeEvents).toBe(24);
    // Turned hot from its conflicts (auto): its runs charged lanes of their payers.
    expect(result.lanes.filled).toBeGreaterThan(0);
  });
});

/** Sends `runs` at once for the payers given (round robin), with `during` started among them; each run's outcome. */
async function burst(orgId: string, payers: string[], runs: number, during?: () => Promise<unknown>): Promise<string[]> {
  const outcomes = Array.from({ length: runs }, (_, i) =>
    runSocialOperation({
      caller: { userId: payers[i % payers.length]! },
      orgId,
      operationName: 'x_profile',
      input: { handle: 'nasa' },
    }).then(
      () => 'ok',
      (error: { code?: string; name?: string }) => error.code ?? error.name ?? 'error',
    ),
  );
  await during?.();
  return Promise.all(outcomes);
}

const count = (outcomes: string[], outcome: string) => outcomes.filter((each) => each === outcome).length;

/** The balance and the sum of the billing events, the organization's spend and the sum of its members': each pair must agree. */
async function books(orgId: string) {
  const now = new Date();
  const [org, events, spend, members] = await Promise.all([
    getOrganization(orgId),
    eventsOf(orgId),
    readOrgSpend(orgId, now),
    readMembersSpend(orgId, now),
  ]);
  const charged = events.filter((event) => event.type === 'social_operation.charged').length;
  const refunded = events.filter((event) => event.type === 'social_operation.refunded').length;
  return {
    balance: org?.credits,
    events: events.reduce((sum, event) => sum + event.amount, 0),
    spent: spend.month,
    members: [...members.values()].reduce((sum, member) => sum + member.month, 0),
    net: charged - refunded,
  };
}

describe('credit lanes (HOT_ORGANIZATIONS=always)', () => {
  beforeAll(() => {
    process.env.HOT_ORGANIZATIONS = 'always';
  });

  it('charges exactly what the balance holds: no overshoot, and no run refused while credits remained', async () => {
    const { orgId, users } = await workspace({ credits: 8, roles: ['owner', 'editor'] });
    const outcomes = await burst(orgId, [users.owner, users.editor], 12);
    expect(count(outcomes, 'ok')).toBe(8);
    expect(count(outcomes, 'insufficient_credits')).toBe(4);
    expect(await books(orgId)).toEqual({ balance: 0, events: 0, spent: 8, members: 8, net: 8 });
  });

  it('reads spend as spent, not as reserved, in every view while lanes hold credits', async () => {
    const { orgId, users } = await workspace({ credits: 100, roles: ['owner', 'editor'] });
    expect(count(await burst(orgId, [users.owner], 4), 'ok')).toBe(4);
    expect((await readLanes(orgId)).reduce((sum, lane) => sum + lane.credits, 0)).toBeGreaterThan(0);
    expect(await books(orgId)).toEqual({ balance: 96, events: 96, spent: 4, members: 4, net: 4 });
    // The operator's view (`admin org show`, `member list`) and `/me` count the lanes too.
    const month = await readMonthSpend(orgId, new Date());
    expect([month.organization.month, month.members.get(users.owner)?.month]).toEqual([4, 4]);
    expect(await readSpendAcross([orgId], users.owner, new Date())).toEqual([{ month: 4, day: 4 }]);
  });

  it("holds the organization's monthly limit and a member's daily limit exactly mid-burst", async () => {
    const { orgId, users } = await workspace({ credits: 100, spendingLimit: 6, roles: ['owner', 'editor'] });
    await setMemberDailyLimit(orgId, users.editor, 2, TEST_OPERATOR);
    const editor = await burst(orgId, [users.editor], 5);
    expect([count(editor, 'ok'), count(editor, 'spending_limit_exceeded')]).toEqual([2, 3]);
    expect((await readMembersSpend(orgId, new Date())).get(users.editor)).toEqual({ month: 2, day: 2 });
    const everyone = await burst(orgId, [users.owner, users.editor], 8);
    expect([count(everyone, 'ok'), count(everyone, 'spending_limit_exceeded')]).toEqual([4, 4]);
    expect(await books(orgId)).toEqual({ balance: 94, events: 94, spent: 6, members: 6, net: 6 });
  });

  it('lands a grant, a lowered limit and a removed member mid-burst: nothing charged past them, and the books agree', async () => {
    const { orgId, users } = await workspace({ credits: 20, roles: ['owner', 'editor'] });
    let spentAtChange = Number.POSITIVE_INFINITY;
    let removedAt = Number.POSITIVE_INFINITY;
    const outcomes = await burst(orgId, [users.owner, users.editor], 24, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await grantCredits(orgId, 5);
      await setOrganizationSpendingLimit(orgId, 12, TEST_OPERATOR);
      spentAtChange = (await readOrgSpend(orgId, new Date())).month;
      await removeMembership(orgId, users.editor, TEST_OPERATOR);
      removedAt = Date.now();
    });
    const after = await books(orgId);
    expect(after.balance).toBe(after.events);
    expect(after.spent).toBe(after.net);
    expect(after.members).toBe(after.net);
    expect(after.balance).toBe(25 - after.net);
    expect(count(outcomes, 'ok')).toBe(after.net);
    // No charge past the lowered limit once the change answered.
    expect(after.spent).toBeLessThanOrEqual(Math.max(12, spentAtChange));
    const editorCharges = (await storedEventsOf(orgId)).filter(
      (event) => event.type === 'social_operation.charged' && (event.metadata as Record<string, string>).user_id === users.editor,
    );
    for (const event of editorCharges) expect(Date.parse(String(event.created_at))).toBeLessThanOrEqual(removedAt);
  });

  it("holds an API key's daily limit exactly mid-burst, and charges nothing on its lanes once its revocation answered", async () => {
    const { orgId, users } = await workspace({ credits: 100, roles: ['owner', 'editor'] });
    const made = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: tokenFor(users.owner),
      body: { name: 'agent', role: 'editor', daily_limit: 3 },
    });
    const [keyId, token] = [made.body.id as string, made.body.token as string];
    const keyRuns = (runs: number) =>
      Promise.all(
        Array.from({ length: runs }, async () => {
          const answer = await call(handler as never, { method: 'POST', url: runUrl('x_profile', orgId), token, body: { handle: 'nasa' } });
          return answer.status === 200 ? 'ok' : String(answer.body.code);
        }),
      );
    const limited = await keyRuns(6);
    expect([count(limited, 'ok'), count(limited, 'spending_limit_exceeded')]).toEqual([3, 3]);
    expect((await readMembersSpend(orgId, new Date())).get(keyId)).toEqual({ month: 3, day: 3 });
    await call(updateKey, {
      method: 'PATCH',
      url: `/organizations/${orgId}/api-keys/${keyId}`,
      token: tokenFor(users.owner),
      body: { daily_limit: 20 },
    });
    let revokedAt = Number.POSITIVE_INFINITY;
    const during = keyRuns(10);
    await new Promise((resolve) => setTimeout(resolve, 15));
    await call(revokeKey, { method: 'DELETE', url: `/organizations/${orgId}/api-keys/${keyId}`, token: tokenFor(users.owner) });
    revokedAt = Date.now();
    await during;
    const keyCharges = (await storedEventsOf(orgId)).filter(
      (event) => event.type === 'social_operation.charged' && (event.metadata as Record<string, string>).api_key_id === keyId,
    );
    for (const event of keyCharges) expect(Date.parse(String(event.created_at))).toBeLessThanOrEqual(revokedAt);
    const after = await books(orgId);
    expect(after.balance).toBe(after.events);
    expect([after.spent, after.members]).toEqual([after.net, after.net]);
  });

  it('loses nothing when DynamoDB fails a fill without saying whether it was written, and returns idle lanes', async () => {
    const { orgId, users } = await workspace({ credits: 50, roles: ['owner', 'editor'] });
    const name = `fill-outage-${Math.random()}`;
    let failed = 0;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const items = (args.input as { TransactItems?: { Update?: { Key?: { PK?: string } } }[] }).TransactItems ?? [];
        // The first fill is written, then answered as DynamoDB's 500 would: "may or may not have succeeded".
        if (
          context.commandName === 'TransactWriteItemsCommand' &&
          failed === 0 &&
          items.some((item) => item.Update?.Key?.PK?.startsWith('LANE#'))
        ) {
          if (items.length > 2) {
            failed += 1;
            throw Object.assign(new Error('Internal server error'), { name: 'InternalServerError', $fault: 'server' });
          }
        }
        return result;
      },
      { step: 'initialize', name },
    );
    let outcomes: string[];
    try {
      outcomes = await burst(orgId, [users.owner, users.editor], 6);
    } finally {
      db().middlewareStack.remove(name);
    }
    expect(failed).toBe(1);
    expect(count(outcomes, 'ok')).toBeGreaterThanOrEqual(5);
    const during = await books(orgId);
    expect(during.balance).toBe(during.events);
    expect(during.spent).toBe(during.net);
    // The sweeper's pass once the lanes are idle: every credit back on the organization's own item.
    const returned = await returnIdleLanes(Date.now() + laneSettings().idleMs + 1000);
    expect(returned.credits).toBeGreaterThan(0);
    expect((await readLanes(orgId)).every((lane) => lane.credits === 0)).toBe(true);
    expect(await books(orgId)).toEqual(during);
    expect((await getOrganization(orgId, { withLanes: false }))!.credits).toBe(during.balance);
  });
});

describe('the charge retry policy', () => {
  it('pauses a random time under an exponential ceiling capped at CAP_MS', () => {
    expect([1, 2, 3].map((attempt) => conflictPauseMs(attempt, () => 0.999999))).toEqual([
      expect.closeTo(BASE_MS * 2, 3),
      expect.closeTo(BASE_MS * 4, 3),
      expect.closeTo(BASE_MS * 8, 3),
    ]);
    expect(conflictPauseMs(30, () => 0.999999)).toBeCloseTo(CAP_MS, 2);
    expect(conflictPauseMs(30, () => 0)).toBe(0);
  });

  it('retries while the next attempt starts before the limit, and at most MAX_ATTEMPTS times', () => {
    expect(mayRetryConflict(1, 1_000, 1_001)).toBe(true);
    expect(mayRetryConflict(1, 1_001, 1_001)).toBe(false);
    expect(mayRetryConflict(MAX_ATTEMPTS - 1, 0, Number.POSITIVE_INFINITY)).toBe(true);
    expect(mayRetryConflict(MAX_ATTEMPTS, 0, Number.POSITIVE_INFINITY)).toBe(false);
  });

  it('stops retrying a charge that keeps losing once the provider call would no longer get its whole budget: the run fails, nothing charged', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const attempts: number[] = [];
    const name = `always-conflict-${Math.random()}`;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        attempts.push(Date.now());
        throw new TransactionCanceledException({
          message: 'Transaction cancelled',
          $metadata: {},
          CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }],
        });
      },
      { step: 'initialize', name },
    );
    // The charge may retry for 400 ms: the deadline leaves the provider call its timeout and the refund its reserve after that.
    const deadlineMs = Date.now() + socialConfig().providerTimeoutMs + REFUND_RESERVE_MS + 400;
    const retryUntilMs = deadlineMs - socialConfig().providerTimeoutMs - REFUND_RESERVE_MS;
    try {
      const run = runSocialOperation({
        caller: { userId: users.editor },
        orgId,
        operationName: 'x_profile',
        input: { handle: 'nasa' },
        deadlineMs,
      });
      await expect(run).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    } finally {
      db().middlewareStack.remove(name);
    }
    expect(attempts.length).toBeGreaterThan(1);
    expect(Math.max(...attempts)).toBeLessThan(retryUntilMs);
    expect((await getOrganization(orgId))!.credits).toBe(5);
    expect((await eventsOf(orgId)).filter((event) => event.type === 'social_operation.charged')).toEqual([]);
  });
});
