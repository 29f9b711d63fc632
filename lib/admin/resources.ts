/**
 * Resources as an operator creates and changes them (seeding a workspace, support cases): on
 * behalf of a member (`by`), who must belong to the resource's organization.
 */
import { archiveProject, createResource, getResource, softDeleteResource } from '../db/resources.ts';
import { NoSuchResourceError, Refusal } from '../errors.ts';
import type { ResourceKind } from '../model.ts';
import { buildResource, type NewResource } from '../resources/factory.ts';
import type { ProjectRecord, RecordOf } from '../resources/model.ts';
import { requireMember } from './members.ts';
import { requireOrganization } from './organizations.ts';

/** Creates a live resource in `input.orgId` as member `input.by` (slug and name rules as the service's). */
export async function createResourceAs<K extends ResourceKind>(kind: K, input: NewResource): Promise<RecordOf[K]> {
  const record = buildResource(kind, input) as RecordOf[K];
  await requireOrganization(input.orgId);
  await requireMember(input.orgId, input.by);
  return createResource(kind, record);
}

/** Soft-deletes a resource as member `by` of its organization (a deleted one is returned as it is). */
export async function deleteResourceAs<K extends ResourceKind>(kind: K, id: string, by: string, at: Date): Promise<RecordOf[K]> {
  const current = await requireResource(kind, id);
  await requireMember(organizationOf(kind, current), by);
  return softDeleteResource(kind, id, by, at);
}

/** Archives a project as member `by` of its organization (an archived one keeps its first stamp). */
export async function archiveProjectAs(id: string, by: string): Promise<ProjectRecord> {
  const current = await requireResource('project', id);
  await requireMember(current.organization_id, by);
  return archiveProject(id, by);
}

export async function requireResource<K extends ResourceKind>(kind: K, id: string): Promise<RecordOf[K]> {
  const record = await getResource(kind, id);
  if (!record) throw new NoSuchResourceError(`${kind} ${id} does not exist`);
  return record;
}

/** A built-in skill belongs to no organization: no member can act on it. */
function organizationOf(kind: ResourceKind, record: RecordOf[ResourceKind]): string {
  if (!record.organization_id) throw new Refusal(`${kind} ${record.id} belongs to no organization: no member can change it`);
  return record.organization_id;
}
