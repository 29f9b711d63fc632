import { describe, expect, it } from 'vitest';
import { createTableInput } from '../lib/db/create-table.ts';
import {
  billingEventKey,
  billingEventRange,
  dueBefore,
  membershipKey,
  orgKey,
  pendingRunIndexKey,
  pendingRunKey,
  pendingRunsPrefix,
  projectSlugKey,
  rateLimitKey,
  resourceKey,
  SWEEP_SHARDS,
  skillNameKey,
  sweepShard,
} from '../lib/db/keys.ts';
import { matchRoute, routePattern } from '../lib/routes.ts';

describe('key builders', () => {
  it('build every key format of the table', () => {
    expect(orgKey('org_a')).toEqual({ PK: 'ORG#org_a', SK: 'ORG' });
    expect(membershipKey('org_a', 'u1')).toEqual({ PK: 'USER#u1', SK: 'MEMBER#org_a' });
    expect(billingEventKey('org_a', '2026-01-01T00:00:00.000Z', 'evt_1')).toEqual({
      PK: 'ORG#org_a',
      SK: 'EVENT#2026-01-01T00:00:00.000Z#evt_1',
    });
    expect(resourceKey('project', 'p1')).toEqual({ PK: 'PROJECT#p1', SK: 'PROJECT' });
    expect(projectSlugKey('org_a', 'launch')).toEqual({ PK: 'ORG#org_a', SK: 'SLUG#launch' });
    expect(rateLimitKey('u1', 60_000)).toEqual({ PK: 'RATE#u1', SK: 'WINDOW#60000' });
  });

  it("keep a pending run in its organization's partition, and in a shard of the sweep index sorted by due time", () => {
    expect(pendingRunKey('org_a', 'evt_1')).toEqual({ PK: 'ORG#org_a', SK: 'PENDING#evt_1' });
    expect(pendingRunKey('org_a', 'evt_1').SK.startsWith(pendingRunsPrefix('org_a').skPrefix)).toBe(true);
    expect(pendingRunIndexKey('evt_1', Date.parse('2026-01-01T00:01:00.000Z'))).toEqual({
      GSI1PK: `SWEEP#${sweepShard('evt_1')}`,
      GSI1SK: '2026-01-01T00:01:00.000Z#evt_1',
    });
  });

  it('spread charges over every shard, each charge always to the same one', () => {
    const shards = Array.from({ length: 400 }, (_, i) => sweepShard(`evt_${i}`));

    expect(new Set(shards).size).toBe(SWEEP_SHARDS);
    expect(shards.every((shard) => shard >= 0 && shard < SWEEP_SHARDS)).toBe(true);
    expect(sweepShard('evt_7')).toBe(shards[7]);
  });

  it('bound the due runs: due before now, never at or after it', () => {
    const now = Date.parse('2026-01-01T00:01:00.000Z');
    const sortKey = (dueMs: number) => pendingRunIndexKey('evt_zzzz', dueMs).GSI1SK;

    expect(sortKey(now - 1) < dueBefore(now)).toBe(true);
    expect(sortKey(now) < dueBefore(now)).toBe(false);
    expect(sortKey(now + 1) < dueBefore(now)).toBe(false);
  });

  it('compare skill names case- and width-insensitively', () => {
    expect(skillNameKey('org_a', '  Summarize ')).toEqual(skillNameKey('org_a', 'summarize'));
    expect(skillNameKey('org_a', 'Ｓummarize')).toEqual(skillNameKey('org_a', 'summarize'));
  });

  it('bound the billing-event range so that every event at or after `since` sorts inside it', () => {
    const range = billingEventRange('org_a', '2026-01-01T00:00:00.000Z');
    const inside = billingEventKey('org_a', '2026-01-01T00:00:00.000Z', 'evt_zzzz').SK;
    const before = billingEventKey('org_a', '2025-12-31T23:59:59.999Z', 'evt_zzzz').SK;
    expect(inside >= range.from && inside <= range.to).toBe(true);
    expect(before < range.from).toBe(true);
  });
});

describe('table definition', () => {
  it('gives DynamoDB Local the key schema and index of the shared definition', () => {
    const input = createTableInput('t');
    expect(input.KeySchema).toEqual([
      { AttributeName: 'PK', KeyType: 'HASH' },
      { AttributeName: 'SK', KeyType: 'RANGE' },
    ]);
    expect(input.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['GSI1']);
    expect(input.BillingMode).toBe('PAY_PER_REQUEST');
  });
});

describe('route table matching', () => {
  it('extracts and decodes path parameters', () => {
    expect(routePattern('/a/{x}/b').exec('/a/1%202/b')?.groups).toEqual({ x: '1%202' });
    expect(matchRoute('GET', '/organizations/org_a%5F/billing/events')).toMatchObject({
      route: { name: 'ListBillingEvents' },
      pathParameters: { organization_id: 'org_a_' },
    });
  });

  it('falls back to $default for an unknown path or method', () => {
    expect(matchRoute('GET', '/nope').route.name).toBe('RouteNotFound');
    expect(matchRoute('POST', '/organizations/org_a/billing/events').route.name).toBe('RouteNotFound');
  });
});
