import { handler as restoreAsset } from '../../functions/restore-asset.ts';
import { handler as restoreConversation } from '../../functions/restore-conversation.ts';
import { handler as restoreProject } from '../../functions/restore-project.ts';
import { handler as restoreSkill } from '../../functions/restore-skill.ts';
import { createResource, softDeleteResource } from '../../lib/db/resources.ts';
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
