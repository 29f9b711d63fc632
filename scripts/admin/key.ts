import { parseNetwork } from '../../lib/auth/ip-allowlist.ts';
import { API_KEY_ID_PATTERN, MAX_ALLOWED_IPS } from '../../lib/model.ts';
import { type Args, type CommandGroup, command, orgId, UsageError } from './command.ts';

const ORG = { type: 'string', value: 'ID', required: true, description: 'the organization' } as const;

function keyId(args: Args): string {
  const value = args.required('key');
  if (!API_KEY_ID_PATTERN.test(value)) throw new UsageError(`--key must look like key_<32 lowercase hex digits>, got "${value}"`);
  return value;
}

const list = command({
  name: 'list',
  summary: "the organization's API keys (revoked and expired ones too) with their spend this month",
  options: { org: ORG },
  parse: (args) => ({ orgId: orgId(args) }),
  run: async ({ orgId }) => (await import('../../lib/admin/api-keys.ts')).listApiKeysWithSpend(orgId),
});

const revoke = command({
  name: 'revoke',
  summary: 'revoke an API key at once: its next request is refused (401 revoked)',
  options: { org: ORG, key: { type: 'string', value: 'KEY_ID', required: true, description: 'the key id (key_…)' } },
  parse: (args) => ({ orgId: orgId(args), keyId: keyId(args) }),
  run: async ({ orgId, keyId }, target) => (await import('../../lib/admin/api-keys.ts')).revokeKey(orgId, keyId, await target.operator()),
});

const KEY = { type: 'string', value: 'KEY_ID', required: true, description: 'the key id (key_…)' } as const;

/** `--ips a,b` (addresses or CIDR networks, each checked as the API checks them) or `--ips none`. */
function allowedIps(args: Args): string[] | null {
  const raw = args.required('ips');
  if (raw === 'none') return null;
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_ALLOWED_IPS) throw new UsageError(`--ips must list at most ${MAX_ALLOWED_IPS} addresses or networks`);
  for (const entry of entries) {
    const parsed = parseNetwork(entry);
    if ('problem' in parsed) throw new UsageError(`--ips: ${parsed.problem}`);
  }
  return entries;
}

const setAllowedIps = command({
  name: 'set-allowed-ips',
  summary: "bind a key to addresses (a leaked key: its owner's addresses only), or to none; in force from its next request",
  options: {
    org: ORG,
    key: KEY,
    ips: {
      type: 'string',
      value: 'a,b|none',
      required: true,
      description: `1 to ${MAX_ALLOWED_IPS} IPv4/IPv6 addresses or CIDRs, or none`,
    },
  },
  parse: (args) => ({ orgId: orgId(args), keyId: keyId(args), allowed_ips: allowedIps(args) }),
  run: async ({ orgId, keyId, allowed_ips }, target) =>
    (await import('../../lib/admin/api-keys.ts')).changeKey(orgId, keyId, { allowed_ips }, await target.operator()),
});

const setDailyLimit = command({
  name: 'set-daily-limit',
  summary: "change a key's daily spending limit (a runaway agent: 0 stops its spending today and every day)",
  options: { org: ORG, key: KEY, limit: { type: 'string', value: 'N|none', required: true, description: 'credits per UTC day, or none' } },
  parse: (args) => ({
    orgId: orgId(args),
    keyId: keyId(args),
    daily_limit: args.required('limit') === 'none' ? null : args.integer('limit')!,
  }),
  run: async ({ orgId, keyId, daily_limit }, target) =>
    (await import('../../lib/admin/api-keys.ts')).changeKey(orgId, keyId, { daily_limit }, await target.operator()),
});

const CLIENT = {
  type: 'string',
  value: 'CLIENT_ID',
  required: true,
  description: 'the OAuth client_id (wsc_… or its metadata document URL)',
} as const;

const clientGrants = command({
  name: 'client-grants',
  summary: "the organization's grants to one OAuth client (its keys created_via oauth), with their spend",
  options: { org: ORG, client: CLIENT },
  parse: (args) => ({ orgId: orgId(args), clientId: args.required('client') }),
  run: async ({ orgId, clientId }) => (await import('../../lib/admin/api-keys.ts')).listClientGrants(orgId, clientId),
});

const revokeClient = command({
  name: 'revoke-client',
  summary: 'revoke every grant of one OAuth client in the organization at once: their next requests and refreshes are refused',
  options: { org: ORG, client: CLIENT },
  parse: (args) => ({ orgId: orgId(args), clientId: args.required('client') }),
  run: async ({ orgId, clientId }, target) => ({
    revoked: await (await import('../../lib/admin/api-keys.ts')).revokeClientGrants(orgId, clientId, await target.operator()),
  }),
});

export const group: CommandGroup = { name: 'key', commands: [list, revoke, setAllowedIps, setDailyLimit, clientGrants, revokeClient] };
