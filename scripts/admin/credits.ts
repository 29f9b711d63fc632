import { type CommandGroup, command, orgId, UsageError } from './command.ts';

const ORG = { type: 'string', value: 'ID', required: true, description: 'the organization' } as const;
/** Long enough for a ticket reference and a sentence; a billing event is not a document. */
const REASON_MAX = 500;

const grant = command({
  name: 'grant',
  summary: 'add credits, with a credits.granted event',
  options: {
    org: ORG,
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
    return { orgId: orgId(args), amount: args.amount('amount'), reason };
  },
  run: async ({ orgId, amount, reason }) => (await import('../../lib/db/organizations.ts')).grantCredits(orgId, amount, new Date(), reason),
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
  run: async ({ orgId, amount, reason }) => (await import('../../lib/db/organizations.ts')).deductCredits(orgId, amount, reason),
});

export const group: CommandGroup = { name: 'credits', commands: [grant, deduct] };
