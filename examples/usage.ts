/**
 * Where did yesterday's credits go? An owner reads yesterday's usage grouped by API key (one day
 * bucket; runs by people's own tokens have no key), names each key from the keys list, and takes
 * the same report as CSV for a spreadsheet.
 *
 *   npm start                              # in another terminal
 *   node --import tsx examples/usage.ts
 *
 * Settings: examples/settings.ts (an owner's token: owners see the whole workspace; any other
 * member, or an API key, would see only its own runs).
 */
import { createWorkspaceClient } from '../client/index.ts';
import { settings } from './settings.ts';

const { baseUrl, token, organizationId } = settings();
const api = createWorkspaceClient({ baseUrl, token });
const workspace = { organization_id: organizationId };

// Yesterday, as a UTC day: usage buckets are UTC hours or days.
const DAY_MS = 86_400_000;
const to = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
const from = new Date(to.getTime() - DAY_MS);
const query = { from: from.toISOString(), to: to.toISOString(), granularity: 'day' as const, group_by: 'api_key' };

// 1. The report: one bucket, one result per key (null: runs by members' own tokens).
const usage = await api.GET('/organizations/{organization_id}/usage', { params: { path: workspace, query } });
if (usage.error) throw new Error(`usage: ${usage.error.code}: ${usage.error.message}`);
const results = usage.data.buckets[0]?.results ?? [];

// 2. The keys' names, every page of them.
const names = new Map<string, string>();
let cursor: string | undefined;
do {
  const page = await api.GET('/organizations/{organization_id}/api-keys', {
    params: { path: workspace, query: cursor ? { cursor } : {} },
  });
  if (page.error) throw new Error(`api keys: ${page.error.code}: ${page.error.message}`);
  for (const key of page.data.api_keys) names.set(key.id, key.name);
  cursor = page.data.next_cursor ?? undefined;
} while (cursor);

const total = results.reduce((sum, result) => sum + result.net, 0);
const runs = results.reduce((sum, result) => sum + result.runs, 0);
console.log(`yesterday (${from.toISOString().slice(0, 10)}): ${total} credits over ${runs} runs`);
for (const result of [...results].sort((a, b) => b.net - a.net)) {
  const who = result.api_key ? `${result.api_key} "${names.get(result.api_key) ?? '(unknown key)'}"` : "members' own tokens";
  console.log(`  ${who}: ${result.net} credits (${result.runs} runs, ${result.charged} charged, ${result.refunded} refunded)`);
}

// 3. The same report as CSV (RFC 4180), as a spreadsheet takes it.
const csv = await api.GET('/organizations/{organization_id}/usage', {
  params: { path: workspace, query },
  headers: { Accept: 'text/csv' },
  parseAs: 'text',
});
if (csv.error) throw new Error(`usage as CSV: ${csv.error.code}: ${csv.error.message}`);
const [header, ...rows] = String(csv.data).trimEnd().split('\r\n');
console.log(`as CSV: ${header} (${rows.length} rows)`);
