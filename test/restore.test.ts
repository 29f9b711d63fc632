import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../lib/db/client.ts';
import { projectSlugKey, resourceKey } from '../lib/db/keys.ts';
import { archiveProject, getResource, softDeleteResource } from '../lib/db/resources.ts';
import { countRoundTrips } from '../lib/db/round-trips.ts';
import { RESOURCE_KINDS, type ResourceKind } from '../lib/model.ts';
import { FULL_DEPTH } from './support/depth.ts';
import { uniqueId, workspace } from './support/fixtures.ts';
import { call, withoutRequestId } from './support/http.ts';
import { deleted, expectAfter, ISO, live, resourceOf, restore, restoredBody, restoreHandlers, restoreUrl } from './support/resources.ts';
import { badTokens, tokenFor } from './support/tokens.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
const NOT_FOUND = { code: 'not_found', message: 'no such resource' };
const param = { asset: 'asset_id', skill: 'skill_id', conversation: 'conversation_id', project: 'project_id' } as const;
/** One workspace for the refusals of a malformed path id: they read and write nothing, so none needs a fresh one. */
let refusing: ReturnType<typeof workspace> | undefined;
const refusingWorkspace = () => (refusing ??= workspace());

describe.each(RESOURCE_KINDS)('POST …/%s/restore', (kind) => {
  /**
   * The four kinds share one restore (lib/resources/restore.ts). Of the behaviours marked so,
   * `npm test` runs each on two kinds and each kind has half of them; `npm run test:long` runs every
   * one on every kind (test/support/depth.ts). What differs by kind runs on all four everyday: the
   * fields kept, the path's parameter, the commands sent.
   */
  const sampled = (behaviour: number) => (FULL_DEPTH || (behaviour + RESOURCE_KINDS.indexOf(kind)) % 2 === 0 ? it : it.skip);

  it('clears deleted_at and deleted_by_id, moves updated_at forward and keeps every other field', async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const before = await deleted(kind, { orgId, by: users.editor, visibility: 'workspace' }, users.owner);
    expect(before.deleted_at).toMatch(ISO);

    // Act
    const answer = await restore(kind, before.id, users.owner);

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['endless-api-version']).toBe('1');
    expect(answer.body).toEqual(restoredBody(kind, before, 'owner'));
    const stored = await getResource(kind, before.id);
    expect(resourceOf(kind, answer.body).updated_at).toBe(stored!.updated_at);
    expect(stored).toMatchObject({ deleted_at: null, deleted_by_id: null, created_at: before.created_at });
    // A live item must never be purged by TTL.
    expect(stored).not.toHaveProperty('expires_at');
  });

  sampled(0)('answers a second restore with 200 and the same resource, unchanged', async () => {
    const { orgId, users } = await workspace();
    const before = await deleted(kind, { orgId, by: users.editor });
    const first = await restore(kind, before.id, users.editor);
    const second = await restore(kind, before.id, users.editor);
    expect(first.status).toBe(200);
    expect(second).toMatchObject({ status: 200, body: first.body });
  });

  sampled(1)('answers 200 and the resource unchanged for a resource that was never deleted', async () => {
    const { orgId, users } = await workspace();
    const record = await live(kind, { orgId, by: users.editor });
    const answer = await restore(kind, record.id, users.editor);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(restoredBody(kind, record, 'owner', record.updated_at));
  });

  sampled(2)('restores again after a second deletion', async () => {
    const { orgId, users } = await workspace();
    const first = await deleted(kind, { orgId, by: users.owner });
    await restore(kind, first.id, users.owner);
    const again = await softDeleteResource(kind, first.id, users.owner);
    const answer = await restore(kind, first.id, users.owner);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(restoredBody(kind, again, 'owner'));
  });

  sampled(3).each([
    ['the creator (an editor)', 'editor', 'owner'],
    ['an owner', 'owner', 'owner'],
    ['another editor', 'other', 'editor'],
  ] as const)('gives workspace_role as seen by %s', async (_who, caller, role) => {
    const { orgId, users } = await workspace();
    const other = uniqueId('editor2_');
    const { addMembership } = await import('../lib/db/memberships.ts');
    await addMembership({ orgId, userId: other, role: 'editor' });
    const before = await deleted(kind, { orgId, by: users.editor, visibility: 'public' });
    const answer = await restore(kind, before.id, caller === 'other' ? other : users[caller]);
    expect(resourceOf(kind, answer.body).workspace_role).toBe(role);
  });

  describe('restore window', () => {
    sampled(4)('restores a resource deleted 29 days ago', async () => {
      const { orgId, users } = await workspace();
      const before = await deleted(kind, { orgId, by: users.owner }, users.owner, daysAgo(29));
      const answer = await restore(kind, before.id, users.owner);
      expect(answer.status).toBe(200);
      expect(resourceOf(kind, answer.body).deleted_at).toBeNull();
    });

    sampled(5)('answers 404 past the window, before TTL has removed the item, saying so to a member who could read it', async () => {
      const { orgId, users } = await workspace();
      const before = await deleted(kind, { orgId, by: users.owner, visibility: 'private' }, users.owner, daysAgo(31));
      const expired = await restore(kind, before.id, users.owner);
      const hidden = await restore(kind, before.id, users.editor);
      const unknown = await restore(kind, randomUUID(), users.owner);
      expect(await getResource(kind, before.id)).not.toBeNull();
      expect(expired.status).toBe(404);
      expect(withoutRequestId(expired.body)).toEqual({
        code: 'not_found',
        message: `the restore window of this resource has passed: it could be restored until ${new Date(Date.parse(before.deleted_at!) + 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, '.000Z')}`,
      });
      // Whoever could not read it (a private resource of another) gets the plain 404 of an unknown id.
      expect(withoutRequestId(hidden.body)).toEqual(NOT_FOUND);
      expect(withoutRequestId(unknown.body)).toEqual(NOT_FOUND);
      expect((await getResource(kind, before.id))!.deleted_at).toBe(before.deleted_at);
    });

    sampled(6)('goes by the purge time stored at deletion', async () => {
      const { orgId, users } = await workspace();
      const before = await deleted(kind, { orgId, by: users.owner });
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: resourceKey(kind, before.id),
          UpdateExpression: 'SET expires_at = :past',
          ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
        }),
      );
      expect((await restore(kind, before.id, users.owner)).status).toBe(404);
    });
  });

  describe('validation and the order of checks', () => {
    it.each(['not-a-uuid', '123', 'a6b1c2d3-0000-0000-0000-00000000000g', '%20'])('refuses the path id %j with 400', async (id) => {
      const { users } = await refusingWorkspace();
      const answer = await call(restoreHandlers[kind], { method: 'POST', url: restoreUrl(kind, id), token: tokenFor(users.owner) });
      expect(answer.status).toBe(400);
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'validation_failed',
        message: `path.${param[kind]}: must be a UUID`,
        data: { issues: [{ path: ['path', param[kind]], code: 'invalid_format', message: 'must be a UUID' }] },
      });
    });

    sampled(7)('accepts an upper-case UUID for a stored (lower-case) id', async () => {
      const { orgId, users } = await workspace();
      const before = await deleted(kind, { orgId, by: users.owner });
      const answer = await restore(kind, before.id.toUpperCase(), users.owner);
      expect(answer.status).toBe(200);
      expect(resourceOf(kind, answer.body).id).toBe(before.id);
    });

    sampled(8)('ignores a request body, even one that is not JSON', async () => {
      const { orgId, users } = await workspace();
      const before = await deleted(kind, { orgId, by: users.owner });
      const answer = await restore(kind, before.id, users.owner, { body: 'not json', headers: { 'content-type': 'text/plain' } });
      expect(answer.status).toBe(200);
    });

    it.each([
      ['no token', undefined],
      ['an unsigned token', 'unsigned'],
      ['a tampered token', 'tampered'],
    ] as const)('answers 401 for %s, before validating the path', async (_what, bad) => {
      const token = bad ? badTokens[bad](uniqueId('u_')) : undefined;
      const answer = await call(restoreHandlers[kind], { method: 'POST', url: restoreUrl(kind, 'nope'), token });
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('unauthenticated');
    });

    sampled(9)('answers 400 unsupported_api_version for a major it does not serve', async () => {
      const { orgId, users } = await workspace();
      const before = await deleted(kind, { orgId, by: users.owner });
      const answer = await restore(kind, before.id, users.owner, { headers: { 'Endless-Api-Version': '2' } });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('unsupported_api_version');
      expect((await getResource(kind, before.id))!.deleted_at).toBe(before.deleted_at);
    });

    sampled(10)('is never refused with 402: restoring spends no credits', async () => {
      const { orgId, users } = await workspace({ credits: 0, spendingLimit: 0 });
      const before = await deleted(kind, { orgId, by: users.owner });
      expect((await restore(kind, before.id, users.owner)).status).toBe(200);
    });
  });

  it('takes two sequential DynamoDB round trips: counter, resource and memberships together, then one write', async () => {
    const { orgId, users } = await workspace();
    const project = kind === 'conversation' ? await live('project', { orgId, by: users.owner }) : undefined;
    const before = await deleted(kind, { orgId, by: users.owner, ...(project ? { projectId: project.id } : {}) });
    const counter = countRoundTrips(db());
    try {
      const answer = await restore(kind, before.id, users.owner);
      expect(answer.status).toBe(200);
      expect(counter.log.sequential).toBe(2);
      // Every restore is a transaction: the resource's update and its audit event (an asset's too).
      expect(counter.log.commands).toEqual(['UpdateItemCommand', 'GetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']);

      counter.reset();
      expect((await restore(kind, before.id, users.owner)).status).toBe(200);
      expect(counter.log.sequential).toBe(1);
    } finally {
      counter.stop();
    }
  });
});

describe('what restore leaves alone', () => {
  it('brings an archived project back archived, with its archive stamp and creation time', async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const project = await live('project', { orgId, by: users.editor, slug: uniqueId('launch-'), title: 'Launch' });
    const archivedAt = daysAgo(2);
    await archiveProject(project.id, users.owner, archivedAt);
    const before = await softDeleteResource('project', project.id, users.owner, daysAgo(1));

    // Act
    const answer = await restore('project', project.id, users.editor);

    // Assess: the whole documented body, field by field
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id: project.id,
      organization_id: orgId,
      created_by_id: users.editor,
      slug: project.slug,
      title: 'Launch',
      emoji: null,
      description: null,
      visibility: 'workspace',
      workspace_role: 'owner',
      knowledge_skill_id: null,
      mod_source_id: null,
      metadata: {},
      deleted_at: null,
      deleted_by_id: null,
      archived_at: archivedAt.toISOString(),
      archived_by_id: users.owner,
      created_at: project.created_at,
      updated_at: expectAfter(before.updated_at),
    });
    expect(answer.body.id).toMatch(UUID);
  });

  it('returns an asset with every documented field, nulls where the spec allows them', async () => {
    const { orgId, users } = await workspace();
    const asset = await deleted('asset', { orgId, by: users.editor, title: 'Brief', visibility: 'private' });
    const answer = await restore('asset', asset.id, users.owner);
    expect(answer.body).toEqual({
      id: asset.id,
      organization_id: orgId,
      created_by_id: users.editor,
      type: 'document',
      title: 'Brief',
      mime_type: 'text/plain',
      url: null,
      content: 'Notes: Brief',
      upload_file_state: 'success',
      enrichment_state: 'ignored',
      visibility: 'private',
      workspace_role: 'owner',
      metadata: {},
      generation_id: null,
      origin_conversation_id: null,
      origin_canvas_id: null,
      mod_transcript_id: null,
      mod_asset_id: null,
      mod_source_id: null,
      dual_media_id: null,
      deleted_at: null,
      deleted_by_id: null,
      created_at: asset.created_at,
      updated_at: expectAfter(asset.updated_at),
    });
  });

  it('wraps the skill as { skill } with every documented field', async () => {
    const { orgId, users } = await workspace();
    const skill = await deleted('skill', { orgId, by: users.editor, name: uniqueId('Digest ') });
    const answer = await restore('skill', skill.id, users.editor);
    expect(Object.keys(answer.body)).toEqual(['skill']);
    expect(answer.body.skill).toEqual({
      id: skill.id,
      codename: null,
      organization_id: orgId,
      source: 'custom',
      name: skill.name,
      description: '',
      body: '',
      files: [],
      author: null,
      project_scoped: false,
      visibility: 'workspace',
      workspace_role: 'owner',
      created_by_id: users.editor,
      mod_shortcut_id: null,
      listing_id: null,
      listing_version: null,
      listing_edited_at: null,
      deleted_at: null,
      deleted_by_id: null,
      created_at: skill.created_at,
      updated_at: expectAfter(skill.updated_at),
    });
  });

  it('returns a conversation with every documented field', async () => {
    const { orgId, users } = await workspace();
    const conversation = await deleted('conversation', { orgId, by: users.editor, title: 'Captions' });
    const answer = await restore('conversation', conversation.id, users.editor);
    expect(answer.body).toEqual({
      id: conversation.id,
      organization_id: orgId,
      created_by_id: users.editor,
      title: 'Captions',
      visibility: 'workspace',
      workspace_role: 'owner',
      project_id: null,
      active_leaf_id: null,
      schedule_id: null,
      forked_from_conversation_id: null,
      message_count: 0,
      last_message_at: null,
      active_run_id: null,
      active_run_at: null,
      mod_conversation_id: null,
      deleted_at: null,
      deleted_by_id: null,
      created_at: conversation.created_at,
      updated_at: expectAfter(conversation.updated_at),
    });
  });
});

describe('conflicts (409)', () => {
  it('refuses a project whose slug a live project now holds, then restores it once the slug is free', async () => {
    // Prepare
    const { orgId, users } = await workspace();
    const slug = uniqueId('launch-');
    const old = await deleted('project', { orgId, by: users.owner, slug });
    const taker = await live('project', { orgId, by: users.owner, slug });

    // Act
    const refused = await restore('project', old.id, users.owner);

    // Assess
    expect(refused.status).toBe(409);
    expect(withoutRequestId(refused.body)).toEqual({ code: 'slug_taken', message: `slug "${slug}" is taken by a live project` });
    expect((await getResource('project', old.id))!.deleted_at).toBe(old.deleted_at);

    await softDeleteResource('project', taker.id, users.owner);
    expect((await restore('project', old.id, users.owner)).status).toBe(200);
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const claim = await db().send(new GetCommand({ TableName: tableName(), Key: projectSlugKey(orgId, slug), ConsistentRead: true }));
    expect(claim.Item?.owner_id).toBe(old.id);
  });

  it('lets projects of two organizations share a slug', async () => {
    const a = await workspace();
    const b = await workspace();
    const slug = uniqueId('shared-');
    const old = await deleted('project', { orgId: a.orgId, by: a.users.owner, slug });
    await live('project', { orgId: b.orgId, by: b.users.owner, slug });
    expect((await restore('project', old.id, a.users.owner)).status).toBe(200);
  });

  it('refuses a custom skill whose name a live custom skill holds, whatever the case', async () => {
    const { orgId, users } = await workspace();
    const name = uniqueId('Weekly Digest ');
    const old = await deleted('skill', { orgId, by: users.editor, name });
    await live('skill', { orgId, by: users.owner, name: ` ${name.toUpperCase()}` });
    const refused = await restore('skill', old.id, users.editor);
    expect(refused.status).toBe(409);
    expect(withoutRequestId(refused.body)).toEqual({ code: 'name_taken', message: `name "${name}" is taken by a live custom skill` });
  });

  it('does not count built-in or community skills against a custom skill’s name', async () => {
    const { orgId, users } = await workspace();
    const name = uniqueId('Summarize ');
    const old = await deleted('skill', { orgId, by: users.editor, name });
    await live('skill', { orgId, by: users.owner, name, source: 'built-in' });
    expect((await restore('skill', old.id, users.editor)).status).toBe(200);
  });

  it('refuses a conversation whose project is deleted, then restores it after the project', async () => {
    const { orgId, users } = await workspace();
    const project = await live('project', { orgId, by: users.owner });
    const conversation = await deleted('conversation', { orgId, by: users.editor, projectId: project.id });
    await softDeleteResource('project', project.id, users.owner);

    const refused = await restore('conversation', conversation.id, users.editor);
    expect(refused.status).toBe(409);
    expect(withoutRequestId(refused.body)).toEqual({
      code: 'parent_deleted',
      message: `project ${project.id} is deleted (restore it first) or no longer exists`,
    });

    expect((await restore('project', project.id, users.owner)).status).toBe(200);
    const answer = await restore('conversation', conversation.id, users.editor);
    expect(answer.status).toBe(200);
    expect(answer.body.project_id).toBe(project.id);
  });

  it('refuses a conversation whose project has been purged', async () => {
    const { orgId, users } = await workspace();
    const project = await live('project', { orgId, by: users.owner });
    const conversation = await deleted('conversation', { orgId, by: users.editor, projectId: project.id });
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    await db().send(new DeleteCommand({ TableName: tableName(), Key: resourceKey('project', project.id) }));
    expect((await restore('conversation', conversation.id, users.editor)).body.code).toBe('parent_deleted');
  });

  it('checks permissions before conflicts: a viewer gets 403 and a stranger 404, not 409', async () => {
    const { orgId, users } = await workspace();
    const slug = uniqueId('taken-');
    const old = await deleted('project', { orgId, by: users.owner, slug });
    await live('project', { orgId, by: users.owner, slug });
    expect((await restore('project', old.id, users.viewer)).status).toBe(403);
    expect((await restore('project', old.id, uniqueId('stranger_'))).status).toBe(404);
    expect((await restore('project', old.id, users.owner)).status).toBe(409);
  });
});

describe('skills that are not custom', () => {
  it.each(['built-in', 'community'] as const)('answers 404 for a %s skill, even to an owner', async (source) => {
    const { orgId, users } = await workspace();
    const skill = await deleted('skill', { orgId, by: users.owner, source });
    const answer = await restore('skill', skill.id, users.owner);
    expect(answer.status).toBe(404);
    expect(withoutRequestId(answer.body)).toEqual(NOT_FOUND);
  });
});

describe('routes', () => {
  it.each(RESOURCE_KINDS)('does not route GET on the %s restore path', async (kind: ResourceKind) => {
    const { matchRoute } = await import('../lib/routes.ts');
    expect(matchRoute('GET', restoreUrl(kind, randomUUID())).route.name).toBe('RouteNotFound');
    expect(matchRoute('POST', restoreUrl(kind, randomUUID())).route.entry).toBe(`functions/restore-${kind}.ts`);
  });
});

describe('least privilege', () => {
  /** The IAM actions behind the commands sent through db() (a transaction needs each item's action). */
  function recordActions() {
    const actions = new Set<string>();
    const name = `record-actions-${Math.random()}`;
    const itemAction = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' } as const;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const command = String(context.commandName).replace(/Command$/, '');
        if (command === 'TransactWriteItems') {
          for (const item of (args.input as { TransactItems: Record<string, unknown>[] }).TransactItems) {
            for (const key of Object.keys(item)) actions.add(`dynamodb:${itemAction[key as keyof typeof itemAction]}`);
          }
        } else {
          actions.add(`dynamodb:${command}`);
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    return { actions, stop: () => db().middlewareStack.remove(name) };
  }

  it.each(RESOURCE_KINDS)('the %s restore route grants exactly the actions its handler uses', async (kind) => {
    const { routes } = await import('../lib/routes.ts');
    const { orgId, users } = await workspace();
    const project = await live('project', { orgId, by: users.owner });
    const inProject = await deleted(kind, { orgId, by: users.owner, projectId: project.id });
    const plain = await deleted(kind, { orgId, by: users.owner });
    const recorder = recordActions();
    try {
      for (const id of [inProject.id, plain.id, inProject.id]) expect((await restore(kind, id, users.owner)).status).toBe(200);
    } finally {
      recorder.stop();
    }
    const route = routes.find((candidate) => candidate.entry === `functions/restore-${kind}.ts`)!;
    expect([...recorder.actions].sort()).toEqual([...route.tableActions].sort());
  });
});

describe('restoreStamp', () => {
  it('is now when the stored updated_at is in the past', async () => {
    const { restoreStamp } = await import('../lib/db/resources.ts');
    const now = new Date('2026-05-01T10:00:00.000Z');
    expect(restoreStamp({ updated_at: '2026-04-01T00:00:00.000Z' } as never, now)).toBe('2026-05-01T10:00:00.000Z');
  });

  it('is 1 ms after the stored updated_at when this clock is behind, so updated_at always moves forward', async () => {
    const { restoreStamp } = await import('../lib/db/resources.ts');
    const now = new Date('2026-05-01T10:00:00.000Z');
    expect(restoreStamp({ updated_at: '2026-05-01T10:00:02.500Z' } as never, now)).toBe('2026-05-01T10:00:02.501Z');
  });
});
