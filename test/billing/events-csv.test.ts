/**
 * GET …/billing/events with `Accept: text/csv`: the same page the JSON answer gives, as RFC 4180
 * rows, `metadata` a JSON cell, and `Link: <…>; rel="next"` while more remain, whose URL reads
 * the next page exactly as `next_cursor` does. Errors stay JSON.
 */
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/list-billing-events.ts';
import { newBillingEvent } from '../../lib/db/billing-events.ts';
import { applyBillingEvent } from '../../lib/db/organizations.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { tokenFor } from '../support/tokens.ts';

const eventsUrl = (orgId: string, query = '') => `/organizations/${orgId}/billing/events${query ? `?${query}` : ''}`;

async function recordEvent(orgId: string, at: Date, amount: number, metadata: Record<string, string>, description = `${amount} credits`) {
  const event = newBillingEvent({ type: 'credits.granted', title: 'Credits granted', description, amount, now: at, metadata });
  await applyBillingEvent(orgId, event);
  return event;
}

describe('GET /organizations/{organization_id}/billing/events as CSV', () => {
  it('answers the page as RFC 4180 rows, metadata as a JSON cell, and no Link when nothing remains', async () => {
    const { orgId, users } = await workspace();
    const older = await recordEvent(orgId, new Date(Date.now() - 7_200_000), 5, { reason: 'welcome' });
    const newer = await recordEvent(orgId, new Date(Date.now() - 3_600_000), 2, { reason: 'sorry, "again"' }, 'line one\nline two');

    const answer = await call(handler, { url: eventsUrl(orgId), token: tokenFor(users.owner), headers: { accept: 'text/csv' } });

    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(answer.headers.vary).toBe('Accept');
    expect(answer.headers.link).toBeUndefined();
    expect(answer.raw).toBe(
      'id,type,title,description,created_at,amount,currency,metadata\r\n' +
        `${newer.id},credits.granted,Credits granted,"line one\nline two",${newer.created_at},2,credits,"{""reason"":""sorry, \\""again\\""""}"\r\n` +
        `${older.id},credits.granted,Credits granted,5 credits,${older.created_at},5,credits,"{""reason"":""welcome""}"\r\n`,
    );
  });

  it('names the next page in Link while more remain; following it walks the window like next_cursor', async () => {
    const { orgId, users } = await workspace();
    const events = [];
    for (let i = 0; i < 5; i += 1)
      events.push(await recordEvent(orgId, new Date(Date.now() - (i + 1) * 60_000), i + 1, { reason: `r${i}` }));
    const csv = (url: string) =>
      call(handler, { url, token: tokenFor(users.owner), headers: { accept: 'text/csv', host: '127.0.0.1:3000' } });

    const ids: string[] = [];
    let url: string | undefined = eventsUrl(orgId, 'days=1&limit=2');
    let pages = 0;
    while (url) {
      const answer = await csv(url);
      expect(answer.status).toBe(200);
      const rows = answer.raw.trimEnd().split('\r\n').slice(1);
      ids.push(...rows.map((row) => row.split(',')[0] ?? ''));
      pages += 1;
      const link = answer.headers.link;
      if (!link) break;
      const match = /^<http:\/\/127\.0\.0\.1:3000(\/organizations\/[^>]+)>; rel="next"$/.exec(link);
      expect(match).not.toBeNull();
      url = match?.[1];
      expect(url).toContain('days=1&limit=2&cursor=');
    }

    expect(pages).toBe(3);
    expect(ids).toEqual(events.map((event) => event.id));
  });

  it('keeps errors JSON whatever Accept asks', async () => {
    const { orgId, users } = await workspace();
    const [viewer, bad] = await Promise.all([
      call(handler, { url: eventsUrl(orgId), token: tokenFor(users.viewer), headers: { accept: 'text/csv' } }),
      call(handler, { url: eventsUrl(orgId, 'days=0'), token: tokenFor(users.owner), headers: { accept: 'text/csv' } }),
    ]);
    expect([viewer.status, viewer.headers['content-type'], viewer.body.code]).toEqual([403, 'application/json', 'forbidden']);
    expect([bad.status, bad.headers['content-type'], bad.body.code]).toEqual([400, 'application/json', 'validation_failed']);
  });
});
