import { describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/run-social-operation.ts';
import { db } from '../../lib/db/client.ts';
import { getOrganization, setNetworks } from '../../lib/db/organizations.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { TEST_OPERATOR, uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { eventsOf, runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const run = (orgId: string, user: string, operation = 'tiktok_profile', body: unknown = { handle: '@nasa' }, headers = {}) =>
  call(handler, { method: 'POST', url: runUrl(operation, orgId), token: tokenFor(user), body, headers });

describe('POST /social/{operation}', () => {
  it.each(['editor', 'owner'] as const)('runs for an %s: output, credit headers, balance and charge event', async (role) => {
    // Prepare
    const { orgId, users } = await workspace({ credits: 7 });

    // Act
    const answer = await run(orgId, users[role]);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers['credits-charged']).toBe('1');
    expect(answer.headers['credits-remaining']).toBe('6');
    expect(answer.body).toMatchObject({ network: 'tiktok', username: 'nasa', url: 'https://www.tiktok.com/@nasa' });
    expect((await getOrganization(orgId))!.credits).toBe(6);
    expect((await eventsOf(orgId)).slice(-1)).toEqual([
      { type: 'social_operation.charged', amount: -1, title: 'tiktok_profile', description: `tiktok_profile run by ${users[role]}` },
    ]);
  });

  it('gives the same output for the same input (sample provider)', async () => {
    const { orgId, users } = await workspace({ credits: 2 });
    const first = await run(orgId, users.editor);
    const second = await run(orgId, users.editor);
    expect(second.body).toEqual(first.body);
  });

  it('charges the cost of the operation from the catalog', async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    const answer = await run(orgId, users.editor, 'tiktok_trend_scan', { region: 'US' });
    expect(answer.headers['credits-charged']).toBe('5');
    expect(answer.headers['credits-remaining']).toBe('5');
  });

  describe('who may run', () => {
    it('a viewer gets 403 and is not charged', async () => {
      const { orgId, users } = await workspace({ credits: 5 });
      const answer = await run(orgId, users.viewer);
      expect(answer.status).toBe(403);
      expect(withoutRequestId(answer.body)).toEqual({ code: 'forbidden', message: 'only editors and owners can run social operations' });
      expect((await getOrganization(orgId))!.credits).toBe(5);
    });

    it('a non-member and an unknown organization get the same 403', async () => {
      const { orgId } = await workspace({ credits: 5 });
      const stranger = uniqueId('stranger_');
      const notMember = await run(orgId, stranger);
      const noSuchOrg = await run(uniqueId('org_'), stranger);
      expect(notMember.status).toBe(403);
      expect(withoutRequestId(notMember.body)).toEqual({ code: 'forbidden', message: 'you are not a member of this organization' });
      expect(withoutRequestId(noSuchOrg.body)).toEqual(withoutRequestId(notMember.body));
    });
  });

  describe('which operations', () => {
    it('an unknown operation name gets 404 not_found naming it (test/error-messages.test.ts: suggestions)', async () => {
      const { orgId, users } = await workspace({ credits: 5 });
      const answer = await run(orgId, users.editor, 'myspace_profile');
      expect(answer.status).toBe(404);
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'not_found',
        message: 'no operation is named "myspace_profile"; GET /social/operations lists the operations this organization can run',
      });
    });

    it('an operation of a network that is not enabled gets 403 operation_not_enabled, uncharged', async () => {
      const { orgId, users } = await workspace({ credits: 5, networks: ['reddit'] });
      const answer = await run(orgId, users.editor);
      expect(answer.status).toBe(403);
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'operation_not_enabled',
        message: 'operation tiktok_profile is not enabled for this organization: its tiktok network is turned off',
      });
      expect((await getOrganization(orgId))!.credits).toBe(5);
      expect(await eventsOf(orgId)).toHaveLength(1); // the opening grant only
    });

    it('resolve_mention runs whatever networks are enabled', async () => {
      const { orgId, users } = await workspace({ credits: 5, networks: [] });
      const answer = await run(orgId, users.editor, 'resolve_mention', { mention: 'youtube.com/@NASA' });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        match: { network: 'youtube', kind: 'channel', handle: 'nasa', url: 'https://www.youtube.com/@nasa' },
        status: 'unverified',
      });
    });

    it('a network disabled between two runs is refused on the second', async () => {
      const { orgId, users } = await workspace({ credits: 5 });
      expect((await run(orgId, users.editor)).status).toBe(200);
      await setNetworks(orgId, ['x'], TEST_OPERATOR);
      expect((await run(orgId, users.editor)).status).toBe(403);
    });
  });

  describe('input validation', () => {
    it.each([
      [{ handle: 'not a handle!' }, ['body', 'handle'], 'invalid_format'],
      [{ handle: 42 }, ['body', 'handle'], 'invalid_type'],
      [{ handle: 'nasa', handel: 'typo' }, ['body'], 'unrecognized_keys'],
      [[], ['body'], 'invalid_type'],
    ])('%j → 400 naming %j', async (body, path, code) => {
      const { orgId, users } = await workspace({ credits: 5 });
      const answer = await run(orgId, users.editor, 'tiktok_profile', body);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
      expect(answer.body.data.issues).toEqual([expect.objectContaining({ path, code })]);
      expect((await getOrganization(orgId))!.credits).toBe(5);
    });

    it('an empty body is an empty input: 400 naming the required field', async () => {
      const { orgId, users } = await workspace({ credits: 5 });
      const answer = await call(handler, { method: 'POST', url: runUrl('x_profile', orgId), token: tokenFor(users.editor) });
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'validation_failed',
        message: 'body.handle: is required',
        data: { issues: [{ path: ['body', 'handle'], code: 'required', message: 'is required' }] },
      });
    });

    it('a body that is not JSON → 400 invalid_json', async () => {
      const { orgId, users } = await workspace({ credits: 5 });
      const answer = await run(orgId, users.editor, 'tiktok_profile', '{"handle":');
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('invalid_json');
    });

    it('a URL on another network is refused with a message saying what is expected', async () => {
      const { orgId, users } = await workspace({ credits: 5 });
      const answer = await run(orgId, users.editor, 'instagram_post', { url: 'https://www.tiktok.com/@nasa/video/1' });
      expect(answer.body.data.issues).toEqual([
        {
          path: ['body', 'url'],
          code: 'invalid_format',
          message: 'must be an instagram.com post or reel URL, e.g. https://www.instagram.com/p/C8xYz12AbCd/',
        },
      ]);
    });

    it('applies defaults and bounds counts', async () => {
      const { orgId, users } = await workspace({ credits: 5 });
      const tooMany = await run(orgId, users.editor, 'x_search', { query: 'nasa', count: 101 });
      expect(tooMany.body.data.issues).toEqual([expect.objectContaining({ path: ['body', 'count'], code: 'too_big' })]);
      const byDefault = await run(orgId, users.editor, 'x_search', { query: 'nasa' });
      expect(byDefault.body.items).toHaveLength(20);
    });
  });

  it('pages: next_cursor leads to the next page until has_more is false', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const pages = [];
    let cursor: string | undefined;
    do {
      const answer = await run(orgId, users.editor, 'reddit_subreddit_posts', { subreddit: 'aws', ...(cursor ? { cursor } : {}) });
      pages.push(answer.body);
      cursor = answer.body.next_cursor ?? undefined;
    } while (cursor);
    expect(pages.map((page) => [page.next_cursor, page.has_more])).toEqual([
      ['sample-page-2', true],
      ['sample-page-3', true],
      [null, false],
    ]);
  });

  it('takes two sequential DynamoDB round trips before the provider call (counter + reads, then the charge)', async () => {
    const { orgId, users } = await workspace({ credits: 5 });
    const counter = countRoundTrips(db());
    const seen: { sequential: number; commands: string[] }[] = [];
    const original = sampleProvider.run.bind(sampleProvider);
    const spy = vi.spyOn(sampleProvider, 'run').mockImplementation(async (request) => {
      seen.push({ sequential: counter.log.sequential, commands: [...counter.log.commands] });
      return original(request);
    });
    try {
      const answer = await run(orgId, users.editor);
      expect(answer.status).toBe(200);
      expect(seen).toEqual([
        { sequential: 2, commands: ['UpdateItemCommand', 'GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand'] },
      ]);
    } finally {
      spy.mockRestore();
      counter.stop();
    }
  });
});
