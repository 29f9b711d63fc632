import { type CommandGroup, command, orgId, UsageError } from './command.ts';

/** The key of the CLI's own cursors (as `events list`'s: not a secret; it binds a cursor to --org and every filter). */
const CLI_CURSOR_KEY = 'workspace-admin-cli';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;

const list = command({
  name: 'list',
  summary: "the organization's audit log, newest first, with the route's filters (follow next_cursor with --cursor while has_more)",
  options: {
    org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
    type: { type: 'string', value: 'a,b', description: '1 to 20 event types, comma-separated (docs/audit.md)' },
    'actor-id': { type: 'string', value: 'ID', description: "only this actor's events (a user's sub, a key's id, an operator's ARN)" },
    'target-id': { type: 'string', value: 'ID', description: "only this target's events (an organization, member, key or webhook id, …)" },
    from: { type: 'string', value: 'ISO-8601', description: 'only events at or after this instant (UTC, Z)' },
    to: { type: 'string', value: 'ISO-8601', description: 'only events before this instant (UTC, Z), after --from' },
    limit: { type: 'string', value: 'N', description: 'page size, 1 to 100 (default 25)' },
    cursor: { type: 'string', value: 'CURSOR', description: "the previous page's next_cursor (with the same --org and filters)" },
  },
  parse: (args) => {
    const text = (name: string) => {
      const value = args.optional(name);
      if (value !== undefined && (value.length === 0 || value.length > 255)) throw new UsageError(`--${name} must be 1 to 255 characters`);
      return value;
    };
    const instant = (name: string) => {
      const value = args.optional(name);
      if (value !== undefined && (!ISO_UTC.test(value) || Number.isNaN(Date.parse(value))))
        throw new UsageError(`--${name} must be an ISO 8601 UTC timestamp such as 2025-01-31T00:00:00Z, got "${value}"`);
      return value;
    };
    return {
      orgId: orgId(args),
      query: {
        type: args.optional('type'),
        actor_id: text('actor-id'),
        target_id: text('target-id'),
        from: instant('from'),
        to: instant('to'),
        limit: args.integer('limit', { min: 1, max: 100 }) ?? 25,
        cursor: args.optional('cursor'),
      },
    };
  },
  run: async ({ orgId, query }) => {
    const [{ readAuditLog }, { requireOrganization }, { ServiceError }] = await Promise.all([
      import('../../lib/workspace/audit-log.ts'),
      import('../../lib/admin/organizations.ts'),
      import('../../lib/errors.ts'),
    ]);
    try {
      // Read together: an unknown organization is refused rather than shown with no events.
      const [, page] = await Promise.all([requireOrganization(orgId), readAuditLog(orgId, query, CLI_CURSOR_KEY)]);
      return page;
    } catch (error) {
      // The route's 400 (a type, a reversed window, a cursor of other filters), in the CLI's words.
      if (error instanceof ServiceError && error.status === 400) {
        const issue = error.details.issues?.[0];
        throw new UsageError(issue ? `--${String(issue.path.at(-1)).replace('_', '-')} ${issue.message}` : error.message);
      }
      throw error;
    }
  },
});

export const group: CommandGroup = { name: 'audit', commands: [list] };
