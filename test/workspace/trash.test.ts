/**
 * GET /organizations/{organization_id}/trash: what the caller could restore, newest deletion
 * first, within the restore window; restored resources leave it at once.
 */
import { describe, expect, it } from 'vitest';
import { handler as listTrash } from '../../functions/list-trash.ts';
import { db } from '../../lib/db/client.ts';
import { countRoundTrips } from '../../lib/db/round-trips.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { deleted, live, restore } from '../support/resources.ts';
import { tokenFor } from '../support/tokens.ts';

const trash = (orgId: string, user: string, query = '') =>
  call(listTrash, { url: `/organizations/${orgId}/trash${query}`, token: tokenFor(user) });
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
const ids = (answer: { body: { items: { id: string }[] } }) => answer.body.items.map((item) => item.id);

describe('GET /organizations/{organization_id}/trash', () => {
  it('lists everything deleted for an owner, newest first, with restore_until, in one round trip', async () => {
    // Prepare: one of each kind, deleted a minute apart; a live one; one past the window.
    const { orgId, users } = await workspace();
    const by = users.editor;
    const asset = await deleted('asset', { orgId, by, title: 'Logo' }, by, minutesAgo(4));
    const skill = await deleted('skill', { orgId, by, name: uniqueId('Summarize ') }, by, minutesAgo(3));
    const project = await deleted('project', { orgId, by, title: 'Launch', slug: uniqueId('launch-') }, by, minutesAgo(2));
    const conversation = await deleted('conversation', { orgId, by, title: 'Chat' }, by, minutesAgo(1));
    await live('asset', { orgId, by });
    await deleted('asset', { orgId, by }, by, new Date(Date.now() - 31 * 86_400_000));
    const counter = countRoundTrips(db());

    // Act
    const answer = await trash(orgId, users.owner).finally(() => counter.stop());

    // Assess
    expect(answer.status).toBe(200);
    expect(ids(answer)).toEqual([conversation.id, project.id, skill.id, asset.id]);
    expect(answer.body.items[0]).toEqual({
      kind: 'conversation',
      id: conversation.id,
      title: 'Chat',
      deleted_at: conversation.deleted_at,
      deleted_by_id: by,
      restore_until: new Date(Math.floor((Date.parse(conversation.deleted_at ?? '') + 30 * 86_400_000) / 1000) * 1000).toISOString(),
    });
    expect(answer.body.items[2]).toMatchObject({ kind: 'skill', title: skill.name });
    expect(answer.body).toMatchObject({ next_cursor: null, has_more: false });
    expect(counter.log.sequential).toBe(1);
  });

  it('shows an editor what it could restore: not private, or its own; a viewer gets 403, a non-member 404', async () => {
    const { orgId, users } = await workspace();
    const shared = await deleted('asset', { orgId, by: users.owner, visibility: 'workspace' });
    const ownPrivate = await deleted('asset', { orgId, by: users.editor, visibility: 'private' });
    await deleted('asset', { orgId, by: users.owner, visibility: 'private' });

    const editor = await trash(orgId, users.editor);
    const viewer = await trash(orgId, users.viewer);
    const stranger = await trash(orgId, uniqueId('stranger_'));

    expect(new Set(ids(editor))).toEqual(new Set([shared.id, ownPrivate.id]));
    expect(viewer.status).toBe(403);
    expect(stranger.status).toBe(404);
  });

  it('filters by kind, pages by cursor, and a restored resource leaves it at once', async () => {
    const { orgId, users } = await workspace();
    const assets = [];
    for (let i = 0; i < 3; i += 1) assets.push(await deleted('asset', { orgId, by: users.owner }, users.owner, minutesAgo(10 - i)));
    await deleted('conversation', { orgId, by: users.owner });

    const onlyAssets = await trash(orgId, users.owner, '?kind=asset&limit=2');
    const next = await trash(orgId, users.owner, `?kind=asset&limit=2&cursor=${encodeURIComponent(onlyAssets.body.next_cursor)}`);
    const otherQuery = await trash(orgId, users.owner, `?kind=skill&cursor=${encodeURIComponent(onlyAssets.body.next_cursor)}`);
    expect((await restore('asset', assets[2]?.id ?? '', users.owner)).status).toBe(200);
    const after = await trash(orgId, users.owner, '?kind=asset');

    expect(onlyAssets.body).toMatchObject({ items: expect.any(Array) });
    expect(ids(onlyAssets)).toEqual([assets[2]?.id, assets[1]?.id]);
    expect(onlyAssets.body.has_more).toBe(true);
    expect(ids(next)).toEqual([assets[0]?.id]);
    expect(next.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(otherQuery.status).toBe(400);
    expect(otherQuery.body.data.issues[0].path).toEqual(['query', 'cursor']);
    expect(ids(after)).toEqual([assets[1]?.id, assets[0]?.id]);
  });

  it.each([
    ['?kind=widget', ['query', 'kind']],
    ['?limit=0', ['query', 'limit']],
    ['?limit=101', ['query', 'limit']],
    ['?cursor=', ['query', 'cursor']],
    ['?cursor=v1.forged.mac', ['query', 'cursor']],
  ])('refuses %s with 400 naming it', async (query, path) => {
    const { orgId, users } = await workspace();
    const answer = await trash(orgId, users.owner, query);
    expect(answer.status).toBe(400);
    expect(answer.body.data.issues[0].path).toEqual(path);
  });
});
