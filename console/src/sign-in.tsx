/**
 * Sign-in: the demo users of the local stack (offered by a route only the local server has), the
 * stack's user pool's hosted UI when the page names one, or a pasted token from any other issuer
 * (an API key works too). Usable as soon as the page has run: nothing here waits for the network.
 */
import { useEffect, useState } from 'preact/hooks';
import { startHostedSignIn } from './hosted-ui.ts';
import { formatTime } from './model.ts';
import type { HostedUi } from './pkce.ts';
import { isExpired, newSession, type Session } from './session.ts';
import { Field } from './ui.tsx';

interface DemoUser {
  role: string;
  user_id: string;
  token: string;
}

/** Where the local server offers its demo users; any other server answers 404 (docs/console.md). */
const DEMO_USERS_URL = 'local-idp/demo-users';

export function SignIn({
  message,
  hosted,
  onSignIn,
}: {
  message?: string | undefined;
  hosted: HostedUi | null;
  onSignIn: (session: Session) => void;
}) {
  const [demoUsers, setDemoUsers] = useState<DemoUser[]>([]);
  const [pasted, setPasted] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);

  useEffect(() => {
    performance.mark('console:sign-in-ready');
    document.documentElement.dataset.ready = 'sign-in';
    let live = true;
    fetch(new URL(DEMO_USERS_URL, window.location.href), { headers: { Accept: 'application/json' } })
      .then((response) => (response.ok ? (response.json() as Promise<{ users?: DemoUser[] }>) : { users: [] }))
      .then((body) => live && setDemoUsers(Array.isArray(body.users) ? body.users : []))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    const token = pasted.trim();
    if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token)) {
      setProblem('That is not a token: paste the whole JWT (three parts separated by dots), without "Bearer".');
      return;
    }
    const session = newSession(token, 'token', 'pasted token');
    if (isExpired(session)) {
      setProblem(`That token expired at ${formatTime(new Date(session.expiresAt ?? 0).toISOString())}: get a fresh one.`);
      return;
    }
    onSignIn(session);
  };

  return (
    <main class="sign-in" id="main">
      <h1>Workspace Service console</h1>
      {message ? (
        <p class="error" role="alert">
          {message}
        </p>
      ) : null}
      {demoUsers.length > 0 ? (
        <section aria-labelledby="demo-heading">
          <h2 id="demo-heading">Demo users of this local stack</h2>
          <ul class="buttons">
            {demoUsers.map((user) => (
              <li key={user.user_id}>
                <button type="button" onClick={() => onSignIn(newSession(user.token, 'demo', user.user_id))}>
                  Sign in as {user.role} <span class="muted">({user.user_id})</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {hosted ? (
        <section aria-labelledby="hosted-heading">
          <h2 id="hosted-heading">Your account</h2>
          <button type="button" class="primary" onClick={() => void startHostedSignIn(hosted)}>
            Sign in with your account
          </button>
        </section>
      ) : null}
      <section aria-labelledby="paste-heading">
        <h2 id="paste-heading">Paste a token</h2>
        <form onSubmit={submit}>
          <Field label="Bearer token" hint="A JWT from your identity provider, or an API key. Kept in this tab only, until you sign out.">
            {(props) => (
              <textarea
                {...props}
                rows={3}
                autoComplete="off"
                spellcheck={false}
                value={pasted}
                onInput={(event) => setPasted(event.currentTarget.value)}
              />
            )}
          </Field>
          {problem ? (
            <p class="error" role="alert">
              {problem}
            </p>
          ) : null}
          <button type="submit">Sign in with this token</button>
        </form>
      </section>
    </main>
  );
}
