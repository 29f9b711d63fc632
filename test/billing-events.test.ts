import { describe, expect, it } from 'vitest';
import { handler } from '../functions/list-billing-events.ts';
import { newBillingEvent } from '../lib/db/billing-events.ts';
import { db } from '../lib/db/client.ts';
import { applyBillingEvent } from '../lib/db/organizations.ts';
import { countRoundTrips } from '../lib/db/round-trips.ts';
import { uniqueId, workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { tokenFor } from './support/tokens.ts';

const eventsUrl = (orgId: string, query = '') => `/organizations/${orgId}/billing/events${query ? `?${query}` : ''}`;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

async function recordEvent(orgId: string, at: Date, amount: number, id?: string) {
  const event = newBillingEvent({
    type: 'credits.granted',
    title: 'Credits granted',
    description: `${amount} credits`,
    amount,
    now: at,
    metadata: { reason: 'test grant' },
    ...(id ? { id } : {}),
  });
  await applyBillingEvent(orgId, event);
  return event;
}

describe('GET /organizations/{organization_id}/billing/events', () => {
  it('lists the events of the last 30 days, newest first, for an owner', async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const old = await recordEvent(orgId, hoursAgo(24 * 31), 7);
    const a = await recordEvent(orgId, hoursAgo(24 * 29), 10);
    const b = await recordEvent(orgId, hoursAgo(5), -1);
    const c = await recordEvent(orgId, hoursAgo(1), 3);

    // Act
    const answer = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users.owner) });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['endless-api-version']).toBe('1');
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.body).toEqual({ events: [c, b, a], next_cursor: null, has_more: false });
    expect(answer.body.events).not.toContainEqual(old);
  });

  it('returns every documented field with the documented types', async () => {
    const { orgId, users } = await workspace();
    await recordEvent(orgId, hoursAgo(1), 25);
    const answer = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users.owner) });
    expect(answer.body.events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: 'credits.granted',
        title: 'Credits granted',
        description: '25 credits',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        amount: 25,
        currency: 'credits',
        metadata: { reason: 'test grant' },
      },
    ]);
  });

  it('answers an empty list for an organization without events in the window', async () => {
    const { orgId, users } = await workspace();
    const answer = await call(handler, { url: eventsUrl(orgId, 'days=1'), token: tokenFor(users.owner) });
    expect(answer).toMatchObject({ status: 200, body: { events: [], next_cursor: null, has_more: false } });
  });

  it('looks back `days` days', async () => {
    const { orgId, users } = await workspace();
    const recent = await recordEvent(orgId, hoursAgo(20), 1);
    await recordEvent(orgId, hoursAgo(30), 2);
    const answer = await call(handler, { url: eventsUrl(orgId, 'days=1'), token: tokenFor(users.owner) });
    expect(answer.body).toEqual({ events: [recent], next_cursor: null, has_more: false });
  });

  it('caps the list at `limit` (default 25), keeping the newest', async () => {
    const { orgId, users } = await workspace();
    const events = [];
    for (let i = 0; i < 27; i += 1) events.push(await recordEvent(orgId, hoursAgo(27 - i), i + 1));
    const newestFirst = events.reverse();

    const byDefault = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users.owner) });
    const three = await call(handler, { url: eventsUrl(orgId, 'limit=3'), token: tokenFor(users.owner) });
    const all = await call(handler, { url: eventsUrl(orgId, 'limit=100'), token: tokenFor(users.owner) });

    expect(byDefault.body).toEqual({ events: newestFirst.slice(0, 25), next_cursor: expect.any(String), has_more: true });
    expect(three.body).toEqual({ events: newestFirst.slice(0, 3), next_cursor: expect.any(String), has_more: true });
    expect(all.body).toEqual({ events: newestFirst, next_cursor: null, has_more: false });
  });

  it('orders events of the same millisecond by id, highest first', async () => {
    const { orgId, users } = await workspace();
    const at = hoursAgo(2);
    const low = await recordEvent(orgId, at, 1, 'evt_00000000-aaaa');
    const high = await recordEvent(orgId, at, 2, 'evt_ffffffff-aaaa');
    const answer = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users.owner) });
    expect(answer.body.events).toEqual([high, low]);
  });

  it('never shows another organization’s events', async () => {
    const mine = await workspace();
    const theirs = await workspace();
    await recordEvent(theirs.orgId, hoursAgo(1), 99);
    const answer = await call(handler, { url: eventsUrl(mine.orgId), token: tokenFor(mine.users.owner) });
    expect(answer.body).toEqual({ events: [], next_cursor: null, has_more: false });
  });

  describe('bounds of days and limit', () => {
    it.each([
      ['days=1', 200],
      ['days=30', 200],
      ['limit=1', 200],
      ['limit=100', 200],
      ['days=01', 200],
    ])('%s is served', async (query, status) => {
      const { orgId, users } = await workspace();
      const answer = await call(handler, { url: eventsUrl(orgId, query), token: tokenFor(users.owner) });
      expect(answer.status).toBe(status);
    });

    it.each([
      ['days=0', 'days', 'too_small', 'must be an integer from 1 to 30'],
      ['days=31', 'days', 'too_big', 'must be an integer from 1 to 30'],
      ['days=abc', 'days', 'invalid_format', 'must be an integer from 1 to 30'],
      ['days=1.5', 'days', 'invalid_format', 'must be an integer from 1 to 30'],
      ['days=-1', 'days', 'invalid_format', 'must be an integer from 1 to 30'],
      ['days=', 'days', 'invalid_format', 'must be an integer from 1 to 30'],
      ['days=%201', 'days', 'invalid_format', 'must be an integer from 1 to 30'],
      ['days=1&days=2', 'days', 'repeated', 'must be given once'],
      ['limit=0', 'limit', 'too_small', 'must be an integer from 1 to 100'],
      ['limit=101', 'limit', 'too_big', 'must be an integer from 1 to 100'],
      ['limit=ten', 'limit', 'invalid_format', 'must be an integer from 1 to 100'],
      ['limit=', 'limit', 'invalid_format', 'must be an integer from 1 to 100'],
      ['limit=5&limit=5', 'limit', 'repeated', 'must be given once'],
      ['limit=99999999999', 'limit', 'invalid_format', 'must be an integer from 1 to 100'],
    ])('%s → 400 naming query.%s', async (query, field, code, message) => {
      const { orgId, users } = await workspace();
      const answer = await call(handler, { url: eventsUrl(orgId, query), token: tokenFor(users.owner) });
      expect(answer.status).toBe(400);
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'validation_failed',
        message: `query.${field}: ${message}`,
        data: { issues: [{ path: ['query', field], code, message }] },
      });
      expect(answer.body.request_id).toBe(answer.headers['x-request-id']);
    });

    it('reports every invalid parameter at once', async () => {
      const { orgId, users } = await workspace();
      const answer = await call(handler, { url: eventsUrl(orgId, 'days=0&limit=500'), token: tokenFor(users.owner) });
      expect(answer.body.data.issues.map((issue: { path: string[] }) => issue.path)).toEqual([
        ['query', 'days'],
        ['query', 'limit'],
      ]);
    });

    it('refuses an organization id without the org_ prefix', async () => {
      const answer = await call(handler, { url: eventsUrl('acme'), token: tokenFor(uniqueId('u_')) });
      expect(answer.status).toBe(400);
      expect(answer.body.data.issues).toEqual([
        {
          path: ['path', 'organization_id'],
          code: 'invalid_format',
          message: 'must start with "org_" followed by 1 to 64 letters, digits, "_" or "-"',
        },
      ]);
    });
  });

  describe('roles and membership', () => {
    it.each(['viewer', 'editor'] as const)('a %s gets 403', async (role) => {
      const { orgId, users } = await workspace();
      const answer = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users[role]) });
      expect(answer.status).toBe(403);
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'forbidden',
        message: 'only owners of the organization can list its billing events',
      });
    });

    it('a non-member and an unknown organization get the same 404', async () => {
      const { orgId } = await workspace();
      const stranger = tokenFor(uniqueId('stranger_'));
      const notMember = await call(handler, { url: eventsUrl(orgId), token: stranger });
      const noSuchOrg = await call(handler, { url: eventsUrl(uniqueId('org_')), token: stranger });
      expect(notMember.status).toBe(404);
      expect(noSuchOrg.status).toBe(404);
      expect(withoutRequestId(notMember.body)).toEqual({ code: 'not_found', message: 'no such resource' });
      expect(withoutRequestId(noSuchOrg.body)).toEqual(withoutRequestId(notMember.body));
    });

    it('an owner of one organization cannot read another’s events', async () => {
      const mine = await workspace();
      const theirs = await workspace();
      const answer = await call(handler, { url: eventsUrl(theirs.orgId), token: tokenFor(mine.users.owner) });
      expect(answer.status).toBe(404);
    });

    it('is not refused with 402 when the organization has no credits', async () => {
      const { orgId, users } = await workspace({ credits: 0 });
      const answer = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users.owner) });
      expect(answer.status).toBe(200);
    });
  });

  it('takes one DynamoDB round trip: the rate-limit counter, the membership and the page together', async () => {
    const { orgId, users } = await workspace();
    await recordEvent(orgId, hoursAgo(1), 5);
    const counter = countRoundTrips(db());
    try {
      const answer = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users.owner) });
      expect(answer.status).toBe(200);
      expect(counter.log.sequential).toBe(1);
      expect(counter.log.commands).toEqual(['UpdateItemCommand', 'GetItemCommand', 'QueryCommand']);
    } finally {
      counter.stop();
    }
  });

  it('stamps the rate-limit headers', async () => {
    const { orgId, users } = await workspace();
    const first = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users.owner) });
    const second = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users.owner) });
    expect(first.headers['ratelimit-limit']).toBe('300');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
    // Both requests may straddle a window boundary; within one window the count goes down.
    const [a, b] = [Number(first.headers['ratelimit-remaining']), Number(second.headers['ratelimit-remaining'])];
    expect(b === a - 1 || b === 299).toBe(true);
  });
});
