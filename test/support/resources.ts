import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { handler as restoreAsset } from '../../functions/restore-asset.ts';
import { handler as restoreConversation } from '../../functions/restore-conversation.ts';
import { handler as restoreProject } from '../../functions/restore-project.ts';
import { handler as restoreSkill } from '../../functions/restore-skill.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { claimsOf, createResource, getResource, softDeleteResource } from '../../lib/db/resources.ts';
import type { ResourceKind, Role } from '../../lib/model.ts';
import { buildResource, type NewResource } from '../../lib/resources/factory.ts';
import { type AnyRecord, presentResource, type RecordOf } from '../../lib/resources/model.ts';
import { call } from './http.ts';
import { tokenFor } from './tokens.ts';

export const restoreHandlers = {
  asset: restoreAsset,
  skill: restoreSkill,
  conversation: restoreConversation,
  project: restoreProject,
} as const;

const segment: Record<ResourceKind, string> = { asset: 'assets', skill: 'skills', conversation: 'conversations', project: 'projects' };

export const restoreUrl = (kind: ResourceKind, id: string) => `/${segment[kind]}/${id}/restore`;

/** POST …/restore as `userId`, through the real handler of that kind. */
export const restore = (kind: ResourceKind, id: string, userId: string, extra: { headers?: Record<string, string>; body?: unknown } = {}) =>
  call(restoreHandlers[kind], { method: 'POST', url: restoreUrl(kind, id), token: tokenFor(userId), ...extra });

/** A live resource stored through the same path as the admin CLI (claims taken in a transaction). */
export async function live<K extends ResourceKind>(kind: K, fields: NewResource): Promise<RecordOf[K]> {
  return (await createResource(kind, buildResource(kind, fields) as RecordOf[K])) as RecordOf[K];
}

/** A resource created and then soft-deleted by `deletedBy` at `at` (default: now). */
export async function deleted<K extends ResourceKind>(
  kind: K,
  fields: NewResource,
  deletedBy = fields.by,
  at = new Date(),
): Promise<RecordOf[K]> {
  const record = await live(kind, fields);
  return softDeleteResource(kind, record.id, deletedBy, at);
}

export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The documented 200 body for `record` restored, as seen by a caller whose role is `role`. */
export function restoredBody(kind: ResourceKind, record: AnyRecord, role: Role, updatedAt: unknown = expectAfter(record.updated_at)) {
  const resource = presentResource(kind, { ...record, deleted_at: null, deleted_by_id: null, updated_at: updatedAt as string }, role);
  return kind === 'skill' ? { skill: resource } : resource;
}

/** The resource out of a 200 body (the skill comes wrapped). */
export const resourceOf = (kind: ResourceKind, body: any) => (kind === 'skill' ? body.skill : body);

/** An asymmetric matcher: an ISO 8601 UTC date-time strictly after `iso`. */
export const expectAfter = (iso: string) => ({
  asymmetricMatch: (value: unknown) => typeof value === 'string' && ISO.test(value) && Date.parse(value) > Date.parse(iso),
  toString: () => `a date-time after ${iso}`,
  toAsymmetricMatcher: () => `a date-time after ${iso}`,
});

/**
 * Whether a resource deleted as `before` is now wholly restored (item live, no purge time, its
 * slug/name claims held by it) or wholly still deleted (item as it was, claims free), or how it
 * is neither: a restore is one write, so no fault may leave it half done.
 */
export async function restoreState(
  kind: ResourceKind,
  before: AnyRecord & { expires_at?: number },
): Promise<'restored' | 'deleted' | string> {
  const item = (await getResource(kind, before.id)) as (AnyRecord & { expires_at?: number }) | null;
  const claims = await Promise.all(
    claimsOf(kind, before).map(async (claim) => {
      const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: claim.key, ConsistentRead: true }));
      return Item?.owner_id;
    }),
  );
  if (!item) return 'the item is gone';
  if (
    item.deleted_at === null &&
    item.deleted_by_id === null &&
    item.expires_at === undefined &&
    claims.every((owner) => owner === before.id)
  ) {
    return 'restored';
  }
  const unchanged = item.deleted_at === before.deleted_at && item.updated_at === before.updated_at && item.expires_at === before.expires_at;
  if (unchanged && claims.every((owner) => owner === undefined)) return 'deleted';
  return `half restored: deleted_at ${item.deleted_at}, expires_at ${item.expires_at}, claims held by ${JSON.stringify(claims)}`;
}
