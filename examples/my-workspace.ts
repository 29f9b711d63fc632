/**
 * A member finding their way around, through the typed client (client/): which workspaces am I
 * in and with which role, what is in the trash that I could restore, and restoring one.
 *
 *   npm start                              # in another terminal
 *   node --import tsx examples/my-workspace.ts
 *
 * Settings: examples/settings.ts (an editor's or owner's token).
 */
import { createWorkspaceClient } from '../client/index.ts';
import { settings } from './settings.ts';

const { baseUrl, token } = settings();
const api = createWorkspaceClient({ baseUrl, token });

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
