import { type CommandGroup, command, orgId, UsageError } from './command.ts';

const ORG = { type: 'string', value: 'ID', required: true, description: 'the organization' } as const;
/** Long enough for a ticket reference and a sentence; a billing event is not a document. */
const REASON_MAX = 500;

/** How far ahead an operator's grant may expire: ten years. */
const MAX_AHEAD_MS = 10 * 366 * 86_400_000;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `--expires-at` as a UTC ISO string, or null when absent; an exit 2 naming what is wrong otherwise. */
function expiresAt(raw: string | undefined, nowMs: number): string | null {
  if (raw === undefined) return null;
  const ms = Date.parse(raw);
  if (!ISO_WITH_ZONE.test(raw) || Number.isNaN(ms)) {
    throw new UsageError(`--expires-at must be an ISO 8601 date and time with Z or an offset (2030-01-31T00:00:00Z), got "${raw}"`);
  }
  if (ms <= nowMs) throw new UsageError(`--expires-at must be in the future, got ${raw}`);
  if (ms > nowMs + MAX_AHEAD_MS) throw new UsageError(`--expires-at must be at most 10 years ahead, got ${raw}`);
  return new Date(ms).toISOString();
}

const grant = command({
  name: 'grant',
  summary: 'add credits as a grant, with a credits.granted event: prints { organization, event, grant }',
  options: {
    org: ORG,
    'expires-at': {
      type: 'string',
      value: 'ISO-8601',
      required: false,
      description: 'when what is left of the grant expires (with Z or an offset; in the future, at most 10 years ahead); default: never',
    },
    source: { type: 'string', value: 'operator|promotional', required: false, description: "the grant's source (default operator)" },
    amount: { type: 'string', value: 'N', required: true, description: 'credits to add (a positive whole number)' },
    reason: {
      type: 'string',
      value: 'TEXT',
      required: false,
      description: `why (the event's metadata.reason; default "credits granted by an operator"; at most ${REASON_MAX} characters)`,
    },
  },
  parse: (args) => {
    const reason = args.optional('reason')?.trim();
    if (reason !== undefined && (reason.length === 0 || reason.length > REASON_MAX)) {
      throw new UsageError(`--reason must be 1 to ${REASON_MAX} characters`);
    }
    const source = args.optional('source') ?? 'operator';
    if (source !== 'operator' && source !== 'promotional')
      throw new UsageError(`--source must be operator or promotional, got "${source}"`);
    return {
      orgId: orgId(args),
      amount: args.amount('amount'),
      reason,
      source,
      expiresAt: expiresAt(args.optional('expires-at'), Date.now()),
    } as const;
  },
  run: async ({ orgId, amount, reason, source, expiresAt }, target) =>
    (await import('../../lib/billing/grants.ts')).grantCredits(orgId, amount, new Date(), reason, {
      source,
      expiresAt,
      audit: await target.operator(),
    }),
});

const deduct = command({
  name: 'deduct',
  summary: 'take credits off, with a credits.deducted event (refused below zero)',
  options: {
    org: ORG,
    amount: { type: 'string', value: 'N', required: true, description: 'credits to take off (a positive whole number)' },
    reason: {
      type: 'string',
      value: 'TEXT',
      required: true,
      description: `why (the event's description; at most ${REASON_MAX} characters)`,
    },
  },
  parse: (args) => {
    const reason = args.required('reason').trim();
    if (reason.length > REASON_MAX) throw new UsageError(`--reason must be at most ${REASON_MAX} characters`);
    return { orgId: orgId(args), amount: args.amount('amount'), reason };
  },
  run: async ({ orgId, amount, reason }, target) => {
    const { deductCredits, getOrganization } = await import('../../lib/db/organizations.ts');
    // A hot organization's lanes go back first: a deduction takes what the balance holds, lanes included.
    if ((await getOrganization(orgId, { withLanes: false }))?.lanes) await (await import('../../lib/billing/lanes.ts')).reclaimLanes(orgId);
    return deductCredits(orgId, amount, reason, await target.operator());
  },
});

const migrateGrants = command({
  name: 'migrate-grants',
  summary:
    'give organizations from before grants their ledger, as their next event would: prints { organizations, converted, already, grants }',
  options: {
    org: {
      type: 'string',
      value: 'ID',
      required: false,
      description: 'only this organization (default: every organization, a page at a time)',
    },
  },
  parse: (args) => (args.flags.org === undefined ? {} : { orgId: orgId(args) }),
  run: async (input) => (await import('../../lib/admin/grants-migration.ts')).migrateGrants(input),
});

export const group: CommandGroup = { name: 'credits', commands: [grant, deduct, migrateGrants] };
