import { describe, expect, it } from 'vitest';
import { uniqueId, workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { tokenFor } from './support/tokens.ts';

// A small window for this file only (each test file has its own module instances).
process.env.RATE_LIMIT_REQUESTS = '3';
// A day-long window (aligned to UTC midnight) so no test straddles a window boundary.
process.env.RATE_LIMIT_WINDOW_SECONDS = '86400';
const { handler } = await import('../functions/list-billing-events.ts');

describe('per-caller rate limit (fixed window counted in DynamoDB)', () => {
  it('answers 429 with Retry-After once the window is used up', async () => {
    const { orgId, users } = await workspace();
    const url = `/organizations/${orgId}/billing/events`;
    const token = tokenFor(users.owner);

    const served = [];
    for (let i = 0; i < 3; i += 1) served.push(await call(handler, { url, token }));
    const refused = await call(handler, { url, token });

    expect(served.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(served.map((answer) => answer.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86400);
    expect(refused.headers['ratelimit-limit']).toBe('3');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-reset']).toBe(String(retryAfter));
    expect(withoutRequestId(refused.body)).toEqual({ code: 'rate_limited', message: `rate limit exceeded, retry in ${retryAfter} s` });
  });

  it('counts per caller: another user is still served', async () => {
    const { orgId, users } = await workspace();
    const url = `/organizations/${orgId}/billing/events`;
    for (let i = 0; i < 4; i += 1) await call(handler, { url, token: tokenFor(users.owner) });
    const other = await call(handler, { url: `/organizations/${orgId}/billing/events`, token: tokenFor(users.viewer) });
    expect(other.status).toBe(403);
  });

  it('ranks 429 above validation, 404 and 403 errors', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.viewer);
    for (let i = 0; i < 3; i += 1) await call(handler, { url: `/organizations/${orgId}/billing/events`, token });
    const invalid = await call(handler, { url: `/organizations/${orgId}/billing/events?days=0`, token });
    const forbidden = await call(handler, { url: `/organizations/${orgId}/billing/events`, token });
    const missing = await call(handler, { url: `/organizations/${uniqueId('org_')}/billing/events`, token });
    expect([invalid.status, forbidden.status, missing.status]).toEqual([429, 429, 429]);
  });

  it('holds under concurrency: of 10 parallel requests exactly 3 are served', async () => {
    const { orgId, users } = await workspace();
    const token = tokenFor(users.owner);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(handler, { url: `/organizations/${orgId}/billing/events`, token })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
  });

  it('does not count requests that fail authentication', async () => {
    const { orgId, users } = await workspace();
    for (let i = 0; i < 5; i += 1) await call(handler, { url: `/organizations/${orgId}/billing/events` });
    const answer = await call(handler, { url: `/organizations/${orgId}/billing/events`, token: tokenFor(users.owner) });
    expect(answer.status).toBe(200);
  });
});
