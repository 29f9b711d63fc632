/**
 * API keys (owners, with a user's token): every key with its limits, addresses and spend; create
 * one (its token shown once, with a copy button), change its limits and addresses, revoke it.
 * One request to open (the first 100 keys).
 */
import { useState } from 'preact/hooks';
import { data } from '../api.ts';
import { consentText, formatTime, keyStatus, parseAddresses, parseLimit } from '../model.ts';
import {
  ConfirmButton,
  ConsentField,
  CopyButton,
  ErrorNote,
  Field,
  LoadState,
  MeterRow,
  Notice,
  ScreenHeading,
  useAction,
  useLoad,
  useWorkspace,
} from '../ui.tsx';

type KeyRole = 'viewer' | 'editor';

const LIMITS_ERROR = 'Limits and the consent threshold are whole numbers of credits, or empty for none.';

export function KeysScreen() {
  const { api, orgId } = useWorkspace();
  const keys = useLoad(
    () =>
      data(api.GET('/organizations/{organization_id}/api-keys', { params: { path: { organization_id: orgId }, query: { limit: 100 } } })),
    [orgId],
  );
  const [created, setCreated] = useState<{ name: string; token: string } | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const now = Date.now();
  const list = keys.value?.api_keys ?? [];
  return (
    <section>
      <ScreenHeading>API keys</ScreenHeading>
      <p class="muted">Keys for agents and scripts: each acts in this workspace only, within its own limits.</p>
      {created ? (
        <section class="card token-once" aria-label="The new key's token">
          <h3>Token of “{created.name}”</h3>
          <p>
            <strong>Shown this once:</strong> copy it now and keep it somewhere safe. The service keeps no copy.
          </p>
          <code class="token" data-testid="new-token">
            {created.token}
          </code>
          <div class="row">
            <CopyButton text={created.token} label="Copy token" />
            <button type="button" onClick={() => setCreated(undefined)}>
              Done
            </button>
          </div>
        </section>
      ) : null}
      <CreateKey
        onCreated={(key) => {
          setCreated(key);
          keys.reload();
        }}
      />
      <Notice text={done} />
      <LoadState loaded={keys} what="API keys" />
      {keys.value && list.length === 0 ? <p>No API keys yet.</p> : null}
      <ul class="cards">
        {list.map((key) => {
          const status = keyStatus(key, now);
          return (
            <li key={key.id} class="card" data-testid="api-key">
              <h3>
                {key.name} <span class={`badge badge-${status}`}>{status}</span>
              </h3>
              <p class="muted">
                <code>{key.id}</code> · {key.role} · created {formatTime(key.created_at)} by {key.created_by_id} · expires{' '}
                {formatTime(key.expires_at)} · last used {formatTime(key.last_used_at)}
              </p>
              <MeterRow label="This month" spent={key.spent} limit={key.spending_limit} />
              <MeterRow label="Today" spent={key.spent_today} limit={key.daily_limit} />
              <p data-testid="key-consent">{consentText(key.confirm_above)}</p>
              {key.created_via === 'oauth' ? (
                <p>
                  Connected by OAuth: <a href="#apps">{key.client_name ?? key.client_id}</a>
                </p>
              ) : null}
              <p>
                Allowed addresses: {key.allowed_ips ? key.allowed_ips.join(', ') : 'anywhere'}
                {key.rate_limit ? ` · its own rate: ${key.rate_limit.requests} requests a window` : ''}
              </p>
              {status === 'revoked' ? null : (
                <KeyActions
                  id={key.id}
                  name={key.name}
                  monthly={key.spending_limit}
                  daily={key.daily_limit}
                  confirmAbove={key.confirm_above}
                  addresses={key.allowed_ips}
                  onChanged={(message) => {
                    setDone(message);
                    keys.reload();
                  }}
                />
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function CreateKey({ onCreated }: { onCreated: (key: { name: string; token: string }) => void }) {
  const { api, orgId } = useWorkspace();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [role, setRole] = useState<KeyRole>('editor');
  const [month, setMonth] = useState('');
  const [day, setDay] = useState('');
  const [ask, setAsk] = useState('');
  const [addresses, setAddresses] = useState('');
  const [days, setDays] = useState('90');
  const action = useAction();
  if (!open)
    return (
      <button type="button" class="primary" onClick={() => setOpen(true)}>
        Create an API key
      </button>
    );
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const spendingLimit = parseLimit(month);
      const dailyLimit = parseLimit(day);
      const confirmAbove = parseLimit(ask);
      if (!spendingLimit.ok || !dailyLimit.ok || !confirmAbove.ok) throw new Error(LIMITS_ERROR);
      if (!/^\d{1,3}$/.test(days.trim())) throw new Error('Expires in: a whole number of days from 1 to 365.');
      const key = await data(
        api.POST('/organizations/{organization_id}/api-keys', {
          params: { path: { organization_id: orgId } },
          body: {
            name: name.trim(),
            role,
            spending_limit: spendingLimit.value,
            daily_limit: dailyLimit.value,
            confirm_above: confirmAbove.value,
            allowed_ips: parseAddresses(addresses),
            expires_in_days: Number(days.trim()),
          },
        }),
      );
      setOpen(false);
      setName('');
      setMonth('');
      setDay('');
      setAsk('');
      setAddresses('');
      onCreated({ name: key.name, token: key.token });
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Create an API key">
      <h3>New API key</h3>
      <Field label="Name">
        {(props) => <input {...props} required value={name} onInput={(event) => setName(event.currentTarget.value)} />}
      </Field>
      <Field label="Role" hint="An editor key runs operations; a viewer key only reads.">
        {(props) => (
          <select {...props} value={role} onChange={(event) => setRole(event.currentTarget.value as KeyRole)}>
            <option value="editor">editor</option>
            <option value="viewer">viewer</option>
          </select>
        )}
      </Field>
      <div class="row">
        <Field label="Monthly limit (credits)" hint="Empty: none">
          {(props) => <input {...props} inputMode="numeric" value={month} onInput={(event) => setMonth(event.currentTarget.value)} />}
        </Field>
        <Field label="Daily limit (credits)" hint="Empty: none">
          {(props) => <input {...props} inputMode="numeric" value={day} onInput={(event) => setDay(event.currentTarget.value)} />}
        </Field>
        <ConsentField value={ask} onInput={setAsk} />
        <Field label="Expires in (days)">
          {(props) => <input {...props} inputMode="numeric" value={days} onInput={(event) => setDays(event.currentTarget.value)} />}
        </Field>
      </div>
      <Field label="Allowed addresses" hint="IP addresses or CIDRs, separated by commas; empty: anywhere">
        {(props) => <input {...props} value={addresses} onInput={(event) => setAddresses(event.currentTarget.value)} />}
      </Field>
      <ErrorNote error={action.error} />
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy}>
          Create key
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Change a key's limits and addresses, or revoke it (also a connection's, on the connected-apps screen). */
export function KeyActions(props: {
  id: string;
  name: string;
  monthly: number | null;
  daily: number | null;
  confirmAbove: number | null;
  addresses: string[] | null;
  onChanged: (message: string) => void;
}) {
  const { api, orgId } = useWorkspace();
  const [editing, setEditing] = useState(false);
  const [month, setMonth] = useState(props.monthly === null ? '' : String(props.monthly));
  const [day, setDay] = useState(props.daily === null ? '' : String(props.daily));
  const [ask, setAsk] = useState(props.confirmAbove === null ? '' : String(props.confirmAbove));
  const [addresses, setAddresses] = useState(props.addresses?.join(', ') ?? '');
  const action = useAction();
  const path = { organization_id: orgId, key_id: props.id };
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const spendingLimit = parseLimit(month);
      const dailyLimit = parseLimit(day);
      const confirmAbove = parseLimit(ask);
      if (!spendingLimit.ok || !dailyLimit.ok || !confirmAbove.ok) throw new Error(LIMITS_ERROR);
      await data(
        api.PATCH('/organizations/{organization_id}/api-keys/{key_id}', {
          params: { path },
          body: {
            spending_limit: spendingLimit.value,
            daily_limit: dailyLimit.value,
            confirm_above: confirmAbove.value,
            allowed_ips: parseAddresses(addresses),
          },
        }),
      );
      setEditing(false);
      props.onChanged(`The key “${props.name}” is changed.`);
    });
  };
  const revoke = () =>
    void action.run(async () => {
      await data(api.DELETE('/organizations/{organization_id}/api-keys/{key_id}', { params: { path } }));
      props.onChanged(`The key “${props.name}” is revoked: its next request is refused.`);
    });
  return (
    <>
      {editing ? (
        <form onSubmit={save} aria-label={`Change the key ${props.name}`}>
          <div class="row">
            <Field label="Monthly limit (credits)" hint="Empty: none">
              {(field) => <input {...field} inputMode="numeric" value={month} onInput={(event) => setMonth(event.currentTarget.value)} />}
            </Field>
            <Field label="Daily limit (credits)" hint="Empty: none">
              {(field) => <input {...field} inputMode="numeric" value={day} onInput={(event) => setDay(event.currentTarget.value)} />}
            </Field>
            <ConsentField value={ask} onInput={setAsk} />
          </div>
          <Field label="Allowed addresses" hint="Empty: anywhere">
            {(field) => <input {...field} value={addresses} onInput={(event) => setAddresses(event.currentTarget.value)} />}
          </Field>
          <div class="row">
            <button type="submit" disabled={action.busy}>
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div class="row">
          <button type="button" onClick={() => setEditing(true)}>
            Edit limits and addresses
          </button>
          <ConfirmButton
            label="Revoke"
            question={`Revoke “${props.name}”? Agents using it stop at once.`}
            onConfirm={revoke}
            busy={action.busy}
          />
        </div>
      )}
      <ErrorNote error={action.error} />
    </>
  );
}
