/**
 * A first session through the typed client (client/): list the operations this workspace can
 * run, run one with an Idempotency-Key and retry it safely, then read the billing events.
 *
 *   npm start                              # in another terminal
 *   node --import tsx examples/quickstart.ts
 *
 * It reads the local stack's URL, demo organization and owner token from .local/dev.json;
 * against another stack set WORKSPACE_API_URL, WORKSPACE_TOKEN (an owner's) and
 * WORKSPACE_ORGANIZATION_ID.
 */
import { randomUUID } from 'node:crypto';
import { createWorkspaceClient } from '../client/index.ts';
import { settings } from './settings.ts';

/** An error answer as the service writes it: its code, message and request id. */
const explain = (what: string, error: { code: string; message: string; request_id: string }) =>
  new Error(`${what}: ${error.code}: ${error.message} (request ${error.request_id})`);

const { baseUrl, token, organizationId } = settings();
const api = createWorkspaceClient({ baseUrl, token });

// 1. What can this workspace run, and what does it cost?
const listed = await api.GET('/social/operations', { params: { query: { organization_id: organizationId } } });
if (listed.error) throw explain('list operations', listed.error);
console.log(
  `${listed.data.operations.length} operations, e.g. ${listed.data.operations[0]?.name}: ${listed.data.operations[0]?.description}`,
);

// 2. Run one. The Idempotency-Key makes a retry safe: the same key and body replay the first
// answer without a second charge (a network error is the case to retry for).
const run = () =>
  api.POST('/social/instagram_profile', {
    params: { query: { organization_id: organizationId }, header: { 'Idempotency-Key': idempotencyKey } },
    body: { handle: 'natgeo' },
  });
const idempotencyKey = randomUUID();
const first = await run();
if (first.error) throw explain('run instagram_profile', first.error);
const retry = await run();
if (retry.error) throw explain('retry instagram_profile', retry.error);
const profile = first.data;
console.log(`instagram_profile: ${profile.display_name} (@${profile.username}), ${profile.followers ?? 'unknown'} followers`);
console.log(
  `charged ${first.response.headers.get('Credits-Charged')} credit(s), ${first.response.headers.get('Credits-Remaining')} left;` +
    ` the retry charged ${retry.response.headers.get('Credits-Charged')} (replayed: ${retry.response.headers.get('Idempotent-Replayed')})`,
);

// 3. The billing events of the last day, newest first: the charge of step 2 is on top.
const events = await api.GET('/organizations/{organization_id}/billing/events', {
  params: { path: { organization_id: organizationId }, query: { days: 1, limit: 5 } },
});
if (events.error) throw explain('billing events', events.error);
for (const event of events.data.events) {
  console.log(`${event.created_at}  ${event.type.padEnd(26)} ${String(event.amount).padStart(5)} ${event.currency}  ${event.title}`);
}
