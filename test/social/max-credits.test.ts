/**
 * A cap per call (docs/charges.md, "A cap per call"): `Max-Credits: N` on a run, its quote, and
 * `_meta.max_credits` on an MCP tools/call. What this call would be charged (its cost, or its
 * cached cost on a cache hit) above N answers 402 `max_credits_exceeded` and charges nothing,
 * first of the 402s; an Idempotency-Key replay replays what was recorded. Through the real
 * handlers on DynamoDB Local.
 */
import { describe, expect, it } from 'vitest';
import { handler as mcpHandler } from '../../functions/mcp.ts';
import { handler as quote } from '../../functions/quote-social-operation.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { getOrganization } from '../../lib/db/organizations.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

/** linkedin_search_people costs 3 credits (0 from the cache). */
const OPERATION = 'linkedin_search_people';
const INPUT = { query: 'data engineer' };

const run = (orgId: string, user: string, headers: Record<string, string> = {}) =>
  call(runOperation, { method: 'POST', url: runUrl(OPERATION, orgId), token: tokenFor(user), body: INPUT, headers });

const capped = (cost: number, max: number) => ({
  code: 'max_credits_exceeded',
  message: `this call would be charged ${cost} credit${cost === 1 ? '' : 's'} and allows at most ${max} (Max-Credits); nothing was charged`,
  data: { cost, max_credits: max },
});

const charges = async (orgId: string) => (await eventsOf(orgId)).filter((event) => event.type.startsWith('social_operation.'));

describe('Max-Credits on POST /social/{operation}', () => {
  it('refuses a call that would be charged more, with 402 max_credits_exceeded, charging nothing', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const answer = await run(orgId, users.editor, { 'Max-Credits': '2' });
    expect(answer.status).toBe(402);
    expect(withoutRequestId(answer.body)).toEqual(capped(3, 2));
    expect((await getOrganization(orgId))?.credits).toBe(10);
    expect(await charges(orgId)).toEqual([]);
  });

  it('lets a call charged at most the cap through: the cost itself, and a cache hit at its cached cost', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const exact = await run(orgId, users.editor, { 'Max-Credits': '3' });
    const fromCache = await run(orgId, users.editor, { 'Max-Credits': '0', 'Cache-Control': 'max-age=600' });
    const uncached = await run(orgId, users.editor, { 'Max-Credits': '0' });
    expect(exact.status).toBe(200);
    expect(exact.headers['credits-charged']).toBe('3');
    expect(fromCache.status).toBe(200);
    expect(fromCache.headers['credits-charged']).toBe('0');
    expect(uncached.status).toBe(402);
    expect(withoutRequestId(uncached.body)).toEqual(capped(3, 0));
    expect((await getOrganization(orgId))?.credits).toBe(7);
  });

  it('answers first among the 402s: before a limit and before the balance', async () => {
    const { orgId, users } = await workspace({ credits: 0, spendingLimit: 0 });
    const answer = await run(orgId, users.editor, { 'Max-Credits': '1' });
    expect(withoutRequestId(answer.body)).toEqual(capped(3, 1));
  });

  it('comes after the 403s: a viewer is refused for the role', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const answer = await run(orgId, users.viewer, { 'Max-Credits': '0' });
    expect(answer.status).toBe(403);
  });

  it('is not part of an Idempotency-Key’s identity: a replay replays what was recorded, whatever its cap', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const key = uniqueId('idem-');
    const first = await run(orgId, users.editor, { 'Idempotency-Key': key, 'Max-Credits': '5' });
    const replay = await run(orgId, users.editor, { 'Idempotency-Key': key, 'Max-Credits': '1' });
    const refusedFirst = await run(orgId, users.editor, { 'Idempotency-Key': uniqueId('idem-'), 'Max-Credits': '1' });

    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(refusedFirst.status).toBe(402);
    expect((await getOrganization(orgId))?.credits).toBe(7);
  });

  it.each([
    '1.5',
    '-1',
    '+2',
    '1e3',
    '1000001',
    '99999999',
    'abc',
    '',
    ' ',
  ])('refuses Max-Credits %j with 400 naming the header', async (value) => {
    const { orgId, users } = await workspace({ credits: 10 });
    const answer = await run(orgId, users.editor, { 'Max-Credits': value });
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues).toEqual(
      [{ path: ['header', 'max-credits'], code: 'invalid_format', message: expect.stringContaining('from 0 to 1000000') }].map((issue) =>
        /^[0-9]{1,7}$/.test(value) ? { ...issue, code: 'too_big' } : issue,
      ),
    );
    expect((await getOrganization(orgId))?.credits).toBe(10);
  });

  it('accepts the bounds: 0 and 1000000', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    expect((await run(orgId, users.editor, { 'Max-Credits': '1000000' })).status).toBe(200);
    expect((await run(orgId, users.editor, { 'Max-Credits': '0' })).status).toBe(402);
  });
});

describe('Max-Credits on a quote', () => {
  it('reports the same refusal, charging nothing, and none when the cost is within it', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const ask = (max: string) =>
      call(quote, {
        method: 'POST',
        url: `/social/${OPERATION}/quote?organization_id=${orgId}`,
        token: tokenFor(users.editor),
        body: INPUT,
        headers: { 'Max-Credits': max },
      });
    const over = await ask('2');
    const within = await ask('3');
    expect(over.body).toMatchObject({ cost: 3, allowed: false, refusal: capped(3, 2) });
    expect(within.body).toMatchObject({ cost: 3, allowed: true, refusal: null });
    expect((await ask('x')).status).toBe(400);
  });
});

describe('_meta.max_credits on MCP tools/call', () => {
  const toolsCall = (orgId: string, user: string, meta: Record<string, unknown>) =>
    call(mcpHandler, {
      method: 'POST',
      url: `/mcp?organization_id=${orgId}`,
      token: tokenFor(user),
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: OPERATION, arguments: INPUT, _meta: meta } },
    });
  const bodyOf = (answer: { body: any }) => JSON.parse(answer.body.result.content[0].text);

  it('refuses as a tool result with isError and the code; within the cap it runs', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const over = await toolsCall(orgId, users.editor, { max_credits: 2 });
    const within = await toolsCall(orgId, users.editor, { max_credits: 3 });
    expect(over.status).toBe(200);
    expect(over.body.result.isError).toBe(true);
    expect(withoutRequestId(bodyOf(over))).toEqual(capped(3, 2));
    expect(within.body.result.isError).toBeUndefined();
    expect(within.body.result._meta).toMatchObject({ credits_charged: 3 });
    expect((await getOrganization(orgId))?.credits).toBe(7);
  });

  it.each([-1, 1.5, '3', 1_000_001, null])('refuses _meta.max_credits %j as a tool result with validation_failed', async (value) => {
    const { orgId, users } = await workspace({ credits: 10 });
    const answer = await toolsCall(orgId, users.editor, { max_credits: value });
    expect(answer.body.result.isError).toBe(true);
    expect(withoutRequestId(bodyOf(answer))).toEqual({
      code: 'validation_failed',
      message: '_meta.max_credits: must be a whole number of credits from 0 to 1000000',
      data: {
        issues: [{ path: ['_meta', 'max_credits'], code: 'invalid_value', message: 'must be a whole number of credits from 0 to 1000000' }],
      },
    });
    expect((await getOrganization(orgId))?.credits).toBe(10);
  });
});
