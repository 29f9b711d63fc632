/**
 * The permission matrix of DESIGN.md "Authentication and roles" for the four restore endpoints:
 * every resource kind × visibility × caller × state. Whoever cannot read the resource gets a
 * 404 that is byte-identical to the one for an id that never existed (apart from the request
 * id), so an id cannot be probed; whoever can read it but may not restore it gets 403.
 *
 * `npm test` runs a quarter of the 288 cells, which still holds every pair of values of any two
 * dimensions; `npm run test:long` runs all of them (test/support/depth.ts).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMembership } from '../lib/db/memberships.ts';
import { getResource } from '../lib/db/resources.ts';
import { RESOURCE_KINDS, type ResourceKind } from '../lib/model.ts';
import { VISIBILITIES, type Visibility } from '../lib/resources/model.ts';
import { cellsAtDepth } from './support/depth.ts';
import { uniqueId, workspace } from './support/fixtures.ts';
import type { Answer } from './support/http.ts';
import { deleted, live, restore, restoredBody } from './support/resources.ts';

const CALLERS = ['creator', 'other editor', 'viewer', 'owner', 'other organization', 'unknown user'] as const;
type Caller = (typeof CALLERS)[number];
const STATES = ['deleted', 'live', 'purged', 'never existed'] as const;
type State = (typeof STATES)[number];

/** The expected status: DESIGN.md's rules, written out independently of the implementation. */
function expectedStatus(visibility: Visibility, caller: Caller, state: State): 200 | 403 | 404 {
  if (state === 'purged' || state === 'never existed') return 404;
  switch (caller) {
    case 'creator':
    case 'owner':
      return 200;
    case 'other editor':
      return visibility === 'private' ? 404 : 200;
    case 'viewer':
      return visibility === 'private' ? 404 : 403;
    default:
      return 404;
  }
}

const ROLE_IN_BODY = { creator: 'owner', owner: 'owner', 'other editor': 'editor' } as const;

/** Whether the caller could read the resource (a member, and not private unless creator or owner): told when its window has passed. */
const couldRead = (visibility: Visibility, caller: Caller): boolean =>
  caller === 'creator' || caller === 'owner' || ((caller === 'other editor' || caller === 'viewer') && visibility !== 'private');

let org: { orgId: string; users: Record<Caller, string> };
const notFoundAnswers: { label: string; answer: Answer }[] = [];

beforeAll(async () => {
  const mine = await workspace();
  const theirs = await workspace({ roles: ['owner'] });
  const otherEditor = uniqueId('editor2_');
  await addMembership({ orgId: mine.orgId, userId: otherEditor, role: 'editor' });
  org = {
    orgId: mine.orgId,
    users: {
      creator: mine.users.editor,
      'other editor': otherEditor,
      viewer: mine.users.viewer,
      owner: mine.users.owner,
      'other organization': theirs.users.owner,
      'unknown user': uniqueId('nobody_'),
    },
  };
});

async function prepare(kind: ResourceKind, visibility: Visibility, state: State) {
  const fields = { orgId: org.orgId, by: org.users.creator, visibility };
  switch (state) {
    case 'deleted':
      return deleted(kind, fields, org.users.owner);
    case 'live':
      return live(kind, fields);
    case 'purged':
      return deleted(kind, fields, org.users.owner, new Date(Date.now() - 31 * 86_400_000));
    case 'never existed':
      return null;
  }
}

const matrix = RESOURCE_KINDS.flatMap((kind, k) =>
  VISIBILITIES.flatMap((visibility, v) =>
    CALLERS.flatMap((caller, c) =>
      STATES.map((state, s) => ({ kind, visibility, caller, state, status: expectedStatus(visibility, caller, state), k, v, c, s })),
    ),
  ),
);
/**
 * Everyday: each visibility × caller × state once, on the kind its indexes pick in turn. Fix any
 * two dimensions and the other two can still be chosen to pick either kind, so every pair of
 * values of any two dimensions is in the sample.
 */
const cases = cellsAtDepth(matrix, ({ k, v, c, s }) => (v + c + s) % RESOURCE_KINDS.length === k);

describe('restore permission matrix', () => {
  it.each(cases)('$kind, $visibility, $caller, $state → $status', async ({ kind, visibility, caller, state, status }) => {
    // Prepare
    const record = await prepare(kind, visibility, state);
    const id = record?.id ?? randomUUID();

    // Act
    const answer = await restore(kind, id, org.users[caller]);

    // Assess
    expect(answer.status).toBe(status);
    if (status === 200) {
      const role = ROLE_IN_BODY[caller as keyof typeof ROLE_IN_BODY];
      expect(answer.body).toEqual(
        state === 'live' ? restoredBody(kind, record!, role, record!.updated_at) : restoredBody(kind, record!, role),
      );
    } else {
      // Nothing changed. A purged item may be gone already (DynamoDB Local deletes expired items
      // too, at a time of its own): then it was not restored either.
      const after = record && (await getResource(kind, id));
      if (record && (after || state !== 'purged')) expect(after?.deleted_at).toBe(record.deleted_at);
    }
    if (status === 403) {
      expect(answer.body).toEqual({
        code: 'forbidden',
        message: 'viewers cannot restore resources; an editor or owner can',
        request_id: answer.headers['x-request-id'],
      });
    }
    // DynamoDB Local's TTL may delete a purged item before the request reads it (it did at load
    // 15): then, to one who could read it, it is an id that never existed, and must be gone.
    const removedByTtl = state === 'purged' && couldRead(visibility, caller) && answer.body?.message === 'no such resource';
    if (removedByTtl) expect(await getResource(kind, id)).toBeNull();
    if (status === 404 && state === 'purged' && couldRead(visibility, caller) && !removedByTtl) {
      expect(answer.body).toEqual({
        code: 'not_found',
        message: expect.stringMatching(/^the restore window of this resource has passed: it could be restored until \d{4}-\d\d-\d\dT/),
        request_id: answer.headers['x-request-id'],
      });
    } else if (status === 404) notFoundAnswers.push({ label: `${kind}/${visibility}/${caller}/${state}`, answer });
  });

  it('covers every cell of the matrix, and every pair of values in the everyday sample', () => {
    expect(matrix).toHaveLength(4 * 3 * 6 * 4);
    const pairs = (cells: typeof matrix) =>
      new Set(
        cells.flatMap(({ kind, visibility, caller, state }) => {
          const values = [`kind=${kind}`, `visibility=${visibility}`, `caller=${caller}`, `state=${state}`];
          return values.flatMap((a, i) => values.slice(i + 1).map((b) => `${a} ${b}`));
        }),
      );
    expect(pairs(cases)).toEqual(pairs(matrix));
  });
});

describe('creators who are not editors', () => {
  it.each(RESOURCE_KINDS)('a viewer gets 403 on a private %s they created', async (kind) => {
    const record = await deleted(kind, { orgId: org.orgId, by: org.users.viewer, visibility: 'private' }, org.users.owner);
    expect((await restore(kind, record.id, org.users.viewer)).status).toBe(403);
  });

  it.each(RESOURCE_KINDS)('a creator who left the organization gets 404 on their %s', async (kind) => {
    const leaver = uniqueId('leaver_');
    const other = await workspace({ roles: [] });
    await addMembership({ orgId: other.orgId, userId: leaver, role: 'owner' });
    const record = await deleted(kind, { orgId: org.orgId, by: leaver, visibility: 'private' }, org.users.owner);
    expect((await restore(kind, record.id, leaver)).status).toBe(404);
  });
});

// Runs after the matrix (tests of a file run in order): it compares the 404s the matrix collected.
it('answers every 404 of the matrix with the same bytes and headers, apart from the request id', () => {
  // Most of the matrix's 404s (the rest tell a reader its restore window has passed).
  expect(notFoundAnswers.length).toBeGreaterThan(cases.length / 3);
  const [first] = notFoundAnswers;
  const strip = (answer: Answer) => ({
    status: answer.status,
    raw: answer.raw.replace(answer.headers['x-request-id']!, '<request id>'),
    headers: Object.fromEntries(
      Object.entries(answer.headers).filter(([name]) => name !== 'x-request-id' && !name.startsWith('ratelimit-')),
    ),
  });
  expect(first!.answer.raw).toBe(
    `{"code":"not_found","message":"no such resource","request_id":"${first!.answer.headers['x-request-id']}"}`,
  );
  for (const { label, answer } of notFoundAnswers) expect({ label, ...strip(answer) }).toEqual({ label, ...strip(first!.answer) });
});
