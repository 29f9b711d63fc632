import { describe, expect, it } from 'vitest';
import { spendPeriod } from '../lib/billing/period.ts';
import { createTableInput } from '../lib/db/create-table.ts';
import {
  alertEventKey,
  alertSettingsKey,
  billingEventAt,
  billingEventKey,
  billingEventPosition,
  billingEventRange,
  billingEventsPrefix,
  dueBefore,
  memberSpendKey,
  membershipIndexKey,
  membershipKey,
  monthSpendPrefix,
  oauthRefreshTokenKey,
  oauthTicketNonceKey,
  orgDirectoryKey,
  orgIdOfDirectoryKey,
  orgIdOfPartition,
  orgKey,
  orgMembersIndexQuery,
  orgSpendKey,
  pendingRunIndexKey,
  pendingRunKey,
  pendingRunsPrefix,
  projectSlugKey,
  rateLimitKey,
  resourceKey,
  SWEEP_SHARDS,
  skillNameKey,
  spendCounterOf,
  spendMemberOf,
  sweepShard,
  usageCounterKey,
  usageCounterRange,
  usageMarkerKey,
  webhookCountKey,
  webhookDeliveriesPrefix,
  webhookDeliveryKey,
  webhookEndpointKey,
  webhookEndpointsPrefix,
  webhookIdOf,
} from '../lib/db/keys.ts';
import { slugify } from '../lib/resources/factory.ts';
import { isValidSlug } from '../lib/resources/model.ts';
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

  it('bound the billing-event range so that every event from `since` to `until` (its whole last millisecond) sorts inside it', () => {
    const range = billingEventRange('org_a', '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z');
    const inside = billingEventKey('org_a', '2026-01-01T00:00:00.000Z', 'evt_zzzz').SK;
    const before = billingEventKey('org_a', '2025-12-31T23:59:59.999Z', 'evt_zzzz').SK;
    const lastMillisecond = billingEventKey('org_a', '2026-01-02T00:00:00.000Z', 'evt_ffffffff-ffff').SK;
    const after = billingEventKey('org_a', '2026-01-02T00:00:00.001Z', 'evt_0000').SK;
    expect(inside >= range.from && inside <= range.to).toBe(true);
    expect(before < range.from).toBe(true);
    expect(lastMillisecond <= range.to).toBe(true);
    expect(after > range.to).toBe(true);
  });
});

describe('operator access patterns', () => {
  it('list organizations from one directory partition, in id order', () => {
    expect(orgDirectoryKey('org_a')).toEqual({ PK: 'ORGS', SK: 'ORG#org_a' });
    expect(orgIdOfDirectoryKey(orgDirectoryKey('org_a_b#c').SK)).toBe('org_a_b#c');
    expect(orgDirectoryKey('org_a').SK < orgDirectoryKey('org_b').SK).toBe(true);
  });

  it("query an organization's members on GSI1, where each membership puts its index key", () => {
    const query = orgMembersIndexQuery('org_a');
    const entry = membershipIndexKey('org_a', 'u1');

    expect(query.indexName).toBe('GSI1');
    expect(entry.GSI1PK).toBe(query.GSI1PK);
    expect(entry.GSI1SK.startsWith(query.skPrefix)).toBe(true);
    expect(membershipIndexKey('org_ab', 'u1').GSI1PK).not.toBe(query.GSI1PK);
  });

  it("read a month's spend counters with one prefix, telling the organization's from each member's", () => {
    const { PK, skPrefix } = monthSpendPrefix('org_a', '2026-11');
    const org = orgSpendKey('org_a', '2026-11');
    const member = memberSpendKey('org_a', 'u#1', '2026-11');

    for (const key of [org, member]) expect(key.PK === PK && key.SK.startsWith(skPrefix)).toBe(true);
    expect(orgSpendKey('org_a', '2026-12').SK.startsWith(skPrefix)).toBe(false);
    expect(spendMemberOf(org.SK, '2026-11')).toBeNull();
    expect(spendMemberOf(member.SK, '2026-11')).toBe('u#1');
  });

  it('bound the spend period by UTC calendar month, across a year end', () => {
    expect(spendPeriod(new Date('2026-12-31T23:59:59.999Z'))).toEqual({
      month: '2026-12',
      start: '2026-12-01T00:00:00.000Z',
      end: '2027-01-01T00:00:00.000Z',
    });
  });
});

describe('the slug rule', () => {
  it.each(['launch', 'spring-launch-2026', 'a', 'a'.repeat(60)])('accepts %s', (slug) => expect(isValidSlug(slug)).toBe(true));

  it.each(['Bad Slug!', 'Launch', 'a--b', '-a', 'a-', '', 'a'.repeat(61), 'café', 'a_b'])('refuses %j', (slug) =>
    expect(isValidSlug(slug)).toBe(false));

  it('is what any title slugifies into, including at the length cut', () => {
    for (const title of ['Spring launch!', '   ', `${'a'.repeat(59)} b`, '--Über--Café--', 'x'.repeat(100)]) {
      expect(isValidSlug(slugify(title)), title).toBe(true);
    }
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
    // The change stream the usage aggregator reads, as deployed (infra/table-stream.ts).
    expect(input.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });
});

describe('usage keys', () => {
  it('keeps an organization’s counters in a partition of their own, sorted by grain, bucket, operation and payer', () => {
    expect(usageCounterKey('org_a', 'hour', '2026-11-20T10:00:00.000Z', 'x_profile', 'user_1')).toEqual({
      PK: 'USAGE#org_a',
      SK: 'H#2026-11-20T10:00:00.000Z#x_profile#user_1',
    });
    expect(usageCounterKey('org_a', 'day', '2026-11-20T00:00:00.000Z', 'x_profile', 'key_1').SK).toBe(
      'D#2026-11-20T00:00:00.000Z#x_profile#key_1',
    );
    expect(usageMarkerKey('evt_1')).toEqual({ PK: 'USAGE_EVENT#evt_1', SK: 'COUNTED' });
  });

  it('bounds a window so that its first bucket is in and the bucket at its end is out', () => {
    const range = usageCounterRange('org_a', 'hour', '2026-11-20T10:00:00.000Z', '2026-11-20T12:00:00.000Z');
    const key = (bucket: string) => usageCounterKey('org_a', 'hour', bucket, 'a_op', 'u').SK;
    const inside = (sk: string) => sk >= range.from && sk <= range.to;
    expect(
      [
        key('2026-11-20T10:00:00.000Z'),
        key('2026-11-20T11:00:00.000Z'),
        key('2026-11-20T12:00:00.000Z'),
        key('2026-11-20T09:00:00.000Z'),
      ].map(inside),
    ).toEqual([true, true, false, false]);
    expect(usageCounterKey('org_a', 'day', '2026-11-20T00:00:00.000Z', 'x', 'u').SK >= range.from).toBe(false);
  });
});

describe('key builders of alerts and notification endpoints', () => {
  it("keep alert settings and endpoints in the organization's partition, events and deliveries in their own", () => {
    expect(alertSettingsKey('org_a')).toEqual({ PK: 'ORG#org_a', SK: 'ALERTS' });
    expect(alertEventKey('evt_1')).toEqual({ PK: 'ALERT_EVENT#evt_1', SK: 'EVENT' });
    expect(webhookEndpointKey('org_a', 'whk_1')).toEqual({ PK: 'ORG#org_a', SK: 'WEBHOOK#whk_1' });
    expect(webhookCountKey('org_a')).toEqual({ PK: 'ORG#org_a', SK: 'WEBHOOKS' });
    expect(webhookDeliveryKey('whk_1', '2026-01-01T00:00:00.000Z', 'evt_1')).toEqual({
      PK: 'WEBHOOK#whk_1',
      SK: 'DELIVERY#2026-01-01T00:00:00.000Z#evt_1',
    });
  });

  it('read back what they built', () => {
    const endpoint = webhookEndpointKey('org_a', 'whk_1');
    const delivery = webhookDeliveryKey('whk_1', '2026-01-01T00:00:00.000Z', 'evt_1');

    expect(endpoint.SK.startsWith(webhookEndpointsPrefix('org_a').skPrefix)).toBe(true);
    expect(endpoint.SK.startsWith(webhookCountKey('org_a').SK)).toBe(false);
    expect(delivery.SK.startsWith(webhookDeliveriesPrefix('whk_1').skPrefix)).toBe(true);
    expect([webhookIdOf(endpoint.SK), webhookIdOf(delivery.PK)]).toEqual(['whk_1', 'whk_1']);
    expect(orgIdOfPartition(alertSettingsKey('org_a').PK)).toBe('org_a');
  });

  it('read a spend counter: its month and whose it is', () => {
    expect(spendCounterOf(orgSpendKey('org_a', '2026-01').SK)).toEqual({ month: '2026-01', payer: null });
    expect(spendCounterOf(memberSpendKey('org_a', 'u1', '2026-01').SK)).toEqual({ month: '2026-01', payer: 'u1' });
    expect(spendCounterOf(pendingRunKey('org_a', 'evt_1').SK)).toBeNull();
  });

  it('start the next page of billing events at the position of the last one shown', () => {
    const last = billingEventKey('org_a', '2026-01-01T00:00:00.000Z', 'evt_1');

    expect(billingEventAt('org_a', billingEventPosition(last.SK))).toEqual(last);
    expect(last.SK.startsWith(billingEventsPrefix('org_a').skPrefix)).toBe(true);
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

  it('routes every method of a path to its ANY route', () => {
    expect(['POST', 'GET', 'DELETE', 'OPTIONS'].map((method) => matchRoute(method, '/mcp').route.name)).toEqual([
      'Mcp',
      'Mcp',
      'Mcp',
      'Mcp',
    ]);
    expect(matchRoute('POST', '/mcp/extra').route.name).toBe('RouteNotFound');
  });
});

describe('OAuth items', () => {
  it('keeps a refresh token by its hash and a ticket by its nonce, each in a partition of its own', () => {
    expect(oauthRefreshTokenKey('h4sh')).toEqual({ PK: 'OAUTH_REFRESH#h4sh', SK: 'REFRESH' });
    expect(oauthTicketNonceKey('n0nce')).toEqual({ PK: 'OAUTH_TICKET#n0nce', SK: 'NONCE' });
  });

  it('routes each OAuth endpoint to its own function: every method of /oauth/authorize, POST of the others', () => {
    expect(['GET', 'POST', 'PUT', 'OPTIONS'].map((method) => matchRoute(method, '/oauth/authorize').route.name)).toEqual([
      'OAuthAuthorize',
      'OAuthAuthorize',
      'OAuthAuthorize',
      'OAuthAuthorize',
    ]);
    expect(['/oauth/token', '/oauth/register', '/oauth/revoke'].map((path) => matchRoute('POST', path).route.name)).toEqual([
      'OAuthToken',
      'RegisterOAuthClient',
      'OAuthRevoke',
    ]);
    expect(['/oauth/token', '/oauth/other'].map((path) => matchRoute('GET', path).route.name)).toEqual(['RouteNotFound', 'RouteNotFound']);
  });
});
