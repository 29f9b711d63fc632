/**
 * Charges a program can follow: a run's `Charge-Id` is its charge event's id; charge and refund
 * events carry `metadata` naming the operation, the charge, the user and the request (whoever
 * refunds); grants and deductions carry their reason, grants their grant's id.
 */
import { describe, expect, it, vi } from 'vitest';
import { handler as eventsHandler } from '../../functions/list-billing-events.ts';
import { handler as runHandler } from '../../functions/run-social-operation.ts';
import { grantCredits } from '../../lib/billing/grants.ts';
import { sweepPendingRuns } from '../../lib/billing/sweeper.ts';
import { deductCredits } from '../../lib/db/organizations.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { UpstreamError } from '../../lib/social/providers/types.ts';
import { chargeDirectly } from '../support/charges.ts';
import { TEST_OPERATOR, workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const run = (orgId: string, user: string) =>
  call(runHandler, { method: 'POST', url: runUrl('tiktok_profile', orgId), token: tokenFor(user), body: { handle: 'nasa' } });

/** The organization's events through the API, oldest first. */
async function events(orgId: string, owner: string) {
  const answer = await call(eventsHandler, { url: `/organizations/${orgId}/billing/events?days=30`, token: tokenFor(owner) });
  expect(answer.status).toBe(200);
  return [...answer.body.events].reverse() as { id: string; type: string; metadata: Record<string, string> }[];
}

describe('billing event metadata', () => {
  it("names a run's charge: Charge-Id is the event's id, with the operation, the user and the request", async () => {
    const { orgId, users } = await workspace({ credits: 5 });

    const answer = await run(orgId, users.editor);

    const charged = (await events(orgId, users.owner)).find((event) => event.type === 'social_operation.charged');
    expect(charged?.id).toBe(answer.headers['charge-id']);
    expect(charged?.metadata).toEqual({
      operation: 'tiktok_profile',
      charge_id: answer.headers['charge-id'],
      user_id: users.editor,
      request_id: answer.headers['x-request-id'],
    });
  });

  it('names the same charge and request on the refund of a failed run', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const spy = vi.spyOn(sampleProvider, 'run').mockRejectedValueOnce(new UpstreamError('down'));

    const answer = await run(orgId, users.editor).finally(() => spy.mockRestore());

    expect(answer.status).toBe(500);
    const [, charged, refunded] = await events(orgId, users.owner);
    expect(refunded?.type).toBe('social_operation.refunded');
    // Plus the providers tried, which the health counters read (docs/social-operations.md, "Health").
    expect(refunded?.metadata).toEqual({
      ...charged?.metadata,
      request_id: answer.headers['x-request-id'],
      attempts: expect.stringMatching(/^sample:fail:\d+$/),
    });
    expect(refunded?.metadata.charge_id).toBe(charged?.id);
  });

  it("names the charging request on the sweeper's refund of a run that died", async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const lost = await chargeDirectly({ orgId, userId: users.editor, sweepAfterMs: Date.now() - 1000, requestId: 'req-that-died' });

    expect((await sweepPendingRuns()).refunded).toBeGreaterThanOrEqual(1);

    const refunded = (await events(orgId, users.owner)).find((event) => event.type === 'social_operation.refunded');
    expect(refunded?.metadata).toEqual({
      operation: 'tiktok_profile',
      charge_id: lost.eventId,
      user_id: users.editor,
      request_id: 'req-that-died',
    });
  });

  it('gives grants and deductions their reason, and the opening balance its own', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    await grantCredits(orgId, 10, new Date(), 'monthly top-up, invoice 77');
    await grantCredits(orgId, 1);
    await deductCredits(orgId, 2, 'chargeback', TEST_OPERATOR);

    const reasons = (await events(orgId, users.owner)).map((event) => [event.type, event.metadata]);
    expect(reasons).toEqual([
      ['credits.granted', { reason: 'opening balance', grant_id: expect.stringMatching(/^grt_/) }],
      ['credits.granted', { reason: 'monthly top-up, invoice 77', grant_id: expect.stringMatching(/^grt_/) }],
      ['credits.granted', { reason: 'credits granted by an operator', grant_id: expect.stringMatching(/^grt_/) }],
      ['credits.deducted', { reason: 'chargeback' }],
    ]);
  });
});
