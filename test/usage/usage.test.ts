/**
 * GET /organizations/{organization_id}/usage through its whole chain, on usage counted by the
 * table stream's function fed from DynamoDB Local's stream (the local poller, as `npm start`
 * runs it): who sees what, the buckets and groups, CSV, and every 400.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler } from '../../functions/get-usage.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { refundRun, settleRun } from '../../lib/billing/paid-run.ts';
import { db } from '../../lib/db/client.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { chargeDirectly } from '../support/charges.ts';
import { workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { runUrl } from '../support/social.ts';
import { startTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';

const stream = await startTableStream();
afterAll(() => stream.stop());

const usageUrl = (orgId: string, query: string) => `/organizations/${orgId}/usage?${query}`;
const settleNow = () => ({ untilMs: Date.now() + 5_000, nowMs: Date.now() });
const DAY_MS = 86_400_000;
const today = () => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
const iso = (ms: number) => new Date(ms).toISOString();

/** A delivered charge at `at` (its refund at `refundAt`, if given). */
async function charge(orgId: string, userId: string, operation: string, cost: number, at: Date, refundAt?: Date) {
  const run = await chargeDirectly({ orgId, userId, operation, cost, now: at });
  if (refundAt) expect(await refundRun(run, 'test', { now: refundAt })).toBe('refunded');
  else await settleRun(run, undefined, settleNow());
  return run;
}

async function keyOf(orgId: string, owner: string, name: string) {
  const created = await call(createKey, {
    method: 'POST',
    url: `/organizations/${orgId}/api-keys`,
    token: tokenFor(owner),
    body: { name, role: 'editor' },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, token: created.body.token as string };
}

const runWith = (orgId: string, token: string, operation = 'x_profile', body: unknown = { handle: 'nasa' }) =>
  call(runOperation, { method: 'POST', url: runUrl(operation, orgId), token, body });

describe('GET /organizations/{organization_id}/usage: what it answers', () => {
  it('counts each charge in the hour of its event and its refund in the refund’s hour, by member', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 100 });
    const at = new Date('2026-11-20T10:15:00.000Z');
    await charge(orgId, users.editor, 'x_profile', 3, at);
    await charge(orgId, users.owner, 'tiktok_profile', 2, at, new Date('2026-11-20T11:05:00.000Z'));
    await stream.catchUp();

    // Act
    const answer = await call(handler, {
      url: usageUrl(orgId, 'from=2026-11-20T10:00:00Z&to=2026-11-20T13:00:00Z&granularity=hour&group_by=member'),
      token: tokenFor(users.owner),
    });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers.vary).toBe('Accept');
    const byMember = [
      { member: users.editor, runs: 1, charged: 3, refunded: 0, net: 3 },
      { member: users.owner, runs: 1, charged: 2, refunded: 0, net: 2 },
    ].sort((a, b) => (a.member < b.member ? -1 : 1));
    expect(answer.body).toEqual({
      from: '2026-11-20T10:00:00.000Z',
      to: '2026-11-20T13:00:00.000Z',
      granularity: 'hour',
      group_by: ['member'],
      buckets: [
        { start: '2026-11-20T10:00:00.000Z', end: '2026-11-20T11:00:00.000Z', results: byMember },
        {
          start: '2026-11-20T11:00:00.000Z',
          end: '2026-11-20T12:00:00.000Z',
          results: [{ member: users.owner, runs: 0, charged: 0, refunded: 2, net: -2 }],
        },
        { start: '2026-11-20T12:00:00.000Z', end: '2026-11-20T13:00:00.000Z', results: [] },
      ],
    });
  });

  it('answers day buckets by default, ungrouped totals, and every bucket of a window reaching into the future', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const from = today().getTime() - 2 * DAY_MS;
    await charge(orgId, users.editor, 'x_profile', 2, new Date(from + 3_600_000));
    await charge(orgId, users.editor, 'x_profile', 4, new Date(from + 5_000_000), new Date(from + DAY_MS + 60_000));
    await stream.catchUp();

    const answer = await call(handler, {
      url: usageUrl(orgId, `from=${iso(from)}&to=${iso(from + 5 * DAY_MS)}`),
      token: tokenFor(users.owner),
    });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      from: iso(from),
      to: iso(from + 5 * DAY_MS),
      granularity: 'day',
      group_by: [],
      buckets: [
        { start: iso(from), end: iso(from + DAY_MS), results: [{ runs: 2, charged: 6, refunded: 0, net: 6 }] },
        { start: iso(from + DAY_MS), end: iso(from + 2 * DAY_MS), results: [{ runs: 0, charged: 0, refunded: 4, net: -4 }] },
        ...[2, 3, 4].map((n) => ({ start: iso(from + n * DAY_MS), end: iso(from + (n + 1) * DAY_MS), results: [] })),
      ],
    });
  });

  it('groups by every key in the order asked, network from the operation, null where a key does not apply', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const key = await keyOf(orgId, users.owner, 'agent');
    expect((await runWith(orgId, key.token, 'x_profile')).status).toBe(200);
    expect((await runWith(orgId, tokenFor(users.editor), 'resolve_mention', { mention: '@nasa', network: 'x' })).status).toBe(200);
    expect((await runWith(orgId, tokenFor(users.editor), 'x_profile')).status).toBe(200);
    await stream.catchUp();
    const from = today().getTime();

    const answer = await call(handler, {
      url: usageUrl(orgId, `from=${iso(from)}&to=${iso(from + DAY_MS)}&group_by=api_key,network,member,operation`),
      token: tokenFor(users.owner),
    });

    expect(answer.status).toBe(200);
    expect(answer.body.group_by).toEqual(['api_key', 'network', 'member', 'operation']);
    expect(answer.body.buckets).toHaveLength(1);
    const results = answer.body.buckets[0].results;
    // Keys laid out in the order asked; sorted by them, null last.
    expect(results.map((result: object) => Object.keys(result))).toEqual(
      Array(3).fill(['api_key', 'network', 'member', 'operation', 'runs', 'charged', 'refunded', 'net']),
    );
    expect(results).toEqual([
      { api_key: key.id, network: 'x', member: null, operation: 'x_profile', runs: 1, charged: 1, refunded: 0, net: 1 },
      { api_key: null, network: 'x', member: users.editor, operation: 'x_profile', runs: 1, charged: 1, refunded: 0, net: 1 },
      { api_key: null, network: null, member: users.editor, operation: 'resolve_mention', runs: 1, charged: 1, refunded: 0, net: 1 },
    ]);
  });

  it('answers the same rows as CSV for Accept: text/csv (RFC 4180, CRLF, a header row, empty cells for null)', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const key = await keyOf(orgId, users.owner, 'csv agent');
    expect((await runWith(orgId, key.token, 'x_profile')).status).toBe(200);
    expect((await runWith(orgId, tokenFor(users.editor), 'tiktok_profile')).status).toBe(200);
    await stream.catchUp();
    const from = today().getTime() - DAY_MS;

    const answer = await call(handler, {
      url: usageUrl(orgId, `from=${iso(from)}&to=${iso(from + 2 * DAY_MS)}&group_by=member,api_key`),
      token: tokenFor(users.owner),
      headers: { accept: 'text/csv' },
    });

    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(answer.headers.vary).toBe('Accept');
    const day = `${iso(from + DAY_MS)},${iso(from + 2 * DAY_MS)}`;
    expect(answer.raw).toBe(
      `start,end,member,api_key,runs,charged,refunded,net\r\n${day},${users.editor},,1,1,0,1\r\n${day},,${key.id},1,1,0,1\r\n`,
    );
  });

  it('quotes CSV cells that hold a comma or a quote, and answers only the header for an empty window', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const odd = 'user,"odd"';
    const { addMembership } = await import('../../lib/db/memberships.ts');
    await addMembership({ orgId, userId: odd, role: 'editor' });
    await charge(orgId, odd, 'x_profile', 1, new Date('2026-11-20T10:00:00.000Z'));
    await stream.catchUp();

    const [found, empty] = await Promise.all([
      call(handler, {
        url: usageUrl(orgId, 'from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z&group_by=member'),
        token: tokenFor(users.owner),
        headers: { accept: 'text/csv;q=0.9, application/json;q=0.5' },
      }),
      call(handler, {
        url: usageUrl(orgId, 'from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z'),
        token: tokenFor(users.owner),
        headers: { accept: 'text/csv' },
      }),
    ]);

    expect(found.raw).toBe(
      'start,end,member,runs,charged,refunded,net\r\n2026-11-20T00:00:00.000Z,2026-11-21T00:00:00.000Z,"user,""odd""",1,1,0,1\r\n',
    );
    expect(empty.raw).toBe('start,end,runs,charged,refunded,net\r\n');
  });

  it('answers JSON when Accept prefers it or names neither', async () => {
    const { orgId, users } = await workspace();
    const url = usageUrl(orgId, 'from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z');
    for (const accept of ['application/json', '*/*', 'text/html', 'application/json, text/csv;q=0.5', 'text/csv;q=0']) {
      const answer = await call(handler, { url, token: tokenFor(users.owner), headers: { accept } });
      expect([accept, answer.headers['content-type']]).toEqual([accept, 'application/json']);
    }
  });
});

describe('GET /organizations/{organization_id}/usage: who sees what', () => {
  it('shows owners the organization, another member only its own runs, an API key only its own, a viewer nothing', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const key = await keyOf(orgId, users.owner, 'agent');
    const other = await keyOf(orgId, users.owner, 'other agent');
    for (const token of [key.token, other.token, tokenFor(users.editor), tokenFor(users.owner)]) {
      expect((await runWith(orgId, token)).status).toBe(200);
    }
    await stream.catchUp();
    const from = today().getTime();
    const url = usageUrl(orgId, `from=${iso(from)}&to=${iso(from + DAY_MS)}&group_by=member,api_key`);
    const resultsFor = async (token: string) => {
      const answer = await call(handler, { url, token });
      expect(answer.status).toBe(200);
      return answer.body.buckets[0].results;
    };
    const row = (member: string | null, apiKey: string | null) => ({ member, api_key: apiKey, runs: 1, charged: 1, refunded: 0, net: 1 });

    expect(await resultsFor(tokenFor(users.owner))).toEqual(
      [row(users.editor, null), row(users.owner, null)]
        .sort((a, b) => ((a.member ?? '') < (b.member ?? '') ? -1 : 1))
        .concat([row(null, key.id), row(null, other.id)].sort((a, b) => ((a.api_key ?? '') < (b.api_key ?? '') ? -1 : 1))),
    );
    expect(await resultsFor(tokenFor(users.editor))).toEqual([row(users.editor, null)]);
    expect(await resultsFor(key.token)).toEqual([row(null, key.id)]);
    expect(await resultsFor(tokenFor(users.viewer))).toEqual([]);
  });

  it('answers 404 to a non-member and for an unknown organization, with the same body', async () => {
    const { orgId } = await workspace();
    const url = (id: string) => usageUrl(id, 'from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z');

    const [stranger, unknown] = await Promise.all([
      call(handler, { url: url(orgId), token: tokenFor('someone_else') }),
      call(handler, { url: url('org_nothing_here'), token: tokenFor('someone_else') }),
    ]);

    expect([stranger.status, withoutRequestId(stranger.body)]).toEqual([404, { code: 'not_found', message: 'no such resource' }]);
    expect([unknown.status, withoutRequestId(unknown.body)]).toEqual([404, withoutRequestId(stranger.body)]);
  });

  it('reads the membership and the counters in one round trip, with the rate-limit counter', async () => {
    const { orgId, users } = await workspace();
    await stream.catchUp();
    const counter = countRoundTrips(db());
    try {
      const answer = await call(handler, {
        url: usageUrl(orgId, 'from=2026-11-01T00:00:00Z&to=2026-12-01T00:00:00Z'),
        token: tokenFor(users.owner),
      });
      expect(answer.status).toBe(200);
      expect(counter.log.sequential).toBe(1);
      expect(counter.log.commands).toEqual(['UpdateItemCommand', 'GetItemCommand', 'QueryCommand']);
    } finally {
      counter.stop();
    }
  });
});

describe('GET /organizations/{organization_id}/usage: 400 validation_failed naming the parameter', () => {
  const issuesOf = async (query: string) => {
    const { orgId, users } = await workspace();
    const answer = await call(handler, { url: usageUrl(orgId, query), token: tokenFor(users.owner), headers: { accept: 'text/csv' } });
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body.code).toBe('validation_failed');
    return answer.body.data.issues;
  };
  const now = today().getTime();

  it.each([
    [
      'from not on a day',
      'from=2026-11-20T01:00:00Z&to=2026-11-21T00:00:00Z',
      [{ path: ['query', 'from'], code: 'invalid_format', message: 'must be the start of a UTC day (00:00:00Z) with granularity=day' }],
    ],
    [
      'to not on an hour',
      'from=2026-11-20T01:00:00Z&to=2026-11-20T02:30:00Z&granularity=hour',
      [
        {
          path: ['query', 'to'],
          code: 'invalid_format',
          message: 'must be the start of a UTC hour (minutes, seconds and milliseconds zero) with granularity=hour',
        },
      ],
    ],
    [
      'to equal to from',
      'from=2026-11-20T00:00:00Z&to=2026-11-20T00:00:00Z',
      [{ path: ['query', 'to'], code: 'too_small', message: 'must be after from' }],
    ],
    [
      'to before from',
      'from=2026-11-20T00:00:00Z&to=2026-11-19T00:00:00Z',
      [{ path: ['query', 'to'], code: 'too_small', message: 'must be after from' }],
    ],
    [
      '169 hour buckets',
      'from=2026-11-01T00:00:00Z&to=2026-11-08T01:00:00Z&granularity=hour',
      [{ path: ['query', 'to'], code: 'too_big', message: 'must be at most 168 hours after from (168 buckets)' }],
    ],
    [
      '94 day buckets',
      `from=${iso(now - 94 * DAY_MS)}&to=${iso(now)}`,
      [{ path: ['query', 'to'], code: 'too_big', message: 'must be at most 93 days after from (93 buckets)' }],
    ],
    [
      'an unknown group_by key',
      'from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z&group_by=operation,project',
      [
        {
          path: ['query', 'group_by'],
          code: 'invalid_value',
          message: 'has an unknown key "project": one or more of operation, network, member, api_key, comma-separated',
        },
      ],
    ],
    [
      'a repeated group_by key',
      'from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z&group_by=member,operation,member',
      [{ path: ['query', 'group_by'], code: 'repeated', message: 'names "member" twice' }],
    ],
    [
      'an empty group_by entry',
      'from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z&group_by=member,',
      [
        {
          path: ['query', 'group_by'],
          code: 'invalid_value',
          message: 'has an empty entry: one or more of operation, network, member, api_key, comma-separated',
        },
      ],
    ],
    [
      'a timestamp with an offset',
      'from=2026-11-20T00:00:00%2B01:00&to=2026-11-21T00:00:00Z',
      [{ path: ['query', 'from'], code: 'invalid_format', message: 'must be an ISO 8601 UTC timestamp such as 2025-01-31T00:00:00Z' }],
    ],
    [
      'no from and no to',
      'granularity=day',
      [
        { path: ['query', 'from'], code: 'required', message: 'is required' },
        { path: ['query', 'to'], code: 'required', message: 'is required' },
      ],
    ],
    [
      'an unknown granularity',
      'from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z&granularity=week',
      [{ path: ['query', 'granularity'], code: 'invalid_value', message: 'must be one of "hour", "day"' }],
    ],
  ])('%s', async (_, query, issues) => {
    expect(await issuesOf(query)).toEqual(issues);
  });

  it('refuses a from older than 13 months, naming from and the earliest accepted', async () => {
    const earliest = new Date(today());
    earliest.setUTCMonth(earliest.getUTCMonth() - 13);
    // The day before the earliest accepted is refused; the earliest itself answers.
    const before = iso(earliest.getTime() - DAY_MS);
    const issues = await issuesOf(`from=${before}&to=${iso(earliest.getTime() + DAY_MS)}`);
    expect(issues).toEqual([
      {
        path: ['query', 'from'],
        code: 'too_small',
        message: expect.stringMatching(
          /^must be at most 13 months ago \(\d{4}-\d\d-\d\dT00:00:00\.000Z or later\): usage is kept 13 months$/,
        ),
      },
    ]);
    const { orgId, users } = await workspace();
    const accepted = await call(handler, {
      url: usageUrl(orgId, `from=${iso(earliest.getTime() + DAY_MS)}&to=${iso(earliest.getTime() + 2 * DAY_MS)}`),
      token: tokenFor(users.owner),
    });
    expect(accepted.status).toBe(200);
  });

  it('names every parameter at fault at once, before any read', async () => {
    expect(await issuesOf('from=2026-11-20T01:00:00Z&to=2026-11-20T00:30:00Z&group_by=who')).toEqual([
      expect.objectContaining({ path: ['query', 'from'], code: 'invalid_format' }),
      expect.objectContaining({ path: ['query', 'to'], code: 'invalid_format' }),
      expect.objectContaining({ path: ['query', 'to'], code: 'too_small' }),
      expect.objectContaining({ path: ['query', 'group_by'], code: 'invalid_value' }),
    ]);
  });
});
