/**
 * The four restorable resource kinds as stored: the record shapes the storage layer reads and
 * writes, and the values their fields take. The domain (lib/resources/model.ts) presents them.
 */
import type { ResourceKind } from '../model.ts';

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
