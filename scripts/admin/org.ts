import { NETWORKS, type Network } from '../../lib/model.ts';
import { type Args, type CommandGroup, checkOneOf, command, orgId, UsageError } from './command.ts';

/** `instagram,x` → the networks, each checked against the vocabulary. */
export const networks = (args: Args, name = 'networks'): Network[] =>
  args
    .required(name)
    .split(',')
    .map((network) => checkOneOf(network.trim(), NETWORKS, `network "${network}" in --${name}`));

const create = command({
  name: 'create',
  summary: 'create an organization, with its opening balance as a credits.granted event',
  options: {
    id: { type: 'string', value: 'org_…', required: true, description: 'the new organization id' },
    name: { type: 'string', value: 'NAME', description: 'display name (default: the id)' },
    credits: { type: 'string', value: 'N', description: 'opening balance (default 0)' },
    networks: { type: 'string', value: 'a,b', description: `enabled networks (default all: ${NETWORKS.join(',')})` },
    'spending-limit': { type: 'string', value: 'N', description: 'monthly spending limit in credits (default none)' },
    'daily-limit': { type: 'string', value: 'N', description: 'daily spending limit in credits (default none)' },
  },
  parse: (args) => ({
    id: orgId(args, 'id'),
    name: args.optional('name'),
    credits: args.integer('credits'),
    networks: args.optional('networks') === undefined ? undefined : networks(args),
    spendingLimit: args.integer('spending-limit') ?? null,
    dailyLimit: args.integer('daily-limit') ?? null,
  }),
  run: async (input, target) =>
    (await import('../../lib/db/organizations.ts')).createOrganization({ ...input, audit: await target.operator() }),
});

const show = command({
  name: 'show',
  summary: 'balance, networks, spending limit and spend this month',
  options: { org: { type: 'string', value: 'ID', required: true, description: 'the organization' } },
  parse: (args) => ({ orgId: orgId(args) }),
  run: async ({ orgId }) => (await import('../../lib/admin/organizations.ts')).showOrganization(orgId),
});

const list = command({
  name: 'list',
  summary: 'organizations in id order, a page at a time',
  options: {
    limit: { type: 'string', value: 'N', description: 'page size, 1 to 100 (default 100)' },
    after: { type: 'string', value: 'ID', description: 'start after this id (the previous page\'s "next")' },
  },
  parse: (args) => ({
    limit: args.integer('limit', { min: 1, max: 100 }) ?? 100,
    ...(args.optional('after') === undefined ? {} : { after: orgId(args, 'after') }),
  }),
  run: async (input) => (await import('../../lib/db/organizations.ts')).listOrganizations(input),
});

const setNetworks = command({
  name: 'set-networks',
  summary: "replace the organization's enabled networks",
  options: {
    org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
    networks: { type: 'string', value: 'a,b', required: true, description: `networks to enable, of ${NETWORKS.join(',')}` },
  },
  parse: (args) => ({ orgId: orgId(args), networks: networks(args) }),
  run: async ({ orgId, networks }, target) =>
    (await import('../../lib/db/organizations.ts')).setNetworks(orgId, networks, await target.operator()),
});

/** A display name: what `org list` and `org show` print. */
const NAME_MAX = 200;

const setSpendingLimit = command({
  name: 'set-spending-limit',
  summary: "change the organization's monthly spending limit (runs see it at once)",
  options: {
    org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
    limit: { type: 'string', value: 'N|none', required: true, description: 'credits per UTC month, or none' },
  },
  parse: (args) => ({ orgId: orgId(args), limit: args.required('limit') === 'none' ? null : (args.integer('limit') ?? null) }),
  run: async ({ orgId, limit }, target) =>
    (await import('../../lib/db/organizations.ts')).setOrganizationSpendingLimit(orgId, limit, await target.operator()),
});

const setDailyLimit = command({
  name: 'set-daily-limit',
  summary: "change the organization's daily spending limit (runs see it at once)",
  options: {
    org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
    limit: { type: 'string', value: 'N|none', required: true, description: 'credits per UTC day, or none' },
  },
  parse: (args) => ({ orgId: orgId(args), limit: args.required('limit') === 'none' ? null : (args.integer('limit') ?? null) }),
  run: async ({ orgId, limit }, target) =>
    (await import('../../lib/db/organizations.ts')).setOrganizationDailyLimit(orgId, limit, await target.operator()),
});

const rename = command({
  name: 'rename',
  summary: 'change the display name (the id stays)',
  options: {
    org: { type: 'string', value: 'ID', required: true, description: 'the organization' },
    name: { type: 'string', value: 'NAME', required: true, description: `the new display name (1 to ${NAME_MAX} characters)` },
  },
  parse: (args) => {
    const name = args.required('name').trim();
    if (name.length === 0 || name.length > NAME_MAX) throw new UsageError(`--name must be 1 to ${NAME_MAX} characters`);
    return { orgId: orgId(args), name };
  },
  run: async ({ orgId, name }, target) =>
    (await import('../../lib/db/organizations.ts')).renameOrganization(orgId, name, await target.operator()),
});

export const group: CommandGroup = { name: 'org', commands: [create, show, list, setNetworks, setSpendingLimit, setDailyLimit, rename] };
