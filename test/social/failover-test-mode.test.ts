/**
 * Failover's test mode as docs/social-operations.md ("Test mode for failover") tells an operator to
 * try it: two sample providers (`SOCIAL_PROVIDER=sample,sample_backup`), the words `sample_down`
 * and `sample_backup_down` in an input, and `SOCIAL_TEST_FAULTS` under `SOCIAL_TEST_MODE=true`.
 * Each run through the real handler: who served it (`Social-Provider`), and what it cost.
 */
import { describe, expect, it } from 'vitest';

Object.assign(process.env, {
  SOCIAL_PROVIDER: 'sample,sample_backup',
  SOCIAL_TEST_MODE: 'true',
  SOCIAL_TEST_FAULTS: 'x_profile=sample@nasa',
});
const { handler } = await import('../../functions/run-social-operation.ts');
const { getOrganization } = await import('../../lib/db/organizations.ts');
const { workspace } = await import('../support/fixtures.ts');
const { call } = await import('../support/http.ts');
const { tokenFor } = await import('../support/tokens.ts');
const { runUrl } = await import('../support/social.ts');

describe('failover in test mode, two sample providers', () => {
  it('serves from the other provider when one is down by word or by SOCIAL_TEST_FAULTS, and refunds when both are', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const run = (operation: string, body: unknown) =>
      call(handler, { method: 'POST', url: runUrl(operation, orgId), token: tokenFor(users.editor), body });

    const [first, backup, primary, faulted, untouched, both] = [
      await run('tiktok_profile', { handle: 'nike' }),
      await run('tiktok_profile', { handle: 'sample_down' }),
      await run('tiktok_profile', { handle: 'sample_backup_down' }),
      await run('x_profile', { handle: 'nasa' }),
      await run('x_profile', { handle: 'esa' }),
      await run('tiktok_search', { query: 'cats sample_down sample_backup_down' }),
    ];

    expect([first, backup, primary, faulted, untouched].map((answer) => [answer.status, answer.headers['social-provider']])).toEqual([
      [200, 'sample'],
      [200, 'sample (backup)'],
      [200, 'sample'],
      [200, 'sample (backup)'],
      [200, 'sample'],
    ]);
    expect([both.status, both.body.code]).toEqual([500, 'upstream_failed']);
    // Five runs charged once each; the one every provider failed refunded.
    expect((await getOrganization(orgId))?.credits).toBe(10 - 5);
  });
});
