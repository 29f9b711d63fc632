/**
 * The zod schema of each restorable kind as the API returns it, built from the field lists of
 * model.ts (one list per kind, in spec order): the API description's 200 bodies of the four
 * restore routes. Each field's type is stated once here; a name that means something else in
 * one kind (a skill's optional owner, a project's required title) is overridden for that kind.
 */
import * as z from 'zod/mini';
import { type ResourceKind, ROLES } from '../model.ts';
import { FIELDS, SKILL_SOURCES, VISIBILITIES } from './model.ts';

const text = z.string();
const optionalText = z.nullable(z.string());
const time = z.iso.datetime();
const optionalTime = z.nullable(z.iso.datetime());
const json = z.unknown();

const COMMON: Record<string, z.core.$ZodType> = {
  id: z.uuid(),
  organization_id: text,
  created_by_id: text,
  visibility: z.enum(VISIBILITIES),
  workspace_role: z.enum(ROLES),
  title: optionalText,
  description: optionalText,
  metadata: json,
  mod_source_id: optionalText,
  deleted_at: optionalTime,
  deleted_by_id: optionalText,
  created_at: time,
  updated_at: time,
};

const BY_KIND: Record<ResourceKind, Record<string, z.core.$ZodType>> = {
  asset: {
    type: z.enum(['image', 'video', 'audio', 'document', 'text', 'transcript']),
    mime_type: optionalText,
    url: optionalText,
    content: optionalText,
    upload_file_state: z.nullable(z.enum(['in_progress', 'success', 'error'])),
    enrichment_state: z.nullable(z.enum(['ignored', 'pending', 'in_progress', 'success', 'error'])),
    generation_id: optionalText,
    origin_conversation_id: optionalText,
    origin_canvas_id: optionalText,
    mod_transcript_id: optionalText,
    mod_asset_id: optionalText,
    dual_media_id: optionalText,
  },
  skill: {
    codename: optionalText,
    organization_id: optionalText,
    created_by_id: optionalText,
    source: z.enum(SKILL_SOURCES),
    name: text,
    description: text,
    body: text,
    files: json,
    author: optionalText,
    project_scoped: z.boolean(),
    mod_shortcut_id: optionalText,
    listing_id: optionalText,
    listing_version: z.nullable(z.int()),
    listing_edited_at: optionalTime,
  },
  conversation: {
    project_id: optionalText,
    active_leaf_id: optionalText,
    schedule_id: optionalText,
    forked_from_conversation_id: optionalText,
    message_count: z.int().check(z.nonnegative()),
    last_message_at: optionalTime,
    active_run_id: optionalText,
    active_run_at: optionalTime,
    mod_conversation_id: optionalText,
  },
  project: {
    slug: text,
    title: text,
    emoji: optionalText,
    knowledge_skill_id: optionalText,
    archived_at: optionalTime,
    archived_by_id: optionalText,
  },
};

/** The resource of `kind` as presentResource returns it: every field of FIELDS[kind], in order. */
export function resourceSchema(kind: ResourceKind) {
  const fieldType = (field: string) => {
    const type = BY_KIND[kind][field] ?? COMMON[field];
    if (!type) throw new Error(`resources: no type for field ${kind}.${field}`);
    return type;
  };
  return z.object(Object.fromEntries(FIELDS[kind].map((field) => [field, fieldType(field)])));
}
