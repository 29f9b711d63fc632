/**
 * Connected apps (owners, with a user's token): the agents connected by OAuth (docs/mcp.md,
 * "Connecting by OAuth"), one card per client. Each connection is an API key with
 * `created_via: "oauth"`, so this screen reads the keys list and acts with the keys' own routes:
 * change a connection's limits, revoke it, or revoke every connection of one client.
 * Opens with one request per 100 keys, at most MAX_PAGES.
 */
import { useState } from 'preact/hooks';
import { type Api, data } from '../api.ts';
import { type ConnectedApp, connectedApps, consentText, formatTime } from '../model.ts';
import { ConfirmButton, ErrorNote, LoadState, MeterRow, Notice, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';
import { KeyActions } from './keys.tsx';

/** The contract's ceiling on a screen's requests (docs/console.md): 1,000 keys. */
const MAX_PAGES = 10;

type Key = Awaited<ReturnType<typeof keysOf>>['keys'][number];

/** Every key of the workspace, page after page, up to MAX_PAGES; `complete` says whether that was all. */
async function keysOf(api: Api, orgId: string) {
  const first = await data(
    api.GET('/organizations/{organization_id}/api-keys', { params: { path: { organization_id: orgId }, query: { limit: 100 } } }),
  );
  const keys = [...first.api_keys];
  let cursor = first.has_more ? first.next_cursor : null;
  for (let page = 1; cursor && page < MAX_PAGES; page += 1) {
    const next = await data(
      api.GET('/organizations/{organization_id}/api-keys', { params: { path: { organization_id: orgId }, query: { limit: 100, cursor } } }),
    );
    keys.push(...next.api_keys);
    cursor = next.has_more ? next.next_cursor : null;
  }
  return { keys, complete: cursor === null };
}

export function ConnectedAppsScreen() {
  const { api, orgId } = useWorkspace();
  const loaded = useLoad(() => keysOf(api, orgId), [orgId]);
  const [done, setDone] = useState<string | undefined>(undefined);
  const apps = loaded.value ? connectedApps(loaded.value.keys, Date.now()) : [];
  const changed = (message: string) => {
    setDone(message);
    loaded.reload();
  };
  return (
    <section>
      <ScreenHeading>Connected apps</ScreenHeading>
      <p class="muted">
        Agents connected by OAuth: each connection is an API key of this workspace, with the role, limits and expiry approved on its consent
        screen. A name is what the app calls itself; the redirect host is where its sign-in came back to.
      </p>
      <Notice text={done} />
      <LoadState loaded={loaded} what="connected apps" />
      {loaded.value && !loaded.value.complete ? (
        <p class="muted">
          Only the first {MAX_PAGES * 100} keys are read here: the admin CLI's `key client-grants` lists a client's every grant.
        </p>
      ) : null}
      {loaded.value && apps.length === 0 ? <p>No app has connected by OAuth yet.</p> : null}
      <ul class="cards">
        {apps.map((app) => (
          <AppCard key={app.clientId} app={app} onChanged={changed} />
        ))}
      </ul>
    </section>
  );
}

function AppCard({ app, onChanged }: { app: ConnectedApp<Key>; onChanged: (message: string) => void }) {
  const { api, orgId } = useWorkspace();
  const action = useAction();
  const revokeAll = () =>
    void action.run(async () => {
      await Promise.all(
        app.active.map((grant) =>
          data(
            api.DELETE('/organizations/{organization_id}/api-keys/{key_id}', {
              params: { path: { organization_id: orgId, key_id: grant.id } },
            }),
          ),
        ),
      );
      onChanged(`Every connection of “${app.name}” is revoked: its next request is refused.`);
    });
  return (
    <li class="card" data-testid="connected-app">
      <h3>
        {app.name}{' '}
        <span class={`badge badge-${app.active.length > 0 ? 'active' : 'revoked'}`}>
          {app.active.length > 0 ? `${app.active.length} active` : 'disconnected'}
        </span>
      </h3>
      <p class="muted">
        Client <code>{app.clientId}</code> · redirects to {app.redirectHosts.length > 0 ? app.redirectHosts.join(', ') : '—'}
      </p>
      <ul class="grants">
        {app.active.map((grant) => (
          <li key={grant.id} data-testid="grant">
            <GrantFacts grant={grant} />
            <MeterRow label="This month" spent={grant.spent} limit={grant.spending_limit} />
            <MeterRow label="Today" spent={grant.spent_today} limit={grant.daily_limit} />
            <p>{consentText(grant.confirm_above)}</p>
            <KeyActions
              id={grant.id}
              name={grant.name}
              monthly={grant.spending_limit}
              daily={grant.daily_limit}
              confirmAbove={grant.confirm_above}
              addresses={grant.allowed_ips}
              onChanged={onChanged}
            />
          </li>
        ))}
      </ul>
      {app.active.length > 1 ? (
        <ConfirmButton
          label={`Revoke all ${app.active.length}`}
          question={`Revoke every connection of “${app.name}”? It stops at once everywhere.`}
          onConfirm={revokeAll}
          busy={action.busy}
        />
      ) : null}
      <ErrorNote error={action.error} />
      {app.ended.length > 0 ? (
        <details>
          <summary>
            {app.ended.length} ended {app.ended.length === 1 ? 'connection' : 'connections'}
          </summary>
          <ul class="grants">
            {app.ended.map((grant) => (
              <li key={grant.id} data-testid="grant">
                <GrantFacts grant={grant} />
                <p class="muted">
                  Spent {grant.spent} this month · {grant.revoked_at ? `revoked ${formatTime(grant.revoked_at)}` : 'expired'}
                </p>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </li>
  );
}

function GrantFacts({ grant }: { grant: Key }) {
  return (
    <p>
      <strong>{grant.role}</strong> · approved by {grant.created_by_id} on {formatTime(grant.created_at)} · expires{' '}
      {formatTime(grant.expires_at)} · last used {formatTime(grant.last_used_at)}
      <br />
      <code class="muted">{grant.id}</code>
      {grant.allowed_ips ? ` · from ${grant.allowed_ips.join(', ')}` : ''}
    </p>
  );
}
