/**
 * Knowing and capping what a call costs, through the typed client (client/): quote a run, run
 * it and follow its charge, then run it again from this workspace's cached result for free.
 *
 *   npm start                              # in another terminal
 *   node --import tsx examples/cost-control.ts
 *
 * Settings as in examples/quickstart.ts (.local/dev.json, or WORKSPACE_API_URL, WORKSPACE_TOKEN
 * and WORKSPACE_ORGANIZATION_ID).
 */
import { createWorkspaceClient } from '../client/index.ts';
import { settings } from './settings.ts';

const { baseUrl, token, organizationId } = settings();
const api = createWorkspaceClient({ baseUrl, token });
const query = { organization_id: organizationId };
// A handle of its own, so that the first run below is not already cached by an earlier one.
const body = { handle: `nasa${Date.now()}` };

// 1. What would it cost, and would it run? Nothing is charged and the provider is not called.
const quoted = await api.POST('/social/{operation}/quote', { params: { path: { operation: 'tiktok_profile' }, query }, body });
if (quoted.error) throw new Error(`quote: ${quoted.error.code}: ${quoted.error.message}`);
const { cost, balance, allowed, refusal } = quoted.data;
console.log(`quote: ${cost} credit(s) of ${balance}; ${allowed ? 'would run' : `would be refused: ${refusal?.code}`}`);
if (!allowed) process.exit(1);

// 2. Run it, accepting a cached result up to an hour old (there is none yet): charged, and the
// charge is named so that it can be found among the billing events.
const first = await api.POST('/social/tiktok_profile', { params: { query, header: { 'Cache-Control': 'max-age=3600' } }, body });
if (first.error) throw new Error(`run: ${first.error.code}: ${first.error.message}`);
const chargeId = first.response.headers.get('Charge-Id');
console.log(`run: charged ${first.response.headers.get('Credits-Charged')}, ${first.response.headers.get('Cache-Status')}`);

// 3. The same input again: answered from the workspace's own result, free, with its age.
const again = await api.POST('/social/tiktok_profile', { params: { query, header: { 'Cache-Control': 'max-age=3600' } }, body });
if (again.error) throw new Error(`run again: ${again.error.code}: ${again.error.message}`);
const same = JSON.stringify(again.data) === JSON.stringify(first.data);
console.log(
  `again: charged ${again.response.headers.get('Credits-Charged')}, ${again.response.headers.get('Cache-Status')}, age ${again.response.headers.get('Age')} s, same output: ${same}`,
);

// 4. The charge among the billing events, with what it ran and for which request.
const events = await api.GET('/organizations/{organization_id}/billing/events', {
  params: { path: { organization_id: organizationId }, query: { days: 1, limit: 10 } },
});
if (events.error) throw new Error(`events: ${events.error.code}: ${events.error.message}`);
const charge = events.data.events.find((event) => event.id === chargeId);
console.log(`charge ${charge?.id}: ${charge?.amount} credits for ${charge?.metadata.operation}, request ${charge?.metadata.request_id}`);
