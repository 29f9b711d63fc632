import { ServiceError } from '../../lib/errors.ts';
import { GROUP_KEYS, usageWindow } from '../../lib/usage/report.ts';
import { type CommandGroup, checkOneOf, command, orgId, UsageError } from './command.ts';

const show = command({
  name: 'show',
  summary: "an organization's usage by hour or day (GET …/usage as its owners see it), JSON or CSV",
  options: {
    org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
    from: { type: 'string', value: 'ISO', required: true, description: 'the first bucket, e.g. 2025-01-01T00:00:00Z' },
    to: { type: 'string', value: 'ISO', required: true, description: 'the end of the last bucket (excluded)' },
    granularity: { type: 'string', value: 'hour|day', description: 'bucket size (default day): at most 168 hours or 93 days' },
    'group-by': { type: 'string', value: 'KEYS', description: `comma-separated: ${GROUP_KEYS.join(', ')}` },
    csv: { type: 'boolean', description: 'print CSV (as Accept: text/csv answers) instead of JSON' },
  },
  parse: (args) => {
    const granularity = checkOneOf(args.optional('granularity') ?? 'day', ['hour', 'day'] as const, '--granularity');
    const instant = (name: 'from' | 'to') => {
      const value = args.required(name);
      instantOf(value, name);
      return value;
    };
    const groupBy = args.optional('group-by');
    const query = { from: instant('from'), to: instant('to'), granularity, ...(groupBy === undefined ? {} : { group_by: groupBy }) };
    try {
      // The route's own rules, with its words: a bad window is bad usage here.
      return { orgId: orgId(args), window: usageWindow(query, Date.now()), csv: args.flags.csv === true };
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const issue = error.details.issues?.[0];
      throw new UsageError(`--${String(issue?.path[1] ?? '').replace('_', '-')} ${issue?.message ?? error.message}`);
    }
  },
  run: async ({ orgId, window, csv }) => {
    const [{ organizationUsage }, { requireOrganization }, { usageRows }, { csvText }] = await Promise.all([
      import('../../lib/usage/usage.ts'),
      import('../../lib/admin/organizations.ts'),
      import('../../lib/usage/report.ts'),
      import('../../lib/http/csv.ts'),
    ]);
    // Read together: an unknown organization is refused rather than shown with empty buckets.
    const [, report] = await Promise.all([requireOrganization(orgId), organizationUsage(orgId, window)]);
    if (!csv) return { organization_id: orgId, ...report };
    const { header, rows } = usageRows(report);
    return csvText(header, rows);
  },
});

const recount = command({
  name: 'recount',
  summary: "count again an organization's charges and refunds of a window from its billing events (what is counted is skipped)",
  options: {
    org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
    from: { type: 'string', value: 'ISO', required: true, description: 'from this instant (included)' },
    to: { type: 'string', value: 'ISO', required: true, description: 'to this instant (excluded)' },
  },
  parse: (args) => {
    const fromMs = instantOf(args.required('from'), 'from');
    const toMs = instantOf(args.required('to'), 'to');
    if (toMs <= fromMs) throw new UsageError('--to must be after --from');
    return { orgId: orgId(args), fromMs, toMs };
  },
  run: async ({ orgId, fromMs, toMs }) => {
    const [{ recountUsage }, { requireOrganization }] = await Promise.all([
      import('../../lib/usage/aggregate.ts'),
      import('../../lib/admin/organizations.ts'),
    ]);
    await requireOrganization(orgId);
    return {
      organization_id: orgId,
      from: new Date(fromMs).toISOString(),
      to: new Date(toMs).toISOString(),
      ...(await recountUsage(orgId, fromMs, toMs)),
    };
  },
});

function instantOf(value: string, name: string): number {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?Z$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new UsageError(`--${name} must be an ISO 8601 UTC timestamp such as 2025-01-31T00:00:00Z, got "${value}"`);
  }
  return Date.parse(value);
}

export const group: CommandGroup = { name: 'usage', commands: [show, recount] };
