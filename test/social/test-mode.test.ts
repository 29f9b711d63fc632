/**
 * Test mode of the sample provider (docs/social-operations.md, "Test mode"): magic words in an
 * input make it fail as a real provider does, so a client rehearses refunds and errors locally;
 * and every sample answer says it is sample data. A short provider timeout so that the timeout
 * case ends quickly: set before the service is imported.
 */
import { describe, expect, it } from 'vitest';

process.env.PROVIDER_TIMEOUT_MS = '300';
const { handler } = await import('../../functions/run-social-operation.ts');
const { handler: mcpHandler } = await import('../../functions/mcp.ts');
const { getOrganization } = await import('../../lib/db/organizations.ts');
const { TEST_FAILURES } = await import('../../lib/social/providers/sample.ts');
const { workspace } = await import('../support/fixtures.ts');
const { call, withoutRequestId } = await import('../support/http.ts');
const { tokenFor } = await import('../support/tokens.ts');
const { eventsOf, runUrl } = await import('../support/social.ts');

const run = (orgId: string, user: string, operation: string, body: unknown) =>
  call(handler, { method: 'POST', url: runUrl(operation, orgId), token: tokenFor(user), body });

describe('the sample provider in test mode', () => {
  it.each([
    ['sample_timeout', 'tiktok_profile', { handle: 'sample_timeout' }, 500, 'upstream_failed'],
    ['sample_upstream_error', 'instagram_profile', { handle: 'sample_upstream_error' }, 500, 'upstream_failed'],
    ['sample_not_found', 'x_profile', { handle: 'sample_not_found' }, 404, 'not_found'],
    ['sample_malformed', 'tiktok_profile', { handle: 'sample_malformed' }, 500, 'upstream_failed'],
    ['sample_not_found in a search query', 'tiktok_search', { query: 'cats sample_not_found' }, 404, 'not_found'],
  ])('%s (%s %o): answers %i %s, refunds the charge, and the balance is back', async (_word, operation, body, status, code) => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 5 });

    // Act
    const answer = await run(orgId, users.editor, operation, body);

    // Assess
    expect(answer.status).toBe(status);
    expect(answer.body.code).toBe(code);
    expect(answer.headers['credits-charged']).toBeUndefined();
    expect((await eventsOf(orgId)).map((event) => [event.type, event.amount])).toEqual([
      ['credits.granted', 5],
      ['social_operation.charged', -1],
      ['social_operation.refunded', 1],
    ]);
    expect((await getOrganization(orgId))?.credits).toBe(5);
  });

  it('documents every word it knows', () => {
    expect(Object.keys(TEST_FAILURES).sort()).toEqual(['sample_malformed', 'sample_not_found', 'sample_timeout', 'sample_upstream_error']);
  });

  it('answers the not-found case with the body a real provider gets', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const answer = await run(orgId, users.editor, 'x_profile', { handle: 'sample_not_found' });
    expect(withoutRequestId(answer.body)).toEqual({ code: 'not_found', message: 'not found on x (sample provider, test mode)' });
  });
});

describe('sample data is marked as such', () => {
  it('with Sample-Data: true on a run, and sample_data in an MCP result', async () => {
    const { orgId, users } = await workspace({ credits: 5 });

    const answer = await run(orgId, users.editor, 'tiktok_profile', { handle: 'nasa' });
    const tool = await call(mcpHandler, {
      method: 'POST',
      url: `/mcp?organization_id=${orgId}`,
      token: tokenFor(users.editor),
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tiktok_profile', arguments: { handle: 'nasa' } } },
    });

    expect(answer.headers['sample-data']).toBe('true');
    expect(tool.body.result._meta.sample_data).toBe(true);
  });
});
