/**
 * The pure logic of charging and running, without DynamoDB: the charge transaction as built,
 * what a cancelled charge found, the refusal it means, the idempotency answers, the provider's
 * time budget and the version header's grammar.
 */
import { describe, expect, it } from 'vitest';
import { accessRefusal, creditRefusal, type Payer } from '../lib/billing/charge-rules.ts';
import { chargeCancellation, chargeTransaction, refusalOf, StaleRead } from '../lib/billing/paid-run.ts';
import type { IdempotencyRecord } from '../lib/db/idempotency.ts';
import { parseVersion } from '../lib/http/api-version.ts';
import { decide, type Idempotency } from '../lib/social/idempotency.ts';
import { providerBudgetMs, REFUND_RESERVE_MS } from '../lib/social/provider-call.ts';

const payer = (over: { credits?: number; orgLimit?: number | null; memberLimit?: number | null; role?: string } = {}): Payer => ({
  org: { credits: over.credits ?? 10, networks: ['instagram'], spending_limit: over.orgLimit ?? null },
  member: { role: over.role ?? 'editor', spending_limit: over.memberLimit ?? null },
});
const ask = { operation: 'instagram_profile', network: 'instagram', cost: 2 };
const attempt = { owner: 'attempt-1', sweepAfterMs: Date.parse('2026-03-15T12:01:00.000Z') };
const request = { ...ask, orgId: 'org_a', userId: 'u1', now: new Date('2026-03-15T12:00:00.000Z'), ...attempt };
const codeOf = (error: Error | null) => (error && 'code' in error ? error.code : (error?.name ?? null));

describe('chargeTransaction', () => {
  const now = new Date('2026-03-31T23:59:59.000Z');
  const items = chargeTransaction(
    { orgId: 'org_a', userId: 'u1', operation: 'instagram_profile', network: 'instagram', cost: 2, now, ...attempt },
    payer({ orgLimit: 10 }),
    'evt_1',
  );

  it('is six items in a fixed order: balance, membership, two month counters, the event, the pending run', () => {
    expect(items.map((item) => Object.keys(item)[0])).toEqual(['Update', 'ConditionCheck', 'Update', 'Update', 'Put', 'Put']);
    expect(items[0]!.Update!.Key).toEqual({ PK: 'ORG#org_a', SK: 'ORG' });
    expect(items[2]!.Update!.Key).toEqual({ PK: 'ORG#org_a', SK: 'SPEND#2026-03' });
    expect(items[3]!.Update!.Key).toEqual({ PK: 'ORG#org_a', SK: 'SPEND#2026-03#USER#u1' });
  });

  it('conditions the balance on credits, the unchanged organization limit and the network', () => {
    const update = items[0]!.Update!;
    expect(update.ConditionExpression).toBe(
      'attribute_exists(PK) AND credits >= :cost AND spending_limit = :limit AND contains(networks, :network)',
    );
    expect(update.ExpressionAttributeValues).toEqual({ ':cost': 2, ':limit': 10, ':network': 'instagram' });
  });

  it('conditions the membership on a runner role and an unset member limit', () => {
    const check = items[1]!.ConditionCheck!;
    expect(check.ConditionExpression).toBe(
      'attribute_exists(PK) AND #role IN (:role0, :role1) AND (attribute_not_exists(spending_limit) OR attribute_type(spending_limit, :null))',
    );
    expect(check.ExpressionAttributeValues).toEqual({ ':role0': 'editor', ':role1': 'owner', ':null': 'NULL' });
  });

  it('caps the organization counter at limit - cost and leaves the member counter uncapped', () => {
    expect(items[2]!.Update!.ConditionExpression).toBe('attribute_not_exists(#spent) OR #spent <= :max');
    expect(items[2]!.Update!.ExpressionAttributeValues![':max']).toBe(8);
    expect(items[3]!.Update!.ConditionExpression).toBeUndefined();
  });

  it('writes the charged event with a negative amount', () => {
    expect(items[4]!.Put!.Item).toMatchObject({ id: 'evt_1', type: 'social_operation.charged', amount: -2, currency: 'credits' });
  });
});

describe('chargeCancellation', () => {
  const ok = { Code: 'None' };
  const failed = (item?: Record<string, unknown>) => ({ Code: 'ConditionalCheckFailed', ...(item ? { Item: item as never } : {}) });

  it('is null when no condition failed (a conflict is retried, not refused)', () => {
    expect(chargeCancellation([{ Code: 'TransactionConflict' }, ok, ok, ok, ok])).toBeNull();
  });

  it('reports the stored items of failed conditions and which counters were over', () => {
    const found = chargeCancellation([failed({ credits: { N: '1' }, networks: { SS: ['x'] } }), ok, failed(), ok, ok]);
    expect(found).toEqual({
      org: { credits: 1, networks: new Set(['x']) },
      member: undefined,
      orgSpent: 0,
      memberSpent: undefined,
      claimTaken: false,
    });
  });

  it('reports a missing item as null', () => {
    expect(chargeCancellation([ok, failed(), ok, ok, ok])?.member).toBeNull();
  });
});

describe('refusals', () => {
  const none = { org: undefined, member: undefined, orgSpent: undefined, memberSpent: undefined, claimTaken: false };

  it.each([
    ['no organization', { ...none, org: null }, 'forbidden'],
    ['no membership', { ...none, member: null }, 'forbidden'],
    ['a viewer now', { ...none, member: { role: 'viewer' } }, 'forbidden'],
    ['a network since disabled', { ...none, org: { credits: 10, networks: new Set(['x']) } }, 'operation_not_enabled'],
    ['the key claimed by another request', { ...none, claimTaken: true }, 'StaleRead'],
    ['credits spent meanwhile', { ...none, org: { credits: 1, networks: ['instagram'] } }, 'insufficient_credits'],
    ['a limit changed meanwhile', { ...none, org: { credits: 10, networks: ['instagram'], spending_limit: 3 } }, 'StaleRead'],
    ["the organization's month spent", { ...none, orgSpent: 9 }, 'spending_limit_exceeded'],
    ["the member's month spent", { ...none, memberSpent: 9 }, 'spending_limit_exceeded'],
  ])('%s → %s', (_case, found, expected) => {
    const refusal = refusalOf(found as never, payer(), request);
    expect(refusal instanceof StaleRead ? 'StaleRead' : codeOf(refusal)).toBe(expected);
  });

  it('ranks 403 above the claim and 402 (documented order of checks)', () => {
    expect(codeOf(refusalOf({ ...none, member: null, claimTaken: true, orgSpent: 9 }, payer(), request))).toBe('forbidden');
  });

  it('accessRefusal lets editors and owners of an enabled network through', () => {
    expect(accessRefusal(payer().org, payer().member, ask)).toBeNull();
    expect(accessRefusal(payer().org, { role: 'owner', spending_limit: null }, ask)).toBeNull();
    expect(accessRefusal(payer().org, payer().member, { ...ask, network: undefined, operation: 'resolve_mention' })).toBeNull();
  });

  it.each([
    [{ credits: 1 }, { kind: 'balance' }],
    [{ credits: 1, orgLimit: 0 }, { kind: 'balance' }],
    [{ orgLimit: 1 }, { kind: 'limit', scope: 'organization', limit: 1 }],
    [{ memberLimit: 1 }, { kind: 'limit', scope: 'member', limit: 1 }],
    [{ orgLimit: 2, memberLimit: 2 }, null],
  ])('creditRefusal(%o) → %o', (over, expected) => {
    expect(creditRefusal(payer(over), 2)).toEqual(expected);
  });

  it("reports a limit's facts: the limit as read, the month's spend, the cost and the next month's start", () => {
    const refusal = refusalOf({ ...none, memberSpent: 9 }, payer({ memberLimit: 10 }), request);
    expect(refusal).toMatchObject({
      code: 'spending_limit_exceeded',
      details: { data: { scope: 'member', spending_limit: 10, spent: 9, cost: 2, resets_at: '2026-04-01T00:00:00.000Z' } },
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
