/**
 * A member finding their way around, through the typed client (client/): which workspaces am I
 * in and with which role, what is in the trash that I could restore, and restoring one.
 *
 *   npm start                              # in another terminal
 *   node --import tsx examples/my-workspace.ts
 *
 * Settings as in examples/quickstart.ts (.local/dev.json, or WORKSPACE_API_URL and
 * WORKSPACE_TOKEN: an editor's or owner's token).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createWorkspaceClient } from '../client/index.ts';

function settings() {
  const file = new URL('../.local/dev.json', import.meta.url);
  const dev = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const baseUrl = process.env.WORKSPACE_API_URL ?? dev.baseUrl;
  const token = process.env.WORKSPACE_TOKEN ?? dev.tokens?.owner;
  if (!baseUrl || !token) throw new Error('start the local stack (npm start), or set WORKSPACE_API_URL and WORKSPACE_TOKEN');
  return { baseUrl: baseUrl as string, token: token as string };
}

const api = createWorkspaceClient(settings());

// 1. Who am I, and where?
const me = await api.GET('/me');
if (me.error) throw new Error(`me: ${me.error.code}: ${me.error.message}`);
const [first] = me.data.organizations;
console.log(
  `${me.data.user_id}: ${me.data.organizations.map((org) => `${org.organization_id} (${org.role})`).join(', ') || 'no workspace'}`,
);
if (!first) process.exit(0);

// 2. What could I restore there?
const trash = await api.GET('/organizations/{organization_id}/trash', {
  params: { path: { organization_id: first.organization_id }, query: { limit: 10 } },
});
if (trash.error) throw new Error(`trash: ${trash.error.code}: ${trash.error.message}`);
for (const item of trash.data.items)
  console.log(`  ${item.kind} ${item.id} "${item.title}" deleted ${item.deleted_at}, restorable until ${item.restore_until}`);

// 3. Restore the most recently deleted one.
const [newest] = trash.data.items;
if (!newest) process.exit(0);
const restored =
  newest.kind === 'asset'
    ? await api.POST('/assets/{asset_id}/restore', { params: { path: { asset_id: newest.id } } })
    : newest.kind === 'skill'
      ? await api.POST('/skills/{skill_id}/restore', { params: { path: { skill_id: newest.id } } })
      : newest.kind === 'conversation'
        ? await api.POST('/conversations/{conversation_id}/restore', { params: { path: { conversation_id: newest.id } } })
        : await api.POST('/projects/{project_id}/restore', { params: { path: { project_id: newest.id } } });
if (restored.error) throw new Error(`restore: ${restored.error.code}: ${restored.error.message}`);
console.log(`restored ${newest.kind} ${newest.id}`);
