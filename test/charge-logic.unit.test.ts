/**
 * The pure logic of charging and running, without DynamoDB: the charge transaction as built,
 * what a cancelled charge found, the refusal it means, the idempotency answers, the provider's
 * time budget and the version header's grammar.
 */
import { describe, expect, it } from 'vitest';
import { accessRefusal, creditRefusal, maxCreditsRefusal, type Payer } from '../lib/billing/charge-rules.ts';
import { chargeCancellation, chargeTransaction, refundTransaction, refusalOf, StaleRead } from '../lib/billing/paid-run.ts';
import type { IdempotencyRecord } from '../lib/db/idempotency.ts';
import { parseVersion } from '../lib/http/api-version.ts';
import { payerScope } from '../lib/model.ts';
import { decide, type Idempotency } from '../lib/social/idempotency.ts';
import { providerBudgetMs, REFUND_RESERVE_MS } from '../lib/social/provider-call.ts';

interface Over {
  credits?: number;
  orgLimit?: number | null;
  orgDaily?: number | null;
  memberLimit?: number | null;
  memberDaily?: number | null;
  role?: string;
}
const payer = (over: Over = {}): Payer => ({
  org: { credits: over.credits ?? 10, networks: ['instagram'], spending_limit: over.orgLimit ?? null, daily_limit: over.orgDaily ?? null },
  member: { role: over.role ?? 'editor', spending_limit: over.memberLimit ?? null, daily_limit: over.memberDaily ?? null },
});
const ask = { operation: 'instagram_profile', network: 'instagram', cost: 2 };
const attempt = { owner: 'attempt-1', sweepAfterMs: Date.parse('2026-03-15T12:01:00.000Z') };
const request = { ...ask, orgId: 'org_a', userId: 'u1', now: new Date('2026-03-15T12:00:00.000Z'), ...attempt };
const codeOf = (error: Error | null) => (error && 'code' in error ? error.code : (error?.name ?? null));
const spent = (month: number, day: number) => ({ month, day });

describe('chargeTransaction', () => {
  const now = new Date('2026-03-31T23:59:59.000Z');
  const build = (over: Over) =>
    chargeTransaction(
      { orgId: 'org_a', userId: 'u1', operation: 'instagram_profile', network: 'instagram', cost: 2, now, ...attempt },
      payer(over),
      'evt_1',
    );
  const items = build({ orgLimit: 10 });

  it('is six items in a fixed order: balance, membership, two spend counters, the event, the pending run', () => {
    expect(items.map((item) => Object.keys(item)[0])).toEqual(['Update', 'ConditionCheck', 'Update', 'Update', 'Put', 'Put']);
    expect(items[0]!.Update!.Key).toEqual({ PK: 'ORG#org_a', SK: 'ORG' });
    expect(items[2]!.Update!.Key).toEqual({ PK: 'ORG#org_a', SK: 'SPEND#2026-03' });
    expect(items[3]!.Update!.Key).toEqual({ PK: 'ORG#org_a', SK: 'SPEND#2026-03#USER#u1' });
  });

  it('is the same six items with every limit set: a daily limit is a condition on the month counter, not an item', () => {
    const guarded = build({ orgLimit: 10, orgDaily: 5, memberLimit: 8, memberDaily: 4 });
    expect(guarded.map((item) => Object.keys(item)[0])).toEqual(['Update', 'ConditionCheck', 'Update', 'Update', 'Put', 'Put']);
    const keys = (list: typeof items) =>
      list.map((item) => JSON.stringify(item.Update?.Key ?? item.ConditionCheck?.Key ?? item.Put?.Item?.SK));
    expect(keys(guarded)).toEqual(keys(items));
  });

  it('conditions the balance on credits, the unchanged organization limits and the network', () => {
    const update = items[0]!.Update!;
    expect(update.ConditionExpression).toBe(
      'attribute_exists(PK) AND credits >= :cost AND spending_limit = :limit AND (attribute_not_exists(daily_limit) OR attribute_type(daily_limit, :null)) AND contains(networks, :network)',
    );
    expect(update.ExpressionAttributeValues).toEqual({ ':cost': 2, ':limit': 10, ':null': 'NULL', ':network': 'instagram' });
    expect(build({ orgDaily: 5 })[0]!.Update!.ExpressionAttributeValues).toMatchObject({ ':dailyLimit': 5 });
  });

  it('conditions the membership on a runner role and unset member limits', () => {
    const check = items[1]!.ConditionCheck!;
    expect(check.ConditionExpression).toBe(
      'attribute_exists(PK) AND #role IN (:role0, :role1) AND (attribute_not_exists(spending_limit) OR attribute_type(spending_limit, :null)) AND (attribute_not_exists(daily_limit) OR attribute_type(daily_limit, :null))',
    );
    expect(check.ExpressionAttributeValues).toEqual({ ':role0': 'editor', ':role1': 'owner', ':null': 'NULL' });
  });

  it("adds to the month and to the charge's day on the same item, capping each at its limit - cost", () => {
    expect(items[2]!.Update!.UpdateExpression).toBe(
      'ADD #spent :amount, #day :amount SET expires_at = if_not_exists(expires_at, :expires), month_limit = :monthLimit, day_limit = :dayLimit',
    );
    expect(items[2]!.Update!.ExpressionAttributeNames).toEqual({ '#spent': 'spent', '#day': 'spent_day_31' });
    expect(items[2]!.Update!.ConditionExpression).toBe('(attribute_not_exists(#spent) OR #spent <= :max)');
    expect(items[2]!.Update!.ExpressionAttributeValues![':max']).toBe(8);
    expect(items[3]!.Update!.ConditionExpression).toBeUndefined();
    const daily = build({ memberDaily: 4 })[3]!.Update!;
    expect(daily.ConditionExpression).toBe('(attribute_not_exists(#day) OR #day <= :dayMax)');
    expect(daily.ExpressionAttributeValues![':dayMax']).toBe(2);
    expect(build({ orgLimit: 10, orgDaily: 5 })[2]!.Update!.ConditionExpression).toBe(
      '(attribute_not_exists(#spent) OR #spent <= :max) AND (attribute_not_exists(#day) OR #day <= :dayMax)',
    );
  });

  it("adds an item of a capped job to its job's budget, after the claim, under max_credits - cost; the run names its job", () => {
    const claim = { key: { PK: 'IDEM#k', SK: 'IDEM' }, requestHash: 'h', leaseMs: 1 };
    const capped = chargeTransaction(
      {
        orgId: 'org_a',
        userId: 'u1',
        operation: 'instagram_profile',
        network: 'instagram',
        cost: 2,
        now,
        ...attempt,
        claim,
        job: { id: 'job_1', maxCredits: 5 },
      },
      payer({}),
      'evt_1',
    );
    expect(capped).toHaveLength(8);
    expect(capped[7]!.Update).toMatchObject({
      Key: { PK: 'JOB#job_1', SK: 'JOB' },
      UpdateExpression: 'ADD budget_spent :cost',
      ConditionExpression: 'budget_spent <= :ceiling',
      ExpressionAttributeValues: { ':cost': 2, ':ceiling': 3 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(capped[5]!.Put!.Item).toMatchObject({ job_id: 'job_1' });
    expect(capped[6]!.Put!.Item).toMatchObject({ charge: { id: 'evt_1', job: 'job_1' } });
  });

  it('keeps on each counter the limits its holder was held to (null for none), for the alerts read from the stream', () => {
    const guarded = build({ orgLimit: 10, orgDaily: 5, memberDaily: 4 });
    expect(guarded[2]!.Update!.ExpressionAttributeValues).toMatchObject({ ':monthLimit': 10, ':dayLimit': 5 });
    expect(guarded[3]!.Update!.ExpressionAttributeValues).toMatchObject({ ':monthLimit': null, ':dayLimit': 4 });
  });

  it('writes the charged event with a negative amount, and the day it counts in on the pending run', () => {
    expect(items[4]!.Put!.Item).toMatchObject({ id: 'evt_1', type: 'social_operation.charged', amount: -2, currency: 'credits' });
    expect(items[5]!.Put!.Item).toMatchObject({ month: '2026-03', day: '2026-03-31', charged_at: '2026-03-31T23:59:59.000Z' });
  });
});

describe('refundTransaction', () => {
  const run = { orgId: 'org_a', userId: 'u1', operation: 'x', cost: 3, month: '2026-03', eventId: 'evt_1', owner: 'a', sweepAfterMs: 0 };

  it("takes the cost off the charge's month and day, whenever the refund happens", () => {
    const items = refundTransaction({ ...run, day: '2026-03-31' }, 'failed', new Date('2026-04-01T00:00:05.000Z'));
    for (const item of [items[1]!.Update!, items[2]!.Update!]) {
      expect(item.Key!.SK).toMatch(/^SPEND#2026-03/);
      expect(item.ExpressionAttributeNames).toEqual({ '#spent': 'spent', '#day': 'spent_day_31' });
      expect(item.ExpressionAttributeValues![':amount']).toBe(-3);
      expect(item.ConditionExpression).toBeUndefined();
      // A refund lowers the counters and crosses nothing: the limits kept are the last charge's.
      expect(item.UpdateExpression).not.toContain('_limit');
    }
  });

  it("gives a capped job's item's cost back to its job's budget, unconditionally, last", () => {
    const items = refundTransaction({ ...run, jobId: 'job_1' }, 'failed', new Date('2026-03-31T00:00:05.000Z'));
    expect(items).toHaveLength(6);
    expect(items[5]!.Update).toEqual({
      TableName: expect.any(String),
      Key: { PK: 'JOB#job_1', SK: 'JOB' },
      UpdateExpression: 'ADD budget_spent :refund',
      ExpressionAttributeValues: { ':refund': -3 },
    });
    expect(refundTransaction(run, 'failed', new Date())).toHaveLength(5);
  });

  it('touches no day for a charge made before daily counters (it counted in none)', () => {
    const items = refundTransaction(run, 'failed', new Date('2026-03-31T00:00:05.000Z'));
    expect(items[1]!.Update!.ExpressionAttributeNames).toEqual({ '#spent': 'spent' });
  });
});

describe('chargeCancellation', () => {
  const ok = { Code: 'None' };
  const failed = (item?: Record<string, unknown>) => ({ Code: 'ConditionalCheckFailed', ...(item ? { Item: item as never } : {}) });

  it('is null when no condition failed (a conflict is retried, not refused)', () => {
    expect(chargeCancellation([{ Code: 'TransactionConflict' }, ok, ok, ok, ok], request)).toBeNull();
  });

  it("reports the stored items of failed conditions and what the counters held for the charge's month and day", () => {
    const found = chargeCancellation(
      [
        failed({ credits: { N: '1' }, networks: { SS: ['x'] } }),
        ok,
        failed({ spent: { N: '7' }, spent_day_15: { N: '3' }, spent_day_14: { N: '4' } }),
        failed(),
        ok,
      ],
      request,
    );
    expect(found).toEqual({
      org: { credits: 1, networks: new Set(['x']) },
      member: undefined,
      orgSpent: spent(7, 3),
      memberSpent: spent(0, 0),
      claimTaken: false,
      jobSpent: undefined,
    });
  });

  it('reports a missing item as null', () => {
    expect(chargeCancellation([ok, failed(), ok, ok, ok], request)?.member).toBeNull();
  });

  it("reads a capped job's budget after the claim, or in the claim's place without one", () => {
    const job = { id: 'job_1', maxCredits: 5 };
    const claim = { key: { PK: 'IDEM#k', SK: 'IDEM' }, requestHash: 'h', leaseMs: 1 };
    const budget = failed({ budget_spent: { N: '4' } });
    expect(chargeCancellation([ok, ok, ok, ok, ok, ok, budget], { ...request, job })).toMatchObject({ jobSpent: 4, claimTaken: false });
    expect(chargeCancellation([ok, ok, ok, ok, ok, ok, ok, budget], { ...request, job, claim })).toMatchObject({
      jobSpent: 4,
      claimTaken: false,
    });
    expect(chargeCancellation([ok, ok, ok, ok, ok, ok, failed(), ok], { ...request, job, claim })).toMatchObject({
      jobSpent: undefined,
      claimTaken: true,
    });
  });
});

describe('a consent spent by the charge (MCP, lib/mcp/consent.ts)', () => {
  const ok = { Code: 'None' };
  const used = { Code: 'ConditionalCheckFailed' };
  const consent = { item: { Put: { TableName: 't', Item: { PK: 'CONSENT#n', SK: 'CONSENT' } } }, refusal: new Error('used') };
  const job = { id: 'job_1', maxCredits: 5 };
  const claim = { key: { PK: 'IDEM#k', SK: 'IDEM' }, requestHash: 'h', leaseMs: 1 };

  it('is the last item, after the claim and the job budget', () => {
    const items = chargeTransaction({ ...request, job, claim, consent }, payer(), 'evt_1');
    expect(items).toHaveLength(9);
    expect(items.at(-1)).toBe(consent.item);
    expect(chargeTransaction(request, payer(), 'evt_1')).toHaveLength(6);
  });

  it('is read back from its position, and refuses with its own refusal once used', () => {
    for (const [extra, at] of [
      [{}, 6],
      [{ job }, 7],
      [{ job, claim }, 8],
    ] as const) {
      const reasons = Array.from({ length: at + 1 }, (_, i) => (i === at ? used : ok));
      const cancelled = { ...request, ...extra, consent };
      const found = chargeCancellation(reasons, cancelled);
      expect(found).toMatchObject({ consentUsed: true, claimTaken: false, jobSpent: undefined });
      expect(found && refusalOf(found, payer(), cancelled)).toBe(consent.refusal);
    }
    expect(chargeCancellation([ok, ok, ok, ok, ok, ok, ok], { ...request, consent })).toBeNull();
  });
});

describe('payerScope (whose own limit and counters a payer has, for a charge and for its alerts alike)', () => {
  it.each([
    ['key_0123456789abcdef0123456789abcdef', 'api_key'],
    ['user_1', 'member'],
    ['key_not_an_api_key_id', 'member'],
    [undefined, 'member'],
  ])('%s → %s', (payerId, scope) => {
    expect(payerScope(payerId)).toBe(scope);
  });
});

describe('refusals', () => {
  const none = { org: undefined, member: undefined, orgSpent: undefined, memberSpent: undefined, claimTaken: false, jobSpent: undefined };
  const limited = payer({ orgLimit: 100, orgDaily: 10, memberLimit: 50, memberDaily: 5 });

  it.each([
    ['no organization', { ...none, org: null }, 'forbidden'],
    ['no membership', { ...none, member: null }, 'forbidden'],
    ['a viewer now', { ...none, member: { role: 'viewer' } }, 'forbidden'],
    ['a network since disabled', { ...none, org: { credits: 10, networks: new Set(['x']) } }, 'operation_not_enabled'],
    ['the key claimed by another request', { ...none, claimTaken: true }, 'StaleRead'],
    [
      'credits spent meanwhile',
      { ...none, org: { credits: 1, networks: ['instagram'], spending_limit: 100, daily_limit: 10 } },
      'insufficient_credits',
    ],
    ['a limit changed meanwhile', { ...none, org: { credits: 10, networks: ['instagram'], spending_limit: 3 } }, 'StaleRead'],
    ['a daily limit changed meanwhile', { ...none, org: { credits: 10, networks: ['instagram'], daily_limit: 3 } }, 'StaleRead'],
    ["a member's limit changed meanwhile", { ...none, member: { role: 'editor', daily_limit: 1 } }, 'StaleRead'],
    ["the organization's day spent", { ...none, orgSpent: spent(9, 9) }, 'spending_limit_exceeded'],
    ["the member's month spent", { ...none, memberSpent: spent(49, 0) }, 'spending_limit_exceeded'],
  ])('%s → %s', (_case, found, expected) => {
    const refusal = refusalOf(found as never, limited, request);
    expect(refusal instanceof StaleRead ? 'StaleRead' : codeOf(refusal)).toBe(expected);
  });

  it('ranks 403 above the claim and 402 (documented order of checks)', () => {
    expect(codeOf(refusalOf({ ...none, member: null, claimTaken: true, orgSpent: spent(99, 9) }, limited, request))).toBe('forbidden');
  });

  it('ranks the limits: organization before member, the day before the month, every limit before the balance', () => {
    const broke = { credits: 0, networks: ['instagram'], spending_limit: 100, daily_limit: 10 };
    const facts = (found: Record<string, unknown>) =>
      (refusalOf({ ...none, ...found } as never, limited, request) as unknown as { details: { data: unknown } }).details.data;
    expect(facts({ org: broke, orgSpent: spent(99, 9), memberSpent: spent(49, 4) })).toMatchObject({
      scope: 'organization',
      period: 'day',
    });
    expect(facts({ org: broke, orgSpent: spent(99, 0), memberSpent: spent(49, 4) })).toMatchObject({
      scope: 'organization',
      period: 'month',
    });
    expect(facts({ org: broke, orgSpent: spent(0, 0), memberSpent: spent(49, 4) })).toMatchObject({ scope: 'member', period: 'day' });
    expect(facts({ org: broke, memberSpent: spent(49, 0) })).toMatchObject({ scope: 'member', period: 'month', spent: 49 });
    expect(facts({ org: broke })).toMatchObject({ balance: 0, cost: 2 });
  });

  it('accessRefusal lets editors and owners of an enabled network through', () => {
    expect(accessRefusal(payer().org, payer().member, ask)).toBeNull();
    expect(accessRefusal(payer().org, { role: 'owner', spending_limit: null, daily_limit: null }, ask)).toBeNull();
    expect(accessRefusal(payer().org, payer().member, { ...ask, network: undefined, operation: 'resolve_mention' })).toBeNull();
  });

  it.each([
    [{ credits: 1 }, { kind: 'balance' }],
    [
      { credits: 1, orgLimit: 0 },
      { kind: 'limit', holder: 'org', scope: 'organization', period: 'month', limit: 0 },
    ],
    [{ orgLimit: 1 }, { kind: 'limit', holder: 'org', scope: 'organization', period: 'month', limit: 1 }],
    [
      { orgLimit: 1, orgDaily: 1 },
      { kind: 'limit', holder: 'org', scope: 'organization', period: 'day', limit: 1 },
    ],
    [{ memberLimit: 1 }, { kind: 'limit', holder: 'member', scope: 'member', period: 'month', limit: 1 }],
    [
      { memberDaily: 1, orgLimit: 1 },
      { kind: 'limit', holder: 'org', scope: 'organization', period: 'month', limit: 1 },
    ],
    [{ orgLimit: 2, memberLimit: 2, orgDaily: 2, memberDaily: 2 }, null],
  ])('creditRefusal(%o) → %o', (over, expected) => {
    expect(creditRefusal(payer(over), 2)).toEqual(expected);
  });

  it('creditRefusal counts what was spent in each period', () => {
    const both = payer({ orgDaily: 5, memberLimit: 20 });
    expect(creditRefusal(both, 2, { org: spent(0, 3), member: spent(18, 0) })).toBeNull();
    expect(creditRefusal(both, 2, { org: spent(0, 4), member: spent(18, 0) })).toMatchObject({ scope: 'organization', period: 'day' });
    expect(creditRefusal(both, 2, { org: spent(0, 0), member: spent(19, 0) })).toMatchObject({ scope: 'member', period: 'month' });
  });

  it("reports a limit's facts: the limit as read, the period's spend, the cost and when the period ends", () => {
    const month = refusalOf({ ...none, memberSpent: spent(9, 0) }, payer({ memberLimit: 10 }), request);
    expect(month).toMatchObject({
      code: 'spending_limit_exceeded',
      details: {
        data: { scope: 'member', period: 'month', spending_limit: 10, spent: 9, cost: 2, resets_at: '2026-04-01T00:00:00.000Z' },
      },
    });
    const day = refusalOf({ ...none, memberSpent: spent(30, 4) }, payer({ memberLimit: 100, memberDaily: 5 }), request);
    expect(day).toMatchObject({
      message:
        'this run would exceed your daily spending limit in this organization: 4 of 5 credits spent and this operation costs 2; the limit resets at 2026-03-16T00:00:00.000Z',
      details: {
        data: { scope: 'member', period: 'day', spending_limit: 5, spent: 4, cost: 2, resets_at: '2026-03-16T00:00:00.000Z' },
      },
    });
  });

  it('refuses an item its capped job has no room for first of the 402s, saying what is left; after 403 and the claim', () => {
    const job = { id: 'job_1', maxCredits: 5 };
    const broke = { credits: 0, networks: ['instagram'], spending_limit: 100, daily_limit: 10 };
    const capped = { ...none, jobSpent: 4, org: broke, orgSpent: spent(99, 9) };
    expect(refusalOf(capped, limited, { ...request, job })).toMatchObject({
      status: 402,
      code: 'max_credits_exceeded',
      message: 'this item would be charged 2 credits and its job has 1 of its max_credits 5 left; nothing was charged',
      details: { data: { cost: 2, max_credits: 5, remaining: 1 } },
    });
    // A limit changed meanwhile does not matter: the job's cap refuses whatever the limits say.
    expect(codeOf(refusalOf({ ...none, jobSpent: 5, member: { role: 'editor', daily_limit: 1 } }, limited, { ...request, job }))).toBe(
      'max_credits_exceeded',
    );
    expect(codeOf(refusalOf({ ...capped, member: null }, limited, { ...request, job }))).toBe('forbidden');
    expect(refusalOf({ ...capped, claimTaken: true }, limited, { ...request, job })).toBeInstanceOf(StaleRead);
  });

  it('maxCreditsRefusal refuses a cost above the cap, and only then', () => {
    expect(maxCreditsRefusal(2, undefined)).toBeNull();
    expect(maxCreditsRefusal(2, 2)).toBeNull();
    expect(maxCreditsRefusal(0, 0)).toBeNull();
    expect(maxCreditsRefusal(3, 2)).toMatchObject({
      status: 402,
      code: 'max_credits_exceeded',
      details: { data: { cost: 3, max_credits: 2 } },
    });
  });
});

describe('decide (the Idempotency-Key protocol)', () => {
  const idempotency: Idempotency = { key: { PK: 'IDEM#x', SK: 'IDEM' }, requestHash: 'h1', owner: 'me' };
  const charge = { id: 'evt_9', month: '2026-03', cost: 2, operation: 'instagram_profile', userId: 'u1' };
  const inProgress = (leaseUntilMs: number, withCharge = true) =>
    ({ state: 'in_progress', requestHash: 'h1', owner: 'other', leaseUntilMs, ...(withCharge ? { charge } : {}) }) as IdempotencyRecord;

  it('charges when there is no record', () => {
    expect(decide(null, idempotency, 1000)).toEqual({ kind: 'charge' });
  });

  it("takes over a dead attempt's run (its lease ran out) instead of charging again", () => {
    expect(decide(inProgress(999), idempotency, 1000)).toMatchObject({ kind: 'takeover', record: { charge } });
  });

  it('refuses another body, and a run still in progress with Retry-After', () => {
    expect(() => decide({ ...inProgress(5000), requestHash: 'h2' }, idempotency, 1000)).toThrow(
      expect.objectContaining({ code: 'idempotency_key_reused', message: 'this Idempotency-Key was used with another operation or body' }),
    );
    expect(() => decide(inProgress(5000), idempotency, 1000)).toThrow(
      expect.objectContaining({ code: 'idempotency_key_reused', details: { retryAfterSeconds: 1 } }),
    );
  });

  it('replays a stored response, and refuses one too large to have been stored', () => {
    const done = { state: 'completed', requestHash: 'h1', response: { status: 200, headers: {}, body: { a: 1 } } } as IdempotencyRecord;
    expect(decide(done, idempotency, 1000)).toEqual({ kind: 'replay', replay: { status: 200, body: { a: 1 } } });
    expect(() => decide({ ...done, response: null } as IdempotencyRecord, idempotency, 1000)).toThrow(
      expect.objectContaining({ code: 'idempotency_key_reused' }),
    );
  });
});

describe('providerBudgetMs', () => {
  it('is the configured timeout when the deadline is far', () => {
    expect(providerBudgetMs(10_000, 0, Number.POSITIVE_INFINITY)).toBe(10_000);
  });
  it('keeps the refund reserve before a near deadline, and never goes negative', () => {
    expect(providerBudgetMs(10_000, 0, 5_000)).toBe(5_000 - REFUND_RESERVE_MS);
    expect(providerBudgetMs(10_000, 0, 1_000)).toBe(0);
  });
});

describe('parseVersion', () => {
  it.each([
    ['1', { major: 1, minor: 0 }],
    [' 1.4 ', { major: 1, minor: 4 }],
    ['2', { major: 2, minor: 0 }],
    ['1.0.0', null],
    ['v1', null],
    ['', null],
    ['1,2', null],
  ])('%j → %o', (value, expected) => {
    expect(parseVersion(value)).toEqual(expected);
  });
});
