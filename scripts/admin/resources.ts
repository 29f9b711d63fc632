/**
 * Resources: `create|get <kind>`, `delete <kind> ID`, `archive project ID`. One group per verb,
 * one command per kind, so each verb's --help lists the kinds it takes.
 */
import { RESOURCE_KINDS, type ResourceKind } from '../../lib/model.ts';
import { type AnyRecord, isValidSlug, presentResource, SKILL_SOURCES, SLUG_MAX_LENGTH, VISIBILITIES } from '../../lib/resources/model.ts';
import { type Args, type CommandGroup, checkOneOf, command, orgId, UsageError, userId } from './command.ts';

const BY = { type: 'string', value: 'SUB', required: true, description: 'the member acting (must belong to the organization)' } as const;

/** Shown as an owner sees it (`workspace_role: owner`): an operator sees everything. */
const present = (kind: ResourceKind, record: AnyRecord) => presentResource(kind, record, 'owner');

const optionalOneOf = <T extends string>(args: Args, name: string, allowed: readonly T[]) =>
  args.optional(name) === undefined ? undefined : checkOneOf(args.optional(name)!, allowed, `--${name}`);

function slugOf(args: Args): string | undefined {
  const slug = args.optional('slug');
  if (slug !== undefined && !isValidSlug(slug)) {
    throw new UsageError(
      `--slug must be lowercase letters and digits in words joined by single hyphens, at most ${SLUG_MAX_LENGTH} characters, got "${slug}"`,
    );
  }
  return slug;
}

const createKind = (kind: ResourceKind) =>
  command({
    name: kind,
    summary: `create a live ${kind}`,
    options: {
      org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
      by: BY,
      visibility: { type: 'string', value: 'V', description: VISIBILITIES.join(' | ') },
      title: { type: 'string', value: 'T', description: 'title' },
      name: { type: 'string', value: 'N', description: 'name' },
      ...(kind === 'project'
        ? { slug: { type: 'string', value: 'S', description: 'unique among live projects (default: from the title)' } }
        : {}),
      ...(kind === 'conversation' ? { project: { type: 'string', value: 'ID', description: 'the live project it belongs to' } } : {}),
      ...(kind === 'skill' ? { source: { type: 'string', value: 'S', description: SKILL_SOURCES.join(' | ') } } : {}),
    },
    parse: (args) => ({
      orgId: orgId(args),
      by: userId(args, 'by'),
      visibility: optionalOneOf(args, 'visibility', VISIBILITIES),
      projectId: args.optional('project'),
      slug: slugOf(args),
      name: args.optional('name'),
      title: args.optional('title'),
      source: optionalOneOf(args, 'source', SKILL_SOURCES),
    }),
    run: async (input) => present(kind, await (await import('../../lib/admin/resources.ts')).createResourceAs(kind, input)),
  });

const deleteKind = (kind: ResourceKind) =>
  command({
    name: kind,
    positionals: ['ID'],
    summary: `soft-delete a ${kind} (restorable for the restore window)`,
    options: { by: BY, at: { type: 'string', value: 'ISO-8601', description: 'when it was deleted (default now)' } },
    parse: (args) => {
      const at = args.optional('at');
      if (at !== undefined && Number.isNaN(Date.parse(at))) throw new UsageError('--at must be an ISO 8601 date-time');
      return { id: args.positional(0, 'a resource id'), by: userId(args, 'by'), at: at === undefined ? new Date() : new Date(at) };
    },
    run: async ({ id, by, at }) => present(kind, await (await import('../../lib/admin/resources.ts')).deleteResourceAs(kind, id, by, at)),
  });

const getKind = (kind: ResourceKind) =>
  command({
    name: kind,
    positionals: ['ID'],
    summary: `show a ${kind}, deleted or not`,
    options: {},
    parse: (args) => ({ id: args.positional(0, 'a resource id') }),
    run: async ({ id }) => present(kind, await (await import('../../lib/admin/resources.ts')).requireResource(kind, id)),
  });

const archive = command({
  name: 'project',
  positionals: ['ID'],
  summary: 'archive a project (an archived one keeps its first stamp)',
  options: { by: BY },
  parse: (args) => ({ id: args.positional(0, 'a resource id'), by: userId(args, 'by') }),
  run: async ({ id, by }) => present('project', await (await import('../../lib/admin/resources.ts')).archiveProjectAs(id, by)),
});

export const createGroup: CommandGroup = { name: 'create', commands: RESOURCE_KINDS.map(createKind) };
export const deleteGroup: CommandGroup = { name: 'delete', commands: RESOURCE_KINDS.map(deleteKind) };
export const getGroup: CommandGroup = { name: 'get', commands: RESOURCE_KINDS.map(getKind) };
export const archiveGroup: CommandGroup = { name: 'archive', commands: [archive] };
