import { type CommandGroup, command, orgId } from './command.ts';

const DAY_MS = 86_400_000;

const list = command({
  name: 'list',
  summary: 'billing events, newest first',
  options: {
    org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
    days: { type: 'string', value: 'N', description: 'how far back, 1 to 400 days (default 30)' },
    limit: { type: 'string', value: 'N', description: 'at most this many, 1 to 1000 (default 100)' },
  },
  parse: (args) => ({
    orgId: orgId(args),
    days: args.integer('days', { min: 1, max: 400 }) ?? 30,
    limit: args.integer('limit', { min: 1, max: 1000 }) ?? 100,
  }),
  run: async ({ orgId, days, limit }) => {
    const [{ listBillingEventsPage }, { requireOrganization }] = await Promise.all([
      import('../../lib/db/billing-events.ts'),
      import('../../lib/admin/organizations.ts'),
    ]);
    const until = new Date();
    const since = new Date(until.getTime() - days * DAY_MS);
    // Read together: an unknown organization is refused rather than shown with no events.
    const [, page] = await Promise.all([requireOrganization(orgId), listBillingEventsPage(orgId, { since, until }, limit)]);
    return { organization_id: orgId, since: since.toISOString(), events: page.events, has_more: page.hasMore };
  },
});

export const group: CommandGroup = { name: 'events', commands: [list] };
