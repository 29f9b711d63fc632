/**
 * How an agent keeps what it reads small, through the typed client (client/): ask for a
 * profile's posts with only the three fields it needs, then, when it finds it needs more, read
 * other fields of the same result from this workspace's cache, for free, instead of paying for
 * the run again (docs/social-operations.md, "Fields").
 *
 *   npm start                              # in another terminal
 *   node --import tsx examples/agent-fields.ts
 *
 * Settings as in examples/quickstart.ts (.local/dev.json, or WORKSPACE_API_URL, WORKSPACE_TOKEN
 * and WORKSPACE_ORGANIZATION_ID).
 */
import { createWorkspaceClient } from '../client/index.ts';
import { settings } from './settings.ts';

const { baseUrl, token, organizationId } = settings();
const api = createWorkspaceClient({ baseUrl, token });
// A handle of its own, so that the first run below is not already cached by an earlier one.
const body = { handle: `natgeo${Date.now()}` };
// Accept this workspace's result of the same input from the last hour: a second look is free.
const header = { 'Cache-Control': 'max-age=3600' };
const posts = (fields: string) =>
  api.POST('/social/instagram_user_posts', { params: { query: { organization_id: organizationId, fields }, header }, body });

// 1. The posts, with three fields: what the agent needs to pick one. Charged as a whole run.
const first = await posts('items.*.id,items.*.text,items.*.created_at');
if (first.error) throw new Error(`posts: ${first.error.code}: ${first.error.message}`);
const { items } = first.data as { items: { id: string; text: string | null; created_at: string | null }[] };
console.log(
  `${items.length} posts with ${Object.keys(items[0] ?? {}).join(',')} (${JSON.stringify(first.data).length} characters); charged ${first.response.headers.get('Credits-Charged')}`,
);

// 2. It turns out the agent needs the likes and the links too: other fields of the same result,
// from the cache, at the operation's cached cost (0).
const more = await posts('items.*.id,items.*.url,items.*.metrics.likes');
if (more.error) throw new Error(`more fields: ${more.error.code}: ${more.error.message}`);
const liked = (more.data as { items: { id: string; url: string | null; metrics: { likes: number | null } }[] }).items;
const top = liked.reduce((best, post) => ((post.metrics.likes ?? 0) > (best.metrics.likes ?? 0) ? post : best));
console.log(
  `more fields from the cache: charged ${more.response.headers.get('Credits-Charged')}, ${more.response.headers.get('Cache-Status')}; most liked: ${top.id} (${top.metrics.likes} likes)`,
);

// 3. For scale: the whole page, also from the cache, is what every answer would have been.
const whole = await api.POST('/social/instagram_user_posts', { params: { query: { organization_id: organizationId }, header }, body });
if (whole.error) throw new Error(`whole: ${whole.error.code}: ${whole.error.message}`);
console.log(`the whole page: ${JSON.stringify(whole.data).length} characters; charged ${whole.response.headers.get('Credits-Charged')}`);
