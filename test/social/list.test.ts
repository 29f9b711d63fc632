import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/list-social-operations.ts';
import { db } from '../../lib/db/client.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { descriptors, OPERATION_NAMES } from '../../lib/social/catalog/index.ts';
import { forgetStatusPage, statusPage } from '../../lib/social/health/status.ts';
import { listSocialOperations } from '../../lib/social/list.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { tokenFor } from '../support/tokens.ts';

const listUrl = (orgId: string) => `/social/operations?organization_id=${orgId}`;
/** An operation as the listing shows it on a deployment whose provider serves it. */
const listed = (name: string) => ({ ...descriptors().get(name), available: true, provider: 'sample' });
const SAMPLE = { name: 'sample', sample_data: true };

describe('GET /social/operations', () => {
  it.each(['viewer', 'editor', 'owner'] as const)('lists all 52 operations to a %s of a workspace with every network', async (role) => {
    const { orgId, users } = await workspace();
    const answer = await call(handler, { url: listUrl(orgId), token: tokenFor(users[role]) });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body).toEqual({ provider: SAMPLE, operations: OPERATION_NAMES.map(listed) });
  });

  it('returns each descriptor with the documented fields', async () => {
    const { orgId, users } = await workspace({ networks: ['x'] });
    const answer = await call(handler, { url: listUrl(orgId), token: tokenFor(users.viewer) });
    const profile = answer.body.operations.find((operation: { name: string }) => operation.name === 'x_profile');
    expect(profile).toEqual({
      name: 'x_profile',
      network: 'x',
      description: 'Get an X account by handle: bio, location, followers, following and post counts. Costs 1 credit.',
      cost: 1,
      cached_cost: 0,
      available: true,
      provider: 'sample',
      input_schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          handle: {
            type: 'string',
            minLength: 1,
            maxLength: 100,
            pattern: '^@?[A-Za-z0-9._-]{1,100}$',
            description: 'X handle, with or without the leading "@"',
          },
        },
        required: ['handle'],
        additionalProperties: false,
      },
      output_schema: expect.objectContaining({ type: 'object', required: expect.arrayContaining(['id', 'username', 'followers']) }),
    });
  });

  it('lists only the operations of enabled networks, plus resolve_mention', async () => {
    const { orgId, users } = await workspace({ networks: ['reddit', 'youtube'] });
    const answer = await call(handler, { url: listUrl(orgId), token: tokenFor(users.viewer) });
    expect(answer.body.operations.map((operation: { name: string }) => operation.name)).toEqual([
      'youtube_channel',
      'youtube_channel_videos',
      'youtube_channel_playlists',
      'youtube_channel_shorts',
      'youtube_video',
      'youtube_search',
      'youtube_trending',
      'reddit_search',
      'reddit_subreddit_posts',
      'reddit_post',
      'reddit_post_comments',
      'resolve_mention',
    ]);
  });

  it('lists only resolve_mention when no network is enabled', async () => {
    const { orgId, users } = await workspace({ networks: [] });
    const answer = await call(handler, { url: listUrl(orgId), token: tokenFor(users.owner) });
    expect(answer.body.operations.map((operation: { name: string }) => operation.name)).toEqual(['resolve_mention']);
  });

  it('with include=unavailable lists the same on a provider that serves every operation: nothing is unavailable', async () => {
    const { orgId, users } = await workspace({ networks: ['x'] });
    const plain = await call(handler, { url: listUrl(orgId), token: tokenFor(users.viewer) });
    const all = await call(handler, { url: `${listUrl(orgId)}&include=unavailable`, token: tokenFor(users.viewer) });
    expect(all.status).toBe(200);
    expect(all.body).toEqual(plain.body);
    expect(all.body.operations.every((operation: { available: boolean }) => operation.available)).toBe(true);
  });

  it('refuses another include with 400 naming query.include', async () => {
    const { orgId, users } = await workspace();
    const answer = await call(handler, { url: `${listUrl(orgId)}&include=everything`, token: tokenFor(users.viewer) });
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues).toEqual([
      { path: ['query', 'include'], code: 'invalid_format', message: 'must be "unavailable", "health" or "unavailable,health"' },
    ]);
  });

  it('a non-member and an unknown organization get the same 403', async () => {
    const { orgId } = await workspace();
    const stranger = tokenFor(uniqueId('stranger_'));
    const notMember = await call(handler, { url: listUrl(orgId), token: stranger });
    const noSuchOrg = await call(handler, { url: listUrl(uniqueId('org_')), token: stranger });
    expect(notMember.status).toBe(403);
    expect(withoutRequestId(notMember.body)).toEqual({ code: 'forbidden', message: 'you are not a member of this organization' });
    expect(noSuchOrg.status).toBe(403);
    expect(withoutRequestId(noSuchOrg.body)).toEqual(withoutRequestId(notMember.body));
  });

  it.each([
    ['', 'required', 'is required'],
    ['organization_id=acme', 'invalid_format', 'must start with "org_" followed by 1 to 64 letters, digits, "_" or "-"'],
  ])('?%s → 400 naming query.organization_id', async (queryString, code, message) => {
    const answer = await call(handler, { url: `/social/operations?${queryString}`, token: tokenFor(uniqueId('u_')) });
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues).toEqual([{ path: ['query', 'organization_id'], code, message }]);
  });

  it('is not refused with 402 when the organization has no credits', async () => {
    const { orgId, users } = await workspace({ credits: 0, spendingLimit: 0 });
    expect((await call(handler, { url: listUrl(orgId), token: tokenFor(users.viewer) })).status).toBe(200);
  });

  it('takes one DynamoDB round trip: counter, organization and membership together (and with include=health, one Query beside them)', async () => {
    const { orgId, users } = await workspace({ networks: ['x'] });
    forgetStatusPage();
    const counter = countRoundTrips(db());
    try {
      const answer = await call(handler, { url: listUrl(orgId), token: tokenFor(users.viewer) });
      expect(answer.status).toBe(200);
      expect(counter.log.sequential).toBe(1);
      expect(counter.log.commands.sort()).toEqual(['GetItemCommand', 'GetItemCommand', 'UpdateItemCommand']);
      counter.reset();
      const health = await call(handler, { url: `${listUrl(orgId)}&include=health`, token: tokenFor(users.viewer) });
      expect(counter.log.sequential).toBe(1);
      expect(counter.log.commands.sort()).toEqual(['GetItemCommand', 'GetItemCommand', 'QueryCommand', 'UpdateItemCommand']);
      // Each operation's status is the status page's word for it; nothing else changes.
      const page = await statusPage();
      const statusOf = new Map(page.operations.map((entry) => [entry.operation, entry.status]));
      expect(health.body).toEqual({
        ...answer.body,
        operations: answer.body.operations.map((operation: { name: string }) => ({ ...operation, status: statusOf.get(operation.name) })),
      });
      expect(health.body.operations[0].status).toBe('operational');
      const both = await call(handler, { url: `${listUrl(orgId)}&include=unavailable,health`, token: tokenFor(users.viewer) });
      expect(both.body).toEqual(health.body);
    } finally {
      counter.stop();
    }
  });

  it('serves each organization the listing of its own networks, byte for byte the same on every request', async () => {
    const [onlyX, onlyReddit, otherX] = await Promise.all([
      workspace({ networks: ['x'] }),
      workspace({ networks: ['reddit'] }),
      workspace({ networks: ['x'] }),
    ]);
    const list = ({ orgId, users }: typeof onlyX) => call(handler, { url: listUrl(orgId), token: tokenFor(users.viewer) });
    const [x1, reddit, x2, x3] = [await list(onlyX), await list(onlyReddit), await list(otherX), await list(onlyX)];
    const names = (answer: typeof x1) => answer.body.operations.map((operation: { name: string }) => operation.name);
    expect(names(x1)).toEqual(OPERATION_NAMES.filter((name) => name.startsWith('x_') || name === 'resolve_mention'));
    expect(names(reddit)).toEqual(OPERATION_NAMES.filter((name) => name.startsWith('reddit_') || name === 'resolve_mention'));
    expect([x2.raw, x3.raw]).toEqual([x1.raw, x1.raw]);
    expect(JSON.parse(x1.raw)).toEqual({ provider: SAMPLE, operations: names(x1).map(listed) });
  });

  it('serves the descriptors computed once, on first use, not per request', async () => {
    const { orgId, users } = await workspace({ networks: ['x'] });
    const caller = { userId: users.viewer };
    const first = await listSocialOperations(caller, orgId);
    const second = await listSocialOperations(caller, orgId);
    expect(first.operations[0]).toEqual(listed('x_search'));
    expect(second.operations[0]).toBe(first.operations[0]);
    // The descriptor's schemas themselves, not copies.
    expect(first.operations[0]!.input_schema).toBe(descriptors().get('x_search')!.input_schema);
  });
});
