import { randomUUID } from 'node:crypto';
import type { ResourceKind } from '../model.ts';
import { type AnyRecord, isValidSlug, type SkillSource, SLUG_MAX_LENGTH, type Visibility } from './model.ts';

export interface NewResource {
  orgId: string;
  by: string;
  visibility?: Visibility;
  projectId?: string;
  slug?: string;
  name?: string;
  title?: string;
  source?: SkillSource;
  now?: Date;
}

/** A title as a slug that isValidSlug accepts (trimmed again after the cut: no trailing hyphen). */
export const slugify = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '') || 'project';

/** A new live resource with the defaults a freshly created one has (admin CLI, seed, tests). */
export function buildResource(kind: ResourceKind, input: NewResource): AnyRecord {
  const now = (input.now ?? new Date()).toISOString();
  const id = randomUUID();
  const common = {
    id,
    visibility: input.visibility ?? 'workspace',
    deleted_at: null,
    deleted_by_id: null,
    created_at: now,
    updated_at: now,
  };
  switch (kind) {
    case 'asset':
      return {
        ...common,
        organization_id: input.orgId,
        created_by_id: input.by,
        type: 'document',
        title: input.title ?? null,
        mime_type: 'text/plain',
        url: null,
        content: input.title ? `Notes: ${input.title}` : null,
        upload_file_state: 'success',
        enrichment_state: 'ignored',
        metadata: {},
        generation_id: null,
        origin_conversation_id: null,
        origin_canvas_id: null,
        mod_transcript_id: null,
        mod_asset_id: null,
        mod_source_id: null,
        dual_media_id: null,
      };
    case 'skill': {
      const source = input.source ?? 'custom';
      return {
        ...common,
        codename: null,
        organization_id: source === 'custom' ? input.orgId : null,
        source,
        name: input.name ?? input.title ?? `Skill ${id.slice(0, 8)}`,
        description: '',
        body: '',
        files: [],
        author: null,
        project_scoped: false,
        created_by_id: input.by,
        mod_shortcut_id: null,
        listing_id: null,
        listing_version: null,
        listing_edited_at: null,
      };
    }
    case 'conversation':
      return {
        ...common,
        organization_id: input.orgId,
        created_by_id: input.by,
        title: input.title ?? null,
        project_id: input.projectId ?? null,
        active_leaf_id: null,
        schedule_id: null,
        forked_from_conversation_id: null,
        message_count: 0,
        last_message_at: null,
        active_run_id: null,
        active_run_at: null,
        mod_conversation_id: null,
      };
    case 'project': {
      if (input.slug !== undefined && !isValidSlug(input.slug)) throw new Error(`slug "${input.slug}" breaks the slug rule`);
      const title = input.title ?? input.name ?? input.slug ?? `Project ${id.slice(0, 8)}`;
      return {
        ...common,
        organization_id: input.orgId,
        created_by_id: input.by,
        slug: input.slug ?? slugify(title),
        title,
        emoji: null,
        description: null,
        knowledge_skill_id: null,
        mod_source_id: null,
        metadata: {},
        archived_at: null,
        archived_by_id: null,
      };
    }
  }
}
