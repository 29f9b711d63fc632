/**
 * Alerts found late, as when the stream consumer was stopped or behind (docs/alerts.md): runs
 * answer as before while nothing reads the stream, and when the consumer catches up, each
 * threshold is judged against the limit the crossing charge was held to (kept on the counter by
 * the charge), not against the limit the scope has by then.
 */
import { describe, expect, it } from 'vitest';
import { handler as createWebhook } from '../../functions/create-webhook.ts';
import { handler as putSettings } from '../../functions/put-alert-settings.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { handler as updateOrganization } from '../../functions/update-organization.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { drainJobs } from '../support/jobs.ts';
import { runUrl } from '../support/social.ts';
import { startTableStream, turnOnTableStream } from '../support/table-stream.ts';
import { tokenFor } from '../support/tokens.ts';
import { receiver } from './receivers.ts';

// On before anything is written; read only once the runs are done.
await turnOnTableStream();

describe('the consumer stopped while runs cross thresholds', () => {
  it('lets the runs answer as before, then sends each crossing against the limit of its charge, though raised since', async () => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 100, spendingLimit: 10 });
    const owner = tokenFor(users.owner);
    await call(putSettings, {
      method: 'PUT',
      url: `/organizations/${orgId}/alerts`,
      token: owner,
      body: { low_balance: null, thresholds: [50, 80] },
    });
    const hook = await receiver();
    await call(createWebhook, {
      method: 'POST',
      url: `/organizations/${orgId}/webhooks`,
      token: owner,
      body: { url: hook.url, events: ['spending_limit.threshold_reached'] },
    });

    // Act: 8 runs with no consumer, then the limit raised to 100, then the consumer started.
    const answers = [];
    for (let i = 0; i < 8; i += 1)
      answers.push(
        (
          await call(runOperation, {
            method: 'POST',
            url: runUrl('x_profile', orgId),
            token: tokenFor(users.editor),
            body: { handle: 'nasa' },
          })
        ).status,
      );
    const raised = await call(updateOrganization, {
      method: 'PATCH',
      url: `/organizations/${orgId}`,
      token: owner,
      body: { spending_limit: 100 },
    });
    const stream = await startTableStream();
    try {
      await stream.catchUp();
      await drainJobs({ webhookBackoffMs: 20 });
    } finally {
      await stream.stop();
    }

    // Assess: 50 % at the 5th run and 80 % at the 8th, of the 10 they were charged under.
    expect(answers).toEqual(Array(8).fill(200));
    expect(raised.status).toBe(200);
    expect(
      hook
        .events()
        .map((event) => event.data)
        .sort((a, b) => a.threshold - b.threshold),
    ).toEqual([
      { scope: 'organization', id: orgId, period: 'month', threshold: 50, spending_limit: 10, spent: 5 },
      { scope: 'organization', id: orgId, period: 'month', threshold: 80, spending_limit: 10, spent: 8 },
    ]);
  });
});
