/**
 * Paging billing events with `cursor`: every event of the window exactly once, newest first,
 * while new events are written; cursors that are opaque, tamper-proof and bound to the
 * organization and `days`; one DynamoDB round trip per page.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler } from '../functions/list-billing-events.ts';
import { decodeCursor, encodeCursor } from '../lib/billing/cursor.ts';
import { grantCredits } from '../lib/billing/grants.ts';
import { type BillingEvent, newBillingEvent } from '../lib/db/billing-events.ts';
import { db, tableName } from '../lib/db/client.ts';
import { billingEventKey } from '../lib/db/keys.ts';
import { addMembership } from '../lib/db/memberships.ts';
import { countRoundTrips } from '../lib/db/round-trips.ts';
import { uniqueId, workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { tokenFor } from './support/tokens.ts';

const KEY = process.env.CURSOR_SIGNING_KEY!;
const eventsUrl = (orgId: string, query: string) => `/organizations/${orgId}/billing/events?${query}`;
const NOT_ISSUED = 'is not a cursor this service issued for this listing; list again without a cursor';

/** Stores events as they are stored by charges and grants (the listing reads nothing else), 25 per batch. */
async function storeEvents(orgId: string, events: BillingEvent[]): Promise<void> {
  const batches = [];
  for (let i = 0; i < events.length; i += 25) batches.push(events.slice(i, i + 25));
  await Promise.all(
    batches.map((batch) =>
      db().send(
        new BatchWriteCommand({
          RequestItems: {
            [tableName()]: batch.map((event) => ({
              PutRequest: { Item: { ...billingEventKey(orgId, event.created_at, event.id), entity: 'billing_event', ...event } },
            })),
          },
        }),
      ),
    ),
  );
}

/** `count` events over the last 23 hours, in pairs sharing a millisecond (ties are ordered by id). */
function dayOfEvents(count: number): BillingEvent[] {
  const start = Date.now() - 23 * 3_600_000;
  return Array.from({ length: count }, (_, i) =>
    newBillingEvent({
      type: 'social_operation.charged',
      title: 'instagram_profile',
      description: `run ${i}`,
      amount: -1,
      now: new Date(start + Math.floor(i / 2) * 300_000),
    }),
  );
}

const newestFirst = (events: BillingEvent[]) =>
  [...events].sort((a, b) => (`${a.created_at}#${a.id}` < `${b.created_at}#${b.id}` ? 1 : -1));

async function page(orgId: string, owner: string, query: string) {
  const answer = await call(handler, { url: eventsUrl(orgId, query), token: tokenFor(owner) });
  expect(answer.status).toBe(200);
  return answer.body as { events: BillingEvent[]; next_cursor: string | null; has_more: boolean };
}

describe('following cursors', () => {
  it('lists 250 events of a day exactly once, newest first, while 20 more are written during the walk', async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const day = dayOfEvents(250);
    await storeEvents(orgId, day);

    // Act: after the first page (which fixes the window), each page is read while two new events are written.
    const seen: BillingEvent[] = [];
    const pages: { size: number; has_more: boolean }[] = [];
    let cursor: string | null = null;
    let written = 0;
    do {
      const query: string = `days=1&limit=24${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const writes: Promise<unknown>[] = cursor && written < 20 ? [grantCredits(orgId, 1), grantCredits(orgId, 1)] : [];
      written += writes.length;
      const body = await page(orgId, users.owner, query);
      await Promise.all(writes);
      seen.push(...body.events);
      pages.push({ size: body.events.length, has_more: body.has_more });
      cursor = body.next_cursor;
      if (!body.has_more) expect(body.next_cursor).toBeNull();
    } while (cursor);

    // Assess: the window's events, each once, in order; none of those written during the walk.
    expect(written).toBe(20);
    expect(seen.map((event) => event.id)).toEqual(newestFirst(day).map((event) => event.id));
    expect(seen).toEqual(newestFirst(day));
    expect(pages).toEqual([...Array.from({ length: 10 }, () => ({ size: 24, has_more: true })), { size: 10, has_more: false }]);

    // A new walk sees the new events too.
    const fresh = await page(orgId, users.owner, 'days=1&limit=100');
    expect(fresh.events.filter((event) => event.type === 'credits.granted')).toHaveLength(20);
  });

  it('says has_more exactly: a page that ends the window has no next cursor', async () => {
    const { orgId, users } = await workspace();
    await storeEvents(orgId, dayOfEvents(50));
    const first = await page(orgId, users.owner, 'days=1&limit=25');
    const second = await page(orgId, users.owner, `days=1&limit=25&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect([first.has_more, second.has_more, second.next_cursor]).toEqual([true, false, null]);
    expect(second.events).toHaveLength(25);
  });

  it('lets `limit` change from page to page', async () => {
    const { orgId, users } = await workspace();
    const day = dayOfEvents(30);
    await storeEvents(orgId, day);
    const first = await page(orgId, users.owner, 'days=1&limit=10');
    const rest = await page(orgId, users.owner, `days=1&limit=100&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect([...first.events, ...rest.events]).toEqual(newestFirst(day));
    expect(rest).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('reads each page in one round trip, and discards a non-member’s page', async () => {
    const { orgId, users } = await workspace();
    await storeEvents(orgId, dayOfEvents(30));
    const first = await page(orgId, users.owner, 'days=1&limit=10');
    const counter = countRoundTrips(db());
    try {
      const next = await call(handler, {
        url: eventsUrl(orgId, `days=1&limit=10&cursor=${encodeURIComponent(first.next_cursor!)}`),
        token: tokenFor(users.owner),
      });
      expect(next.status).toBe(200);
      expect(counter.log).toEqual({ commands: ['UpdateItemCommand', 'GetItemCommand', 'QueryCommand'], sequential: 1 });

      counter.reset();
      const stranger = await call(handler, { url: eventsUrl(orgId, 'days=1'), token: tokenFor(uniqueId('stranger_')) });
      expect(stranger.status).toBe(404);
      expect(withoutRequestId(stranger.body)).toEqual({ code: 'not_found', message: 'no such resource' });
      expect(counter.log.sequential).toBe(1);
    } finally {
      counter.stop();
    }
  });
});

// One owner of two organizations, and a cursor issued for the first.
const { orgId, users } = await workspace();
const other = await workspace();
await addMembership({ orgId: other.orgId, userId: users.owner, role: 'owner' });
await storeEvents(orgId, dayOfEvents(10));
await storeEvents(other.orgId, dayOfEvents(10));
const issued = (await page(orgId, users.owner, 'days=1&limit=3')).next_cursor!;

describe('cursors that cannot be followed', () => {
  const position = decodeCursor(issued, KEY, { orgId, days: 1 });

  const refused = async (targetOrg: string, query: string, message: string) => {
    const answer = await call(handler, { url: eventsUrl(targetOrg, query), token: tokenFor(users.owner) });
    expect(answer.status).toBe(400);
    expect(withoutRequestId(answer.body)).toEqual({
      code: 'validation_failed',
      message: `query.cursor: ${message}`,
      data: { issues: [{ path: ['query', 'cursor'], code: expect.any(String), message }] },
    });
  };
  const flip = (text: string, at: number) => {
    const replacement = text[at] === 'A' ? 'B' : 'A';
    return `${text.slice(0, at)}${replacement}${text.slice(at + 1)}`;
  };

  it('is issued opaque and short', () => {
    expect(issued.length).toBeLessThanOrEqual(512);
    expect(issued).not.toContain(orgId);
    expect(typeof position).toBe('object');
  });

  it('refuses a cursor edited in any one character, wherever the edit is', () => {
    for (let at = 0; at < issued.length; at += 1) {
      expect(decodeCursor(flip(issued, at), KEY, { orgId, days: 1 })).toBe(NOT_ISSUED);
    }
  });

  it.each([
    ['edited in its payload', () => flip(issued, 10)],
    ['edited in its signature', () => flip(issued, issued.length - 3)],
    [
      'signed with another key',
      () => encodeCursor({ orgId, days: 1, endMs: Date.now(), after: '2020-01-01T00:00:00.000Z#evt_x' }, `${KEY}x`),
    ],
    ['cut short', () => issued.slice(0, -1)],
    ['not a cursor at all', () => 'page2'],
    ['with an extra part', () => `${issued}.x`],
  ])('answers 400 for a cursor %s', async (_case, make) => {
    await refused(orgId, `days=1&cursor=${encodeURIComponent(make())}`, NOT_ISSUED);
  });

  it('answers 400 for a cursor of another organization, even one the caller owns', async () => {
    await refused(other.orgId, `days=1&cursor=${encodeURIComponent(issued)}`, 'was issued for another organization');
  });

  it('answers 400 for a cursor sent with another days (or none, which is 30)', async () => {
    const message = 'was issued for days=1; send days=1 with it, or list again without a cursor';
    await refused(orgId, `days=2&cursor=${encodeURIComponent(issued)}`, message);
    await refused(orgId, `cursor=${encodeURIComponent(issued)}`, message);
  });

  it.each([
    ['empty', '', 'must not be empty; omit it for the first page'],
    ['longer than 512 characters', 'a'.repeat(513), 'must be at most 512 characters, as issued in next_cursor'],
  ])('answers 400 for a cursor %s', async (_case, value, message) => {
    await refused(orgId, `days=1&cursor=${value}`, message);
  });

  it('checks the cursor before membership: a stranger with a forged cursor gets 400', async () => {
    const answer = await call(handler, { url: eventsUrl(orgId, 'days=1&cursor=forged'), token: tokenFor(uniqueId('stranger_')) });
    expect(answer.status).toBe(400);
  });
});
