/**
 * The four restorable resource kinds, as stored and as returned. A stored record holds every
 * API field except `workspace_role`, which depends on who asks (see presentResource).
 */

import type { AnyRecord } from '../db/resource-records.ts';
import type { ResourceKind, Role } from '../model.ts';

// The stored shapes live with storage (the lower layer); the domain's readers find them here too.
export {
  type AnyRecord,
  type AssetRecord,
  type ConversationRecord,
  isValidSlug,
  type ProjectRecord,
  type RecordOf,
  SKILL_SOURCES,
  type SkillRecord,
  type SkillSource,
  SLUG_MAX_LENGTH,
  VISIBILITIES,
  type Visibility,
} from '../db/resource-records.ts';

/** API field order per kind (spec section 2); also the projection of a stored item. */
export const FIELDS: Record<ResourceKind, readonly string[]> = {
  asset: [
    'id',
    'organization_id',
    'created_by_id',
    'type',
    'title',
    'mime_type',
    'url',
    'content',
    'upload_file_state',
    'enrichment_state',
    'visibility',
    'workspace_role',
    'metadata',
    'generation_id',
    'origin_conversation_id',
    'origin_canvas_id',
    'mod_transcript_id',
    'mod_asset_id',
    'mod_source_id',
    'dual_media_id',
    'deleted_at',
    'deleted_by_id',
    'created_at',
    'updated_at',
  ],
  skill: [
    'id',
    'codename',
    'organization_id',
    'source',
    'name',
    'description',
    'body',
    'files',
    'author',
    'project_scoped',
    'visibility',
    'workspace_role',
    'created_by_id',
    'mod_shortcut_id',
    'listing_id',
    'listing_version',
    'listing_edited_at',
    'deleted_at',
    'deleted_by_id',
    'created_at',
    'updated_at',
  ],
  conversation: [
    'id',
    'organization_id',
    'created_by_id',
    'title',
    'visibility',
    'workspace_role',
    'project_id',
    'active_leaf_id',
    'schedule_id',
    'forked_from_conversation_id',
    'message_count',
    'last_message_at',
    'active_run_id',
    'active_run_at',
    'mod_conversation_id',
    'deleted_at',
    'deleted_by_id',
    'created_at',
    'updated_at',
  ],
  project: [
    'id',
    'organization_id',
    'created_by_id',
    'slug',
    'title',
    'emoji',
    'description',
    'visibility',
    'workspace_role',
    'knowledge_skill_id',
    'mod_source_id',
    'metadata',
    'deleted_at',
    'deleted_by_id',
    'archived_at',
    'archived_by_id',
    'created_at',
    'updated_at',
  ],
};

/** `owner` for the resource's creator, otherwise the caller's membership role (DESIGN.md). */
export function workspaceRole(record: AnyRecord, userId: string, membershipRole: Role): Role {
  return record.created_by_id === userId ? 'owner' : membershipRole;
}

/** The resource as the API returns it to `userId`, fields in spec order, no storage attributes. */
export function presentResource(kind: ResourceKind, record: AnyRecord, role: Role): Record<string, unknown> {
  const source = record as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of FIELDS[kind]) {
    out[field] = field === 'workspace_role' ? role : (source[field] ?? null);
  }
  return out;
}
