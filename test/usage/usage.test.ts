import { afterAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/get-usage.ts';
import { refundRun, settleRun } from '../../lib/billing/paid-run.ts';
import { chargeDirectly } from '../support/charges.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { startTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';

const stream = startTableStream();
afterAll(() => stream.stop());

const usageUrl = (orgId: string, query: string) => `/organizations/${orgId}/usage?${query}`;

describe('GET /organizations/{organization_id}/usage', () => {
  it('counts charges and refunds by hour', async () => {
    const { orgId, users } = await workspace({ credits: 100 });
    const at = new Date('2026-11-20T10:15:00.000Z');
    const first = await chargeDirectly({ orgId, userId: users.editor, operation: 'x_profile', cost: 3, now: at });
    await settleRun(first, undefined, { untilMs: Date.now() + 5000, nowMs: Date.now() });
    const second = await chargeDirectly({ orgId, userId: users.owner, operation: 'tiktok_profile', cost: 2, now: at });
    await refundRun(second, 'test', { now: new Date('2026-11-20T11:05:00.000Z') });
    await stream.catchUp();

    const answer = await call(handler, {
      url: usageUrl(orgId, 'from=2026-11-20T10:00:00Z&to=2026-11-20T12:00:00Z&granularity=hour&group_by=member'),
      token: tokenFor(users.owner),
    });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      from: '2026-11-20T10:00:00.000Z',
      to: '2026-11-20T12:00:00.000Z',
      granularity: 'hour',
      group_by: ['member'],
      buckets: [
        {
          start: '2026-11-20T10:00:00.000Z',
          end: '2026-11-20T11:00:00.000Z',
          results: [
            { member: users.editor, runs: 1, charged: 3, refunded: 0, net: 3 },
            { member: users.owner, runs: 1, charged: 2, refunded: 0, net: 2 },
          ].sort((a, b) => (a.member < b.member ? -1 : 1)),
        },
        {
          start: '2026-11-20T11:00:00.000Z',
          end: '2026-11-20T12:00:00.000Z',
          results: [{ member: users.owner, runs: 0, charged: 0, refunded: 2, net: -2 }],
        },
      ],
    });
  });
});
