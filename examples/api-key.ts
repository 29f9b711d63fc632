/**
 * An owner gives a script its own credential: an API key that acts in one workspace only, with
 * the editor role, at most 20 credits a month and 5 a day, usable only from the machine the script
 * runs on, for 30 days. The script runs an operation with the key alone, capped per call with
 * `Max-Credits`, and reads what it may still spend; the owner sees what the key spent. The owner
 * then moves the key's addresses elsewhere (its next call is refused, 403 `ip_not_allowed`), and
 * finally revokes it (401).
 *
 *   npm start                              # in another terminal
 *   node --import tsx examples/api-key.ts
 *
 * Settings: examples/settings.ts (an owner's token).
 */
import { createWorkspaceClient } from '../client/index.ts';
import { settings } from './settings.ts';

const { baseUrl, token, organizationId } = settings();
const owner = createWorkspaceClient({ baseUrl, token });
const workspace = { path: { organization_id: organizationId } };

// 1. The owner creates the key; its token is shown in this answer only. Its addresses are those
// the service sees this script come from: on the local stack, this machine's loopback addresses
// (deployed: the script's server's public address, or its network as a CIDR).
const created = await owner.POST('/organizations/{organization_id}/api-keys', {
  params: workspace,
  body: {
    name: 'nightly creator report',
    role: 'editor',
    spending_limit: 20,
    daily_limit: 5,
    allowed_ips: ['127.0.0.1', '::1'],
    expires_in_days: 30,
  },
});
if (created.error) throw new Error(`create: ${created.error.code}: ${created.error.message}`);
const key = created.data;
console.log(
  `key ${key.id} (${key.role}, ${key.spending_limit} credits a month, ${key.daily_limit} a day, from ${key.allowed_ips?.join(' ')}) until ${key.expires_at}`,
);

// 2. The script runs with the key alone.
const script = createWorkspaceClient({ baseUrl, token: key.token });
const me = await script.GET('/me');
if (me.error) throw new Error(`me: ${me.error.code}: ${me.error.message}`);
console.log(
  `as ${me.data.token_kind} ${me.data.api_key_id}: ${me.data.organizations.map((org) => `${org.organization_id} (${org.role})`).join(', ')}`,
);
// No call may cost more than 2 credits: a pricier one would be refused (402 max_credits_exceeded), uncharged.
const run = await script.POST('/social/tiktok_profile', {
  params: { query: { organization_id: organizationId }, header: { 'Max-Credits': 2 } },
  body: { handle: 'nasa' },
});
if (run.error) throw new Error(`run: ${run.error.code}: ${run.error.message}`);
console.log(`run: charged ${run.response.headers.get('credits-charged')}, charge ${run.response.headers.get('charge-id')}`);
// What the key may still spend today (MCP agents ask the same of the get_budget tool).
const budget = await script.GET('/organizations/{organization_id}/credits', { params: workspace });
if (budget.error) throw new Error(`credits: ${budget.error.code}: ${budget.error.message}`);
console.log(`budget: ${budget.data.api_key?.spent_today} of ${budget.data.api_key?.daily_limit} spent today`);

// 3. The owner sees the key's spend this month.
const listed = await owner.GET('/organizations/{organization_id}/api-keys', { params: workspace });
if (listed.error) throw new Error(`list: ${listed.error.code}: ${listed.error.message}`);
const mine = listed.data.api_keys.find((candidate) => candidate.id === key.id);
console.log(`listed: spent ${mine?.spent} of ${mine?.spending_limit}, last used ${mine?.last_used_at ? 'just now' : 'never'}`);

// 4. Bound to other addresses (a network it is not run from), the key is refused on its next call.
const moved = await owner.PATCH('/organizations/{organization_id}/api-keys/{key_id}', {
  params: { path: { organization_id: organizationId, key_id: key.id } },
  body: { allowed_ips: ['203.0.113.0/24'] },
});
if (moved.error) throw new Error(`patch: ${moved.error.code}: ${moved.error.message}`);
const elsewhere = await script.GET('/me');
console.log(`bound to ${moved.data.allowed_ips?.join(' ')}: ${elsewhere.response.status} ${elsewhere.error?.code}`);

// 5. Revoked, the key is refused on its very next call.
const revoked = await owner.DELETE('/organizations/{organization_id}/api-keys/{key_id}', {
  params: { path: { organization_id: organizationId, key_id: key.id } },
});
if (revoked.error) throw new Error(`revoke: ${revoked.error.code}: ${revoked.error.message}`);
const refused = await script.GET('/me');
console.log(`after revoking: ${refused.response.status} ${refused.error?.data?.reason}`);
