import { chargeOperation, refundCharge } from '../db/credits.ts';
import { addMembership } from '../db/memberships.ts';
import { createOrganization, getOrganization, grantCredits } from '../db/organizations.ts';
import { createResource, softDeleteResource } from '../db/resources.ts';
import type { ResourceKind } from '../model.ts';
import { buildResource, type NewResource } from '../resources/factory.ts';
import { findOperation } from '../social/operations.ts';

export const DEMO = {
  orgId: 'org_demo',
  users: { owner: 'user_demo_owner', editor: 'user_demo_editor', viewer: 'user_demo_viewer' },
} as const;

export interface DemoWorkspace {
  orgId: string;
  users: typeof DEMO.users;
  /** Soft-deleted resources a demo caller can restore, by kind. */
  deleted: Record<ResourceKind, string[]>;
  /** Live resources (restoring them is a no-op that answers 200). */
  live: Record<ResourceKind, string[]>;
}

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

/**
 * The demo workspace of `npm start`: an owner, an editor and a viewer; live and deleted
 * resources of all four kinds; credits and a few weeks of billing events.
 * Idempotent: if the organization exists (a kept DATA_DIR), nothing is written.
 */
export async function seedDemoWorkspace(): Promise<DemoWorkspace | null> {
  if (await getOrganization(DEMO.orgId)) return null;
  const { orgId, users } = DEMO;
  await createOrganization({ id: orgId, name: 'Demo Workspace', credits: 1000, now: daysAgo(20) });
  const limits = { owner: null, editor: 200, viewer: null } as const;
  for (const role of ['owner', 'editor', 'viewer'] as const) {
    await addMembership({ orgId, userId: users[role], role, spendingLimit: limits[role] });
  }

  // A few weeks of history, written by the service's own charge, refund and grant, so that the
  // month spend counters (what limits and `admin org show` read) agree with the events.
  const run = async (days: number, role: 'owner' | 'editor', operationName: string) => {
    const operation = findOperation(operationName);
    return chargeOperation({
      orgId,
      userId: users[role],
      operation: operation.name,
      network: operation.network,
      cost: operation.cost,
      limits: { org: null, member: limits[role] },
      now: daysAgo(days),
    });
  };
  await run(12, 'editor', 'instagram_profile');
  await grantCredits(orgId, 250, daysAgo(6));
  const failed = await run(2, 'owner', 'tiktok_search');
  if (!(await refundCharge(failed, 'the upstream call failed', new Date(daysAgo(2).getTime() + 2_000)))) {
    throw new Error('seed: the sample refund could not be written');
  }
  await run(0.5, 'editor', 'youtube_channel');

  const deleted: DemoWorkspace['deleted'] = { asset: [], skill: [], conversation: [], project: [] };
  const live: DemoWorkspace['live'] = { asset: [], skill: [], conversation: [], project: [] };
  const make = async (kind: ResourceKind, by: string, fields: Omit<NewResource, 'orgId' | 'by'>) =>
    (await createResource(kind, buildResource(kind, { orgId, by, ...fields }))).id;

  const launch = await make('project', users.editor, { slug: 'spring-launch', title: 'Spring launch', visibility: 'workspace' });
  const archive = await make('project', users.owner, { slug: 'research-archive', title: 'Research archive', visibility: 'private' });
  live.project.push(launch);
  live.conversation.push(await make('conversation', users.editor, { title: 'Launch brief', projectId: launch }));
  live.asset.push(await make('asset', users.editor, { title: 'Brand guidelines' }));
  live.skill.push(await make('skill', users.owner, { name: 'Summarize thread' }));

  const toDelete: [ResourceKind, string][] = [
    ['asset', await make('asset', users.editor, { title: 'Old moodboard', visibility: 'workspace' })],
    ['asset', await make('asset', users.owner, { title: 'Private notes', visibility: 'private' })],
    ['skill', await make('skill', users.editor, { name: 'Competitor digest', visibility: 'workspace' })],
    ['conversation', await make('conversation', users.editor, { title: 'Draft captions', projectId: launch })],
    ['conversation', await make('conversation', users.owner, { title: 'Archive Q&A', projectId: archive })],
    ['project', archive],
  ];
  for (const [kind, id] of toDelete) {
    await softDeleteResource(kind, id, users.owner, daysAgo(3));
    deleted[kind].push(id);
  }
  return { orgId, users, deleted, live };
}
