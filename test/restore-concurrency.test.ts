/**
 * Restores under concurrency, against DynamoDB Local: parallel restores of one resource agree
 * on one final state, and no interleaving of restores and creates leaves two live projects
 * with one slug (or two live custom skills with one name).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../lib/db/client.ts';
import { projectSlugKey, skillNameKey } from '../lib/db/keys.ts';
import { createResource, getResource, softDeleteResource } from '../lib/db/resources.ts';
import { ServiceError } from '../lib/errors.ts';
import { RESOURCE_KINDS } from '../lib/model.ts';
import { buildResource } from '../lib/resources/factory.ts';
import type { ProjectRecord } from '../lib/resources/model.ts';
import { restoreResource } from '../lib/resources/restore.ts';
import { atDepth } from './support/depth.ts';
import { uniqueId, workspace } from './support/fixtures.ts';
import { withoutRequestId } from './support/http.ts';
import { deleted, live, resourceOf, restore } from './support/resources.ts';

/** Rounds of each race (everyday 4; `npm run test:long` 8: test/support/depth.ts). */
const ROUNDS = atDepth(4, 8);

async function claimOwner(key: { PK: string; SK: string }) {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return result.Item?.owner_id as string | undefined;
}

describe('20 parallel restores of one resource', () => {
  it.each(RESOURCE_KINDS)('all answer 200 with one final %s state', async (kind) => {
    // Prepare: a conversation in a live project, so its restore is a transaction too.
    const { orgId, users } = await workspace();
    const project = kind === 'conversation' ? await live('project', { orgId, by: users.owner }) : undefined;
    const before = await deleted(kind, { orgId, by: users.editor, ...(project ? { projectId: project.id } : {}) });
    const callers = [users.owner, users.editor];

    // Act
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => restore(kind, before.id, callers[i % 2]!)));

    // Assess: same state for everyone (workspace_role is per caller, so compare without it)
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const states = answers.map((answer) => {
      const { workspace_role: _role, ...rest } = resourceOf(kind, answer.body);
      return rest;
    });
    const stored = (await getResource(kind, before.id))!;
    for (const state of states) expect(state).toEqual(states[0]);
    expect(states[0]).toMatchObject({ deleted_at: null, deleted_by_id: null, updated_at: stored.updated_at });
    expect(stored.deleted_at).toBeNull();
  });
});

describe('a slug contested by two deleted projects', () => {
  it(`restoring both at once restores exactly one; the other gets 409 slug_taken (${ROUNDS} rounds)`, async () => {
    const { orgId, users } = await workspace();
    for (let round = 0; round < ROUNDS; round += 1) {
      // Prepare: A held the slug and was deleted; B took it and was deleted too.
      const slug = uniqueId('contested-');
      const a = await deleted('project', { orgId, by: users.owner, slug });
      const b = await deleted('project', { orgId, by: users.editor, slug });

      // Act
      const answers = await Promise.all([restore('project', a.id, users.owner), restore('project', b.id, users.owner)]);

      // Assess
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      const loser = answers.find((answer) => answer.status === 409)!;
      expect(withoutRequestId(loser.body)).toEqual({ code: 'slug_taken', message: `slug "${slug}" is taken by a live project` });
      const winner = answers.find((answer) => answer.status === 200)!.body as ProjectRecord;
      const loserId = winner.id === a.id ? b.id : a.id;
      expect(await claimOwner(projectSlugKey(orgId, slug))).toBe(winner.id);
      expect((await getResource('project', winner.id))!.deleted_at).toBeNull();
      expect((await getResource('project', loserId))!.deleted_at).not.toBeNull();
    }
  });
});

describe('a restore racing a create of the same slug (admin CLI path)', () => {
  it(`ends with exactly one live project of that slug, the loser refused cleanly (${ROUNDS} rounds)`, async () => {
    const { orgId, users } = await workspace();
    const outcomes = new Set<string>();
    for (let round = 0; round < ROUNDS; round += 1) {
      // Prepare
      const slug = uniqueId('raced-');
      const old = await deleted('project', { orgId, by: users.owner, slug });
      const fresh = buildResource('project', { orgId, by: users.editor, slug }) as ProjectRecord;

      // Act
      const [restored, created] = await Promise.allSettled([restore('project', old.id, users.owner), createResource('project', fresh)]);

      // Assess: exactly one of the two holds the slug, and the other left no trace
      expect(restored.status).toBe('fulfilled');
      const answer = (restored as PromiseFulfilledResult<Awaited<ReturnType<typeof restore>>>).value;
      if (answer.status === 200) {
        expect(created.status).toBe('rejected');
        const error = (created as PromiseRejectedResult).reason as ServiceError;
        expect(error).toBeInstanceOf(ServiceError);
        expect([error.status, error.code]).toEqual([409, 'slug_taken']);
        expect(await getResource('project', fresh.id)).toBeNull();
        expect(await claimOwner(projectSlugKey(orgId, slug))).toBe(old.id);
        outcomes.add('restore won');
      } else {
        expect(created.status).toBe('fulfilled');
        expect(answer.status).toBe(409);
        expect(answer.body.code).toBe('slug_taken');
        expect((await getResource('project', old.id))!.deleted_at).toBe(old.deleted_at);
        expect(await claimOwner(projectSlugKey(orgId, slug))).toBe(fresh.id);
        outcomes.add('create won');
      }
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});

describe('a custom skill name contested by two deleted skills', () => {
  it('restoring both at once restores exactly one; the other gets 409 name_taken', async () => {
    const { orgId, users } = await workspace();
    const name = uniqueId('Digest ');
    const a = await deleted('skill', { orgId, by: users.owner, name });
    const b = await deleted('skill', { orgId, by: users.owner, name: name.toLowerCase() });
    const answers = await Promise.all([restore('skill', a.id, users.owner), restore('skill', b.id, users.owner)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.code).toBe('name_taken');
    const winner = answers.find((answer) => answer.status === 200)!.body.skill.id;
    expect(await claimOwner(skillNameKey(orgId, name))).toBe(winner);
  });
});

/**
 * Runs `action` (another request's restore, a deletion) just before the first write of the
 * code under test goes out, that is between its reads and its write; `onOwnCommand` then sees
 * every command the code under test sends from that write on.
 */
function beforeFirstWrite(action: () => Promise<void>, onOwnCommand: (command: string) => void = () => {}): () => void {
  const name = `before-first-write-${Math.random()}`;
  let state: 'waiting' | 'acting' | 'after' = 'waiting';
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName);
      if (state === 'waiting' && !['GetItemCommand', 'QueryCommand'].includes(command)) {
        state = 'acting';
        await action();
        state = 'after';
      }
      if (state === 'after') onOwnCommand(command);
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}

describe('a write that finds the resource changed since it was read', () => {
  it('answers with the state a concurrent restore wrote, without reading again', async () => {
    // Prepare: the other restore lands between our reads and our write.
    const { orgId, users } = await workspace();
    const before = await deleted('project', { orgId, by: users.owner });
    let theirs: Awaited<ReturnType<typeof restore>> | undefined;
    const ours: string[] = [];
    const stop = beforeFirstWrite(
      async () => {
        theirs = await restore('project', before.id, users.editor);
      },
      (command) => ours.push(command),
    );

    // Act
    const mine = await restoreResource('project', before.id, { userId: users.owner }).finally(stop);

    // Assess: our one write failed its condition and carried back the state theirs wrote
    expect(theirs!.status).toBe(200);
    expect(ours).toEqual(['TransactWriteItemsCommand']);
    expect(mine.record).toMatchObject({ deleted_at: null, updated_at: theirs!.body.updated_at });
    expect(mine.role).toBe('owner');
  });

  it('restores again when the resource was restored and deleted again in between', async () => {
    const { orgId, users } = await workspace();
    const before = await deleted('asset', { orgId, by: users.owner });
    const stop = beforeFirstWrite(async () => {
      await restore('asset', before.id, users.owner);
      await softDeleteResource('asset', before.id, users.editor, new Date(Date.now() + 5));
    });
    const mine = await restoreResource('asset', before.id, { userId: users.owner }).finally(stop);
    const stored = await getResource('asset', before.id);
    expect(mine.record).toMatchObject({ deleted_at: null, deleted_by_id: null, updated_at: stored!.updated_at });
    expect(stored!.deleted_at).toBeNull();
  });
});

describe('transaction conflicts (real DynamoDB cancels a transaction that overlaps another; injected here)', () => {
  function injectConflicts(times: number) {
    let left = times;
    const name = `inject-conflict-${Math.random()}`;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand' && left > 0) {
          left -= 1;
          throw new TransactionCanceledException({
            message: 'Transaction cancelled',
            $metadata: {},
            CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
          });
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    return () => db().middlewareStack.remove(name);
  }

  it('tries the write again and succeeds', async () => {
    const { orgId, users } = await workspace();
    const before = await deleted('project', { orgId, by: users.owner });
    const stop = injectConflicts(2);
    try {
      const answer = await restore('project', before.id, users.owner);
      expect(answer.status).toBe(200);
      expect(answer.body.deleted_at).toBeNull();
    } finally {
      stop();
    }
  });

  it('gives up with a plain 500 after repeated conflicts, leaving the resource deleted', async () => {
    const { orgId, users } = await workspace();
    const before = await deleted('project', { orgId, by: users.owner });
    const stop = injectConflicts(100);
    try {
      const answer = await restore('project', before.id, users.owner);
      expect(answer.status).toBe(500);
      expect(withoutRequestId(answer.body)).toEqual({
        code: 'internal_error',
        message: 'the resource is being changed by other requests; retry with backoff',
      });
      expect((await getResource('project', before.id))!.deleted_at).toBe(before.deleted_at);
    } finally {
      stop();
    }
  });
});
