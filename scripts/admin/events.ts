import { decodeCursor, encodeCursor, type PagePosition } from '../../lib/billing/cursor.ts';
import { type Args, type CommandGroup, command, orgId, UsageError } from './command.ts';

const DAY_MS = 86_400_000;

/**
 * The key of the CLI's own cursors. Not a secret: an operator running the CLI reads the table
 * anyway, and the API's cursors keep their deployment's key (CURSOR_SIGNING_KEY), which the CLI
 * does not have. The signature catches a cursor edited, cut short, or given with another --org
 * or --days, as the API's does.
 */
const CLI_CURSOR_KEY = 'workspace-admin-cli';

/** The page a --cursor stands for; checked in parse (pure: lib/billing/cursor.ts loads no SDK), before anything is read. */
function position(args: Args, expected: { orgId: string; days: number }): PagePosition | undefined {
  const cursor = args.optional('cursor');
  if (cursor === undefined) return undefined;
  const decoded = decodeCursor(cursor, CLI_CURSOR_KEY, expected);
  // The API's sentences, in the CLI's words: `days=7` is `--days 7` here.
  if (typeof decoded === 'string') throw new UsageError(`--cursor ${decoded.replaceAll('days=', '--days ')}`);
  return decoded;
}

const list = command({
  name: 'list',
  summary: 'billing events, newest first, a page at a time (follow next_cursor with --cursor while has_more)',
  options: {
    org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
    days: { type: 'string', value: 'N', description: 'how far back, 1 to 400 days (default 30)' },
    limit: { type: 'string', value: 'N', description: 'page size, 1 to 1000 (default 100)' },
    cursor: {
      type: 'string',
      value: 'CURSOR',
      description: "the previous page's next_cursor: the page after it (with the same --org and --days)",
    },
  },
  parse: (args) => {
    const input = {
      orgId: orgId(args),
      days: args.integer('days', { min: 1, max: 400 }) ?? 30,
      limit: args.integer('limit', { min: 1, max: 1000 }) ?? 100,
    };
    return { ...input, position: position(args, input) };
  },
  run: async ({ orgId, days, limit, position }) => {
    const [{ listBillingEventsPage }, { requireOrganization }] = await Promise.all([
      import('../../lib/db/billing-events.ts'),
      import('../../lib/admin/organizations.ts'),
    ]);
    // The first page fixes the window's end; each cursor carries it, so that a walk lists each
    // event of the window once while new ones are written (as the API's walk does).
    const endMs = position?.endMs ?? Date.now();
    const since = new Date(endMs - days * DAY_MS);
    // Read together: an unknown organization is refused rather than shown with no events.
    const [, page] = await Promise.all([
      requireOrganization(orgId),
      listBillingEventsPage(orgId, { since, until: new Date(endMs) }, limit, position?.after),
    ]);
    return {
      organization_id: orgId,
      since: since.toISOString(),
      events: page.events,
      next_cursor: page.next === undefined ? null : encodeCursor({ orgId, days, endMs, after: page.next }, CLI_CURSOR_KEY),
      has_more: page.hasMore,
    };
  },
});

export const group: CommandGroup = { name: 'events', commands: [list] };
