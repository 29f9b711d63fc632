/**
 * The members of an organization, managed by its owners: the list with each member's limit and
 * spend this month (paged), adding or changing one (PUT), removing one (DELETE), and the last
 * owner, who can be neither removed nor demoted, exactly under concurrency.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as deleteMember } from '../../functions/delete-member.ts';
import { handler as listMembers } from '../../functions/list-members.ts';
import { handler as putMember } from '../../functions/put-member.ts';
import { handler as runOperation } from '../../functions/run-social-operation.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { membershipIndexKey, membershipKey, orgKey } from '../../lib/db/keys.ts';
import { addMembership, getMembership } from '../../lib/db/memberships.ts';
import { createOrganization, getOrganization } from '../../lib/db/organizations.ts';
import { AlreadyExistsError } from '../../lib/errors.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { runUrl } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

const membersUrl = (orgId: string, query = '') => `/organizations/${orgId}/members${query}`;
const memberUrl = (orgId: string, userId: string) => `/organizations/${orgId}/members/${encodeURIComponent(userId)}`;
const list = (orgId: string, user: string, query = '') => call(listMembers, { url: membersUrl(orgId, query), token: tokenFor(user) });
const put = (orgId: string, user: string, target: string, body: unknown) =>
  call(putMember, { method: 'PUT', url: memberUrl(orgId, target), token: tokenFor(user), body });
const remove = (orgId: string, user: string, target: string) =>
  call(deleteMember, { method: 'DELETE', url: memberUrl(orgId, target), token: tokenFor(user) });
const ownerCount = async (orgId: string) =>
  Number((await db().send(new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: true }))).Item?.owner_count);

describe('GET /organizations/{organization_id}/members', () => {
  it("lists every member for an owner, with its role, limits and this month's and today's spend", async () => {
    const { orgId, users } = await workspace({ credits: 10 });
    await put(orgId, users.owner, users.editor, { role: 'editor', spending_limit: 7, daily_limit: 5 });
    await call(runOperation, {
      method: 'POST',
      url: runUrl('tiktok_profile', orgId),
      token: tokenFor(users.editor),
      body: { handle: 'nasa' },
    });

    const answer = await list(orgId, users.owner);

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      members: [
        { user_id: users.editor, role: 'editor', spending_limit: 7, spent: 1, daily_limit: 5, spent_today: 1, email: null },
        { user_id: users.owner, role: 'owner', spending_limit: null, spent: 0, daily_limit: null, spent_today: 0, email: null },
        { user_id: users.viewer, role: 'viewer', spending_limit: null, spent: 0, daily_limit: null, spent_today: 0, email: null },
      ],
      next_cursor: null,
      has_more: false,
    });
  });

  it('pages by cursor, every member once; a cursor of another organization is 400 naming cursor', async () => {
    const { orgId, users } = await workspace();
    const other = await workspace();
    for (let i = 0; i < 4; i += 1) await addMembership({ orgId, userId: uniqueId(`m${i}_`), role: 'viewer' });

    const first = await list(orgId, users.owner, '?limit=4');
    const second = await list(orgId, users.owner, `?limit=4&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    const foreign = await list(other.orgId, other.users.owner, `?cursor=${encodeURIComponent(first.body.next_cursor)}`);

    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    const ids = [...first.body.members, ...second.body.members].map((member: { user_id: string }) => member.user_id);
    expect(ids).toHaveLength(7);
    expect(new Set(ids).size).toBe(7);
    expect(foreign.status).toBe(400);
    expect(foreign.body.data.issues).toEqual([expect.objectContaining({ path: ['query', 'cursor'], code: 'invalid_cursor' })]);
  });

  it('refuses editors and viewers (403) and non-members (404, as for an unknown organization)', async () => {
    const { orgId, users } = await workspace();
    const stranger = uniqueId('stranger_');
    const [editor, viewer, outsider, unknown] = await Promise.all([
      list(orgId, users.editor),
      list(orgId, users.viewer),
      list(orgId, stranger),
      list('org_never_was', stranger),
    ]);
    expect([editor.status, viewer.status, outsider.status]).toEqual([403, 403, 404]);
    expect(withoutRequestId(outsider.body)).toEqual(withoutRequestId(unknown.body));
  });
});

describe('PUT /organizations/{organization_id}/members/{user_id}', () => {
  it('adds a member (200), then changes its role keeping its limits when they are omitted', async () => {
    const { orgId, users } = await workspace();
    const newcomer = uniqueId('newcomer_');

    const added = await put(orgId, users.owner, newcomer, { role: 'viewer', spending_limit: 12, daily_limit: 3 });
    const promoted = await put(orgId, users.owner, newcomer, { role: 'editor' });
    const unlimited = await put(orgId, users.owner, newcomer, { role: 'editor', spending_limit: null });
    const noDaily = await put(orgId, users.owner, newcomer, { role: 'editor', daily_limit: null });

    expect(added).toMatchObject({ status: 200, body: { user_id: newcomer, role: 'viewer', spending_limit: 12, daily_limit: 3, spent: 0 } });
    expect(promoted.body).toEqual({
      user_id: newcomer,
      role: 'editor',
      spending_limit: 12,
      spent: 0,
      daily_limit: 3,
      spent_today: 0,
      email: null,
    });
    expect(unlimited.body).toMatchObject({ spending_limit: null, daily_limit: 3 });
    expect(noDaily.body).toMatchObject({ spending_limit: null, daily_limit: null });
    expect(await getMembership(orgId, newcomer)).toMatchObject({ role: 'editor', spending_limit: null, daily_limit: null });
  });

  it('keeps the owner count: a second owner can be demoted, the last one cannot (409 last_owner)', async () => {
    const { orgId, users } = await workspace();
    const second = uniqueId('owner2_');
    await put(orgId, users.owner, second, { role: 'owner' });
    expect(await ownerCount(orgId)).toBe(2);

    const demoted = await put(orgId, users.owner, second, { role: 'viewer' });
    const last = await put(orgId, users.owner, users.owner, { role: 'editor' });

    expect(demoted.status).toBe(200);
    expect(last.status).toBe(409);
    expect(withoutRequestId(last.body)).toEqual({
      code: 'last_owner',
      message: `${users.owner} is the organization's last owner: add or promote another owner first`,
    });
    expect(await getMembership(orgId, users.owner)).toMatchObject({ role: 'owner' });
    expect(await ownerCount(orgId)).toBe(1);
  });

  it('leaves exactly one owner when two owners demote each other at once', async () => {
    const { orgId, users } = await workspace();
    const second = uniqueId('owner2_');
    await put(orgId, users.owner, second, { role: 'owner' });

    const answers = await Promise.all([
      put(orgId, users.owner, second, { role: 'editor' }),
      put(orgId, second, users.owner, { role: 'editor' }),
    ]);

    const statuses = answers.map((answer) => answer.status);
    const codes = answers.map((answer) => answer.body?.code);
    // One demotion wins; the other is refused as the last owner's, or (when it read after the
    // first committed) by a caller who is no longer an owner.
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(codes.filter((code) => code === 'last_owner' || code === 'forbidden')).toHaveLength(1);
    const roles = await Promise.all([getMembership(orgId, users.owner), getMembership(orgId, second)]);
    expect(roles.filter((member) => member?.role === 'owner')).toHaveLength(1);
    expect(await ownerCount(orgId)).toBe(1);
  });

  it('refuses non-owners (403, 404) and bad input (400 naming the field)', async () => {
    const { orgId, users } = await workspace();
    const target = uniqueId('target_');
    const answers = await Promise.all([
      put(orgId, users.editor, target, { role: 'viewer' }),
      put(orgId, uniqueId('stranger_'), target, { role: 'viewer' }),
      put(orgId, users.owner, target, { role: 'admin' }),
      put(orgId, users.owner, target, { role: 'viewer', spending_limit: -3 }),
      put(orgId, users.owner, target, {}),
      put(orgId, users.owner, 'x'.repeat(256), { role: 'viewer' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([403, 404, 400, 400, 400, 400]);
    expect(answers.slice(2).map((answer) => answer.body.data.issues[0].path)).toEqual([
      ['body', 'role'],
      ['body', 'spending_limit'],
      ['body', 'role'],
      ['path', 'user_id'],
    ]);
    expect(await getMembership(orgId, target)).toBeNull();
  });
});

describe('DELETE /organizations/{organization_id}/members/{user_id}', () => {
  it('removes a member (204, no body); an unknown member is 404; the last owner 409', async () => {
    const { orgId, users } = await workspace();

    const removed = await remove(orgId, users.owner, users.editor);
    const again = await remove(orgId, users.owner, users.editor);
    const last = await remove(orgId, users.owner, users.owner);

    expect(removed).toMatchObject({ status: 204, raw: '' });
    expect(removed.headers['content-type']).toBeUndefined();
    expect(await getMembership(orgId, users.editor)).toBeNull();
    expect(again.status).toBe(404);
    expect(last).toMatchObject({ status: 409, body: { code: 'last_owner' } });
    expect(await ownerCount(orgId)).toBe(1);
  });

  it('refuses an editor (403), and two owners removing each other at once leave one', async () => {
    const { orgId, users } = await workspace();
    const second = uniqueId('owner2_');
    await put(orgId, users.owner, second, { role: 'owner' });

    const editor = await remove(orgId, users.editor, users.viewer);
    const answers = await Promise.all([remove(orgId, users.owner, second), remove(orgId, second, users.owner)]);

    expect(editor.status).toBe(403);
    expect(answers.filter((answer) => answer.status === 204)).toHaveLength(1);
    const left = await Promise.all([getMembership(orgId, users.owner), getMembership(orgId, second)]);
    expect(left.filter((member) => member?.role === 'owner')).toHaveLength(1);
    expect(await ownerCount(orgId)).toBe(1);
  });
});

describe('an organization created with its first members (createOrganization)', () => {
  it('stores each as addMembership does, with the owner count, in the one transaction', async () => {
    const orgId = uniqueId('org_');
    const [owner, second, editor] = [uniqueId('owner_'), uniqueId('owner2_'), uniqueId('editor_')];
    const now = new Date('2030-05-01T10:00:00.000Z');
    await createOrganization({
      id: orgId,
      now,
      members: [
        { userId: owner, role: 'owner' },
        { userId: second, role: 'owner' },
        { userId: editor, role: 'editor', dailyLimit: 5 },
      ],
    });
    const added = uniqueId('viewer_');
    await addMembership({ orgId, userId: added, role: 'viewer', now });

    const item = async (userId: string) =>
      (await db().send(new GetCommand({ TableName: tableName(), Key: membershipKey(orgId, userId), ConsistentRead: true }))).Item;
    const { user_id: _added, role: _viewer, ...asAdded } = (await item(added))!;
    expect(await item(editor)).toEqual({
      ...asAdded,
      ...membershipKey(orgId, editor),
      ...membershipIndexKey(orgId, editor),
      user_id: editor,
      role: 'editor',
      daily_limit: 5,
    });
    expect(await ownerCount(orgId)).toBe(2);
    const listed = await list(orgId, owner);
    expect(listed.body.members.map((member: { user_id: string }) => member.user_id).sort()).toEqual([owner, second, editor, added].sort());
    expect((await remove(orgId, owner, second)).status).toBe(204);
    expect(await remove(orgId, owner, owner)).toMatchObject({ status: 409, body: { code: 'last_owner' } });
  });

  it('writes nothing when the organization exists, and refuses a user listed twice before writing', async () => {
    const { orgId } = await workspace();
    const newcomer = uniqueId('owner_');
    await expect(createOrganization({ id: orgId, members: [{ userId: newcomer, role: 'owner' }] })).rejects.toThrow(AlreadyExistsError);
    expect(await getMembership(orgId, newcomer)).toBeNull();
    expect(await ownerCount(orgId)).toBe(1);

    const fresh = uniqueId('org_');
    await expect(
      createOrganization({
        id: fresh,
        members: [
          { userId: newcomer, role: 'owner' },
          { userId: newcomer, role: 'editor' },
        ],
      }),
    ).rejects.toThrow('createOrganization: a user listed twice in members');
    expect(await getOrganization(fresh)).toBeNull();
  });
});
