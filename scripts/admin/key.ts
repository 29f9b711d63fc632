import { API_KEY_ID_PATTERN } from '../../lib/model.ts';
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
  run: async ({ orgId, keyId }) => (await import('../../lib/admin/api-keys.ts')).revokeKey(orgId, keyId),
});

export const group: CommandGroup = { name: 'key', commands: [list, revoke] };
