import { AlreadyMemberError } from '../../lib/errors.ts';
import { ROLES } from '../../lib/model.ts';
import { type Args, type CommandGroup, command, orgId, userId } from './command.ts';

const ORG = { type: 'string', value: 'ID', required: true, description: 'the organization' } as const;
const USER = { type: 'string', value: 'SUB', required: true, description: "the member's user id (their token's sub)" } as const;
const ROLE = { type: 'string', value: 'ROLE', required: true, description: ROLES.join(' | ') } as const;

/** `--limit N` or `--limit none` (required). */
const limitOf = (args: Args, name: string): number | null => (args.required(name) === 'none' ? null : args.integer(name)!);

const add = command({
  name: 'add',
  summary: 'add a member (refused if already one: see set-role, set-spending-limit, remove)',
  options: {
    org: ORG,
    user: USER,
    role: ROLE,
    'spending-limit': { type: 'string', value: 'N', description: 'monthly spending limit in credits (default none)' },
    'daily-limit': { type: 'string', value: 'N', description: 'daily spending limit in credits (default none)' },
  },
  parse: (args) => ({
    orgId: orgId(args),
    userId: userId(args),
    role: args.oneOf('role', ROLES),
    spendingLimit: args.integer('spending-limit') ?? null,
    dailyLimit: args.integer('daily-limit') ?? null,
  }),
  run: async (input, target) => {
    const { addMembership } = await import('../../lib/db/memberships.ts');
    try {
      return await addMembership({ ...input, audit: await target.operator() });
    } catch (error) {
      if (!(error instanceof AlreadyMemberError)) throw error;
      throw new AlreadyMemberError(
        `${error.message}; change a member with \`member set-role\`, \`member set-spending-limit\` or \`member remove\``,
        error.member,
      );
    }
  },
});

const list = command({
  name: 'list',
  summary: 'members with role, spending limit and spend this month',
  options: { org: ORG },
  parse: (args) => ({ orgId: orgId(args) }),
  run: async ({ orgId }) => (await import('../../lib/admin/members.ts')).listMembersWithSpend(orgId),
});

const setRole = command({
  name: 'set-role',
  summary: "change a member's role (spending limit and created_at stay)",
  options: { org: ORG, user: USER, role: ROLE },
  parse: (args) => ({ orgId: orgId(args), userId: userId(args), role: args.oneOf('role', ROLES) }),
  run: async ({ orgId, userId, role }, target) =>
    (await import('../../lib/db/memberships.ts')).setMemberRole(orgId, userId, role, await target.operator()),
});

const setSpendingLimit = command({
  name: 'set-spending-limit',
  summary: "change a member's monthly spending limit (role and created_at stay)",
  options: {
    org: ORG,
    user: USER,
    limit: { type: 'string', value: 'N|none', required: true, description: 'credits per UTC month, or none' },
  },
  parse: (args) => ({ orgId: orgId(args), userId: userId(args), limit: limitOf(args, 'limit') }),
  run: async ({ orgId, userId, limit }, target) =>
    (await import('../../lib/db/memberships.ts')).setMemberSpendingLimit(orgId, userId, limit, await target.operator()),
});

const setDailyLimit = command({
  name: 'set-daily-limit',
  summary: "change a member's daily spending limit (role and monthly limit stay)",
  options: {
    org: ORG,
    user: USER,
    limit: { type: 'string', value: 'N|none', required: true, description: 'credits per UTC day, or none' },
  },
  parse: (args) => ({ orgId: orgId(args), userId: userId(args), limit: limitOf(args, 'limit') }),
  run: async ({ orgId, userId, limit }, target) =>
    (await import('../../lib/db/memberships.ts')).setMemberDailyLimit(orgId, userId, limit, await target.operator()),
});

const remove = command({
  name: 'remove',
  summary: 'remove a member (their spend history stays)',
  options: { org: ORG, user: USER },
  parse: (args) => ({ orgId: orgId(args), userId: userId(args) }),
  run: async ({ orgId, userId }, target) => ({
    removed: await (await import('../../lib/db/memberships.ts')).removeMembership(orgId, userId, await target.operator()),
  }),
});

export const group: CommandGroup = { name: 'member', commands: [add, list, setRole, setSpendingLimit, setDailyLimit, remove] };
