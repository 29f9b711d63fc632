import { createHash } from 'node:crypto';
import { grantCredits } from '../billing/grants.ts';
import { chargeRun, refundRun, settleRun } from '../billing/paid-run.ts';
import { getMembership } from '../db/memberships.ts';
import { createOrganization, getOrganization } from '../db/organizations.ts';
import { createResource, getResource, softDeleteResource } from '../db/resources.ts';
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
  /** False when the workspace was already there (a kept DATA_DIR): nothing was written. */
  seeded: boolean;
  /** Soft-deleted resources a demo caller can restore, by kind. */
  deleted: Record<ResourceKind, string[]>;
  /** Live resources (restoring them is a no-op that answers 200). */
  live: Record<ResourceKind, string[]>;
}

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

const DEMO_ID_NAMESPACE = Buffer.from('6f1c2a4e9b3d4c8a8e2f5a7b1d0c3e9f', 'hex');

/**
 * The id of a demo resource: a name-based UUID (version 5, RFC 9562), the same at every seed,
 * so that a restart on a kept DATA_DIR finds the demo's resources again by reading them.
 */
export function demoResourceId(name: string): string {
  const hash = createHash('sha1').update(DEMO_ID_NAMESPACE).update(name).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

type Role = keyof typeof DEMO.users;
interface DemoResource {
  kind: ResourceKind;
  name: string;
  by: Role;
  fields: Omit<NewResource, 'orgId' | 'by' | 'projectId'> & { project?: string };
  /** Soft-deleted by the owner three days ago. */
  deleted?: true;
}

/** In creation order (a conversation's project first); deletions follow, children first. */
const DEMO_RESOURCES: DemoResource[] = [
  {
    kind: 'project',
    name: 'spring-launch',
    by: 'editor',
    fields: { slug: 'spring-launch', title: 'Spring launch', visibility: 'workspace' },
  },
  {
    kind: 'project',
    name: 'research-archive',
    by: 'owner',
    fields: { slug: 'research-archive', title: 'Research archive', visibility: 'private' },
    deleted: true,
  },
  { kind: 'conversation', name: 'launch-brief', by: 'editor', fields: { title: 'Launch brief', project: 'spring-launch' } },
  { kind: 'asset', name: 'brand-guidelines', by: 'editor', fields: { title: 'Brand guidelines' } },
  { kind: 'skill', name: 'summarize-thread', by: 'owner', fields: { name: 'Summarize thread' } },
  { kind: 'asset', name: 'old-moodboard', by: 'editor', fields: { title: 'Old moodboard', visibility: 'workspace' }, deleted: true },
  { kind: 'asset', name: 'private-notes', by: 'owner', fields: { title: 'Private notes', visibility: 'private' }, deleted: true },
  { kind: 'skill', name: 'competitor-digest', by: 'editor', fields: { name: 'Competitor digest', visibility: 'workspace' }, deleted: true },
  {
    kind: 'conversation',
    name: 'draft-captions',
    by: 'editor',
    fields: { title: 'Draft captions', project: 'spring-launch' },
    deleted: true,
  },
  { kind: 'conversation', name: 'archive-qa', by: 'owner', fields: { title: 'Archive Q&A', project: 'research-archive' }, deleted: true },
];

const idOf = (resource: Pick<DemoResource, 'kind' | 'name'>) => demoResourceId(`${DEMO.orgId}/${resource.kind}/${resource.name}`);
const noneByKind = (): Record<ResourceKind, string[]> => ({ asset: [], skill: [], conversation: [], project: [] });

/**
 * The demo's resources as they are now, read from the table: the deleted ones still there to
 * restore (not restored since), and the live ones. Resources of a workspace seeded before the
 * ids were fixed are not found.
 */
async function demoResourcesNow(): Promise<Pick<DemoWorkspace, 'deleted' | 'live'>> {
  const deleted = noneByKind();
  const live = noneByKind();
  const found = await Promise.all(
    DEMO_RESOURCES.map(async (resource) => ({ resource, record: await getResource(resource.kind, idOf(resource)) })),
  );
  for (const { resource, record } of found) {
    if (record) (record.deleted_at ? deleted : live)[resource.kind].push(record.id);
  }
  return { deleted, live };
}

/**
 * The demo workspace of `npm start`: an owner, an editor and a viewer; live and deleted
 * resources of all four kinds; credits and a few weeks of billing events.
 * Idempotent: if the organization exists (a kept DATA_DIR), nothing is written and the demo's
 * resources are read back.
 */
export async function seedDemoWorkspace(): Promise<DemoWorkspace> {
  const { orgId, users } = DEMO;
  if (await getOrganization(orgId)) return { orgId, users, seeded: false, ...(await demoResourcesNow()) };
  // With its members in the same write: a seed cut short leaves no organization without them
  // (which the check above would then take for a finished seed).
  const limits = { owner: null, editor: 200, viewer: null } as const;
  await createOrganization({
    id: orgId,
    name: 'Demo Workspace',
    credits: 1000,
    now: daysAgo(20),
    members: (['owner', 'editor', 'viewer'] as const).map((role) => ({ userId: users[role], role, spendingLimit: limits[role] })),
  });

  // A few weeks of history, written by the service's own charge, refund and grant, so that the
  // month spend counters (what limits and `admin org show` read) agree with the events.
  const run = async (days: number, role: 'owner' | 'editor', operationName: string) => {
    const operation = findOperation(operationName);
    const [org, member] = await Promise.all([getOrganization(orgId), getMembership(orgId, users[role])]);
    if (!org || !member) throw new Error('seed: the demo organization or its member is missing');
    return chargeRun(
      { org, member },
      {
        orgId,
        userId: users[role],
        operation: operation.name,
        network: operation.network,
        cost: operation.cost,
        now: daysAgo(days),
        owner: 'seed',
        sweepAfterMs: daysAgo(days).getTime() + 60_000,
      },
    );
  };
  const settledNow = () => ({ untilMs: Date.now() + 5_000, nowMs: Date.now() });
  // A delivered run settles its pending record; a failed one is refunded (which removes it).
  await settleRun(await run(12, 'editor', 'instagram_profile'), undefined, settledNow());
  await grantCredits(orgId, 250, daysAgo(6));
  const failed = await run(2, 'owner', 'tiktok_search');
  if ((await refundRun(failed, 'the upstream call failed', { now: new Date(daysAgo(2).getTime() + 2_000) })) !== 'refunded') {
    throw new Error('seed: the sample refund could not be written');
  }
  await settleRun(await run(0.5, 'editor', 'youtube_channel'), undefined, settledNow());

  for (const resource of DEMO_RESOURCES) {
    const { project, ...fields } = resource.fields;
    const record = buildResource(resource.kind, {
      orgId,
      by: users[resource.by],
      ...fields,
      ...(project ? { projectId: idOf({ kind: 'project', name: project }) } : {}),
    });
    await createResource(resource.kind, { ...record, id: idOf(resource) });
  }
  for (const resource of DEMO_RESOURCES.filter((each) => each.deleted).reverse()) {
    await softDeleteResource(resource.kind, idOf(resource), users.owner, daysAgo(3));
  }
  return { orgId, users, seeded: true, ...(await demoResourcesNow()) };
}
