/**
 * An owner gives a script its own credential: an API key that acts in one workspace only, with
 * the editor role, at most 20 credits a month, for 30 days. The script then runs an operation
 * with the key alone, and the owner sees what the key spent. Finally the owner revokes it, and
 * the key's next call is refused.
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

// 1. The owner creates the key; its token is shown in this answer only.
const created = await owner.POST('/organizations/{organization_id}/api-keys', {
  params: workspace,
  body: { name: 'nightly creator report', role: 'editor', spending_limit: 20, expires_in_days: 30 },
});
if (created.error) throw new Error(`create: ${created.error.code}: ${created.error.message}`);
const key = created.data;
console.log(`key ${key.id} (${key.role}, ${key.spending_limit} credits a month) until ${key.expires_at}`);

// 2. The script runs with the key alone.
const script = createWorkspaceClient({ baseUrl, token: key.token });
const me = await script.GET('/me');
if (me.error) throw new Error(`me: ${me.error.code}: ${me.error.message}`);
console.log(
  `as ${me.data.token_kind} ${me.data.api_key_id}: ${me.data.organizations.map((org) => `${org.organization_id} (${org.role})`).join(', ')}`,
);
const run = await script.POST('/social/tiktok_profile', {
  params: { query: { organization_id: organizationId } },
  body: { handle: 'nasa' },
});
if (run.error) throw new Error(`run: ${run.error.code}: ${run.error.message}`);
console.log(`run: charged ${run.response.headers.get('credits-charged')}, charge ${run.response.headers.get('charge-id')}`);

// 3. The owner sees the key's spend this month.
const listed = await owner.GET('/organizations/{organization_id}/api-keys', { params: workspace });
if (listed.error) throw new Error(`list: ${listed.error.code}: ${listed.error.message}`);
const mine = listed.data.api_keys.find((candidate) => candidate.id === key.id);
console.log(`listed: spent ${mine?.spent} of ${mine?.spending_limit}, last used ${mine?.last_used_at ? 'just now' : 'never'}`);

// 4. Revoked, the key is refused on its very next call.
const revoked = await owner.DELETE('/organizations/{organization_id}/api-keys/{key_id}', {
  params: { path: { organization_id: organizationId, key_id: key.id } },
});
if (revoked.error) throw new Error(`revoke: ${revoked.error.code}: ${revoked.error.message}`);
const refused = await script.GET('/me');
console.log(`after revoking: ${refused.response.status} ${refused.error?.data?.reason}`);
