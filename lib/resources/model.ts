/**
 * The four restorable resource kinds, as stored and as returned. A stored record holds every
 * API field except `workspace_role`, which depends on who asks (see presentResource).
 */
import type { ResourceKind, Role } from '../model.ts';

export const VISIBILITIES = ['private', 'workspace', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/**
 * A project slug: lowercase letters and digits in words joined by single hyphens, at most 60
 * characters: what a title is slugified into (lib/resources/factory.ts), and all a slug may be.
 */
export const SLUG_MAX_LENGTH = 60;
export const isValidSlug = (slug: string): boolean => slug.length <= SLUG_MAX_LENGTH && /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug);

export const SKILL_SOURCES = ['custom', 'built-in', 'community'] as const;
export type SkillSource = (typeof SKILL_SOURCES)[number];

type Json = unknown;

interface Deletable {
  id: string;
  visibility: Visibility;
  deleted_at: string | null;
  deleted_by_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface AssetRecord extends Deletable {
  organization_id: string;
  created_by_id: string;
  type: 'image' | 'video' | 'audio' | 'document' | 'text' | 'transcript';
  title: string | null;
  mime_type: string | null;
  url: string | null;
  content: string | null;
  upload_file_state: 'in_progress' | 'success' | 'error' | null;
  enrichment_state: 'ignored' | 'pending' | 'in_progress' | 'success' | 'error' | null;
  metadata: Json;
  generation_id: string | null;
  origin_conversation_id: string | null;
  origin_canvas_id: string | null;
  mod_transcript_id: string | null;
  mod_asset_id: string | null;
  mod_source_id: string | null;
  dual_media_id: string | null;
}

export interface SkillRecord extends Deletable {
  codename: string | null;
  organization_id: string | null;
  source: SkillSource;
  name: string;
  description: string;
  body: string;
  files: Json;
  author: string | null;
  project_scoped: boolean;
  created_by_id: string | null;
  mod_shortcut_id: string | null;
  listing_id: string | null;
  listing_version: number | null;
  listing_edited_at: string | null;
}

export interface ConversationRecord extends Deletable {
  organization_id: string;
  created_by_id: string;
  title: string | null;
  project_id: string | null;
  active_leaf_id: string | null;
  schedule_id: string | null;
  forked_from_conversation_id: string | null;
  message_count: number;
  last_message_at: string | null;
  active_run_id: string | null;
  active_run_at: string | null;
  mod_conversation_id: string | null;
}

export interface ProjectRecord extends Deletable {
  organization_id: string;
  created_by_id: string;
  slug: string;
  title: string;
  emoji: string | null;
  description: string | null;
  knowledge_skill_id: string | null;
  mod_source_id: string | null;
  metadata: Json;
  archived_at: string | null;
  archived_by_id: string | null;
}

export interface RecordOf {
  asset: AssetRecord;
  skill: SkillRecord;
  conversation: ConversationRecord;
  project: ProjectRecord;
}
export type AnyRecord = RecordOf[ResourceKind];

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
