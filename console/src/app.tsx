/**
 * The console's shell: the session (sign-in, expiry, sign-out), the chosen workspace from
 * `GET /me`, and the screens its role allows, by the URL's fragment (`#keys`).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type ApiError, createApi, data } from './api.ts';
import { finishHostedSignIn, hostedSignOutUrl, hostedUiOfPage } from './hosted-ui.ts';
import { Invitations } from './invitations.tsx';
import { type Access, formatTime, permissionsOf, SCREENS, type Screen, screenOf, screensFor } from './model.ts';
import { AlertsScreen } from './screens/alerts.tsx';
import { AuditScreen } from './screens/audit.tsx';
import { BillingScreen } from './screens/billing.tsx';
import { BillingEventsScreen } from './screens/billing-events.tsx';
import { ConnectedAppsScreen } from './screens/connected-apps.tsx';
import { JobsScreen } from './screens/jobs.tsx';
import { KeysScreen } from './screens/keys.tsx';
import { MembersScreen } from './screens/members.tsx';
import { OverviewScreen } from './screens/overview.tsx';
import { TrashScreen } from './screens/trash.tsx';
import { UsageScreen } from './screens/usage.tsx';
import { clearSession, isExpired, loadSession, newSession, type Session, saveSession } from './session.ts';
import { SignIn } from './sign-in.tsx';
import { ErrorNote, Loading, type Workspace, WorkspaceContext } from './ui.tsx';

const CHOSEN = 'workspace-console:organization';

const expiredMessage = (session: Session) =>
  `Your session expired${session.expiresAt ? ` at ${formatTime(new Date(session.expiresAt).toISOString())}` : ''}: sign in again.`;

export function App() {
  const hosted = useMemo(() => hostedUiOfPage(), []);
  const [session, setSession] = useState<Session | null>(() => {
    const stored = loadSession();
    return stored && !isExpired(stored) ? stored : null;
  });
  const [message, setMessage] = useState<string | undefined>(() => {
    const stored = loadSession();
    if (stored && isExpired(stored)) {
      clearSession();
      return expiredMessage(stored);
    }
    return undefined;
  });

  const signIn = (next: Session) => {
    saveSession(next);
    setMessage(undefined);
    setSession(next);
  };
  const signOut = (why?: string) => {
    const was = session;
    clearSession();
    setSession(null);
    setMessage(why);
    if (!why && was?.method === 'hosted' && hosted) window.location.assign(hostedSignOutUrl(hosted));
  };

  // Back from the hosted UI with a code: exchange it.
  useEffect(() => {
    finishHostedSignIn(hosted).then(
      (tokens) => tokens && signIn(newSession(tokens.accessToken, 'hosted', 'your account', tokens.idToken)),
      (error: Error) => setMessage(error.message),
    );
  }, [hosted]);

  // The token's own expiry ends the session then, not at the next failed call.
  useEffect(() => {
    if (!session?.expiresAt) return;
    const timer = setTimeout(() => signOut(expiredMessage(session)), Math.max(0, session.expiresAt - Date.now()));
    return () => clearTimeout(timer);
  }, [session]);

  if (!session) return <SignIn message={message} hosted={hosted} onSignIn={signIn} />;
  return <Console key={session.token} session={session} onSignOut={signOut} />;
}

function useHash(): string {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const changed = () => setHash(window.location.hash);
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

const SCREEN_VIEWS: Record<Screen, () => preact.JSX.Element> = {
  overview: OverviewScreen,
  usage: UsageScreen,
  billing: BillingScreen,
  events: BillingEventsScreen,
  keys: KeysScreen,
  apps: ConnectedAppsScreen,
  members: MembersScreen,
  alerts: AlertsScreen,
  trash: TrashScreen,
  jobs: JobsScreen,
  audit: AuditScreen,
};

function Console({ session, onSignOut }: { session: Session; onSignOut: (why?: string) => void }) {
  const api = useMemo(
    () =>
      createApi(
        () => session.token,
        (error: ApiError) => onSignOut(`The service refused your token (${error.message}): sign in again.`),
      ),
    [session],
  );
  // The ID token where the sign-in gave one: it alone carries the verified address that
  // `GET /me` lists invitations for and an acceptance needs (Cognito puts `email` in ID tokens only).
  const personApi = useMemo(
    () =>
      session.idToken
        ? createApi(
            () => session.idToken ?? session.token,
            (error: ApiError) => onSignOut(`The service refused your token (${error.message}): sign in again.`),
          )
        : api,
    [session, api],
  );
  const [me, setMe] = useState<Awaited<ReturnType<typeof loadMe>> | undefined>(undefined);
  const [failure, setFailure] = useState<unknown>(undefined);
  // A link that names the workspace (a 402's billing_url, a checkout's return) chooses it.
  const [orgId, setOrgId] = useState<string | null>(() => {
    const linked = new URLSearchParams(window.location.search).get('organization_id');
    if (linked) sessionStorage.setItem(CHOSEN, linked);
    return linked ?? sessionStorage.getItem(CHOSEN);
  });
  const hash = useHash();

  async function loadMe() {
    return data(personApi.GET('/me'));
  }
  useEffect(() => {
    loadMe().then(setMe, setFailure);
  }, [personApi]);
  const accepted = (organizationId: string) => {
    sessionStorage.setItem(CHOSEN, organizationId);
    setOrgId(organizationId);
    loadMe().then(setMe, setFailure);
  };
  const invitations = me ? <Invitations api={personApi} invitations={me.invitations} onAccepted={accepted} /> : null;

  if (failure) {
    return (
      <main id="main" class="page">
        <ErrorNote error={failure} />
        <button type="button" onClick={() => onSignOut()}>
          Sign out
        </button>
      </main>
    );
  }
  if (!me)
    return (
      <main id="main" class="page">
        <Loading what="your workspaces" />
      </main>
    );
  if (me.organizations.length === 0) {
    return (
      <main id="main" class="page">
        <h1>Workspace Service console</h1>
        {invitations}
        <p>
          This account belongs to no workspace yet: accept an invitation, or ask a workspace owner to invite you
          {me.email ? ` (${me.email})` : ''} or to add you ({me.user_id}).
        </p>
        <button type="button" onClick={() => onSignOut()}>
          Sign out
        </button>
      </main>
    );
  }
  const membership = me.organizations.find((organization) => organization.organization_id === orgId) ?? me.organizations[0]!;
  const access: Access = { role: membership.role, tokenKind: me.token_kind };
  const permissions = permissionsOf(access);
  const allowed = screensFor(permissions);
  const screen = screenOf(hash, allowed);
  const View = SCREEN_VIEWS[screen];
  const workspace: Workspace = {
    api,
    token: () => session.token,
    orgId: membership.organization_id,
    access,
    permissions,
    unauthorized: (error) => onSignOut(`The service refused your token (${error.message}): sign in again.`),
  };

  return (
    <WorkspaceContext.Provider value={workspace}>
      {/* A button, not a link to #main: the fragment names the screen. */}
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <h1>Workspace Service</h1>
        <div class="who">
          <span>
            {session.label} · {membership.role}
            {me.token_kind === 'api_key' ? ' API key' : ''}
          </span>
          {me.organizations.length > 1 ? (
            <label>
              Workspace{' '}
              <select
                value={membership.organization_id}
                onChange={(event) => {
                  sessionStorage.setItem(CHOSEN, event.currentTarget.value);
                  // The choice outlasts a link's organization_id: a reload keeps this one.
                  window.history.replaceState(null, '', `${window.location.pathname}${window.location.hash}`);
                  setOrgId(event.currentTarget.value);
                }}
              >
                {me.organizations.map((organization) => (
                  <option key={organization.organization_id} value={organization.organization_id}>
                    {organization.organization_id} ({organization.role})
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span>Workspace {membership.organization_id}</span>
          )}
          <button type="button" onClick={() => onSignOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav aria-label="Screens">
        <ul>
          {SCREENS.filter((each) => allowed.includes(each.id)).map((each) => (
            <li key={each.id}>
              <a href={`#${each.id}`} aria-current={each.id === screen ? 'page' : undefined}>
                {each.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="page" tabIndex={-1}>
        {invitations}
        <View key={`${membership.organization_id}/${screen}`} />
      </main>
    </WorkspaceContext.Provider>
  );
}
