/**
 * Alerts: the low-balance and threshold settings (every member reads them, owners change them),
 * and the notification endpoints with their delivery log (owners). Two requests to open for an
 * owner (settings, endpoints), one for anyone else; a delivery log is read when opened.
 */
import { useState } from 'preact/hooks';
import { data } from '../api.ts';
import { formatCredits, formatTime, parseLimit, parseThresholds } from '../model.ts';
import { ConfirmButton, CopyButton, ErrorNote, Field, LoadState, Notice, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';

const EVENT_TYPES = ['credits.balance_low', 'spending_limit.threshold_reached', 'job.completed'] as const;
type EventType = (typeof EVENT_TYPES)[number];

export function AlertsScreen() {
  const { api, orgId, permissions } = useWorkspace();
  const settings = useLoad(
    () => data(api.GET('/organizations/{organization_id}/alerts', { params: { path: { organization_id: orgId } } })),
    [orgId],
  );
  return (
    <section>
      <ScreenHeading>Alerts</ScreenHeading>
      <LoadState loaded={settings} what="alert settings" />
      {settings.value ? (
        permissions.editAlerts ? (
          <AlertSettingsForm lowBalance={settings.value.low_balance} thresholds={settings.value.thresholds} onSaved={settings.reload} />
        ) : (
          <dl class="facts">
            <dt>Low balance alert</dt>
            <dd>{settings.value.low_balance === null ? 'none' : `below ${formatCredits(settings.value.low_balance)}`}</dd>
            <dt>Spending limit thresholds</dt>
            <dd>{settings.value.thresholds.map((threshold) => `${threshold}%`).join(', ')}</dd>
          </dl>
        )
      ) : null}
      {permissions.webhooks ? <Webhooks /> : null}
    </section>
  );
}

function AlertSettingsForm({ lowBalance, thresholds, onSaved }: { lowBalance: number | null; thresholds: number[]; onSaved: () => void }) {
  const { api, orgId } = useWorkspace();
  const [low, setLow] = useState(lowBalance === null ? '' : String(lowBalance));
  const [percentages, setPercentages] = useState(thresholds.join(', '));
  const [done, setDone] = useState<string | undefined>(undefined);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const lowBalanceValue = parseLimit(low);
      if (!lowBalanceValue.ok) throw new Error('Low balance: a whole number of credits, or empty for no alert.');
      const parsed = parseThresholds(percentages);
      if (!parsed.ok) throw new Error(`Thresholds: ${parsed.error}.`);
      await data(
        api.PUT('/organizations/{organization_id}/alerts', {
          params: { path: { organization_id: orgId } },
          body: { low_balance: lowBalanceValue.value, thresholds: parsed.value },
        }),
      );
      setDone('The alert settings are saved.');
      onSaved();
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Alert settings">
      <div class="row">
        <Field label="Alert when the balance falls below (credits)" hint="Empty: no low-balance alert">
          {(props) => <input {...props} inputMode="numeric" value={low} onInput={(event) => setLow(event.currentTarget.value)} />}
        </Field>
        <Field label="Alert at these percentages of a spending limit" hint="1 to 5 of them, such as 80, 100">
          {(props) => <input {...props} value={percentages} onInput={(event) => setPercentages(event.currentTarget.value)} />}
        </Field>
      </div>
      <ErrorNote error={action.error} />
      <button type="submit" disabled={action.busy}>
        Save alert settings
      </button>
      <Notice text={done} />
    </form>
  );
}

function Webhooks() {
  const { api, orgId } = useWorkspace();
  const hooks = useLoad(
    () =>
      data(api.GET('/organizations/{organization_id}/webhooks', { params: { path: { organization_id: orgId }, query: { limit: 10 } } })),
    [orgId],
  );
  const [secret, setSecret] = useState<{ url: string; secret: string } | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const list = hooks.value?.webhooks ?? [];
  return (
    <>
      <h3>Notification endpoints</h3>
      <p class="muted">Events are POSTed to each endpoint, signed (Standard Webhooks) with its secret.</p>
      {secret ? (
        <section class="card token-once" aria-label="The new endpoint's secret">
          <p>
            <strong>Signing secret of {secret.url}, shown this once:</strong>
          </p>
          <code class="token">{secret.secret}</code>
          <div class="row">
            <CopyButton text={secret.secret} label="Copy secret" />
            <button type="button" onClick={() => setSecret(undefined)}>
              Done
            </button>
          </div>
        </section>
      ) : null}
      <CreateWebhook
        onCreated={(created) => {
          setSecret(created);
          hooks.reload();
        }}
      />
      <Notice text={done} />
      <LoadState loaded={hooks} what="notification endpoints" />
      {hooks.value && list.length === 0 ? <p>No notification endpoints yet.</p> : null}
      <ul class="cards">
        {list.map((hook) => (
          <li key={hook.id} class="card">
            <h4>
              <code>{hook.url}</code>
            </h4>
            <p class="muted">
              {hook.events.join(', ')} · <code>{hook.id}</code> · added {formatTime(hook.created_at)}
            </p>
            <WebhookActions
              id={hook.id}
              url={hook.url}
              onChanged={(message) => {
                setDone(message);
                hooks.reload();
              }}
            />
          </li>
        ))}
      </ul>
    </>
  );
}

function CreateWebhook({ onCreated }: { onCreated: (created: { url: string; secret: string }) => void }) {
  const { api, orgId } = useWorkspace();
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState('');
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<EventType[]>([]);
  const action = useAction();
  if (!open)
    return (
      <button type="button" class="primary" onClick={() => setOpen(true)}>
        Add an endpoint
      </button>
    );
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      if (!all && chosen.length === 0) throw new Error('Choose at least one event, or all of them.');
      const created = await data(
        api.POST('/organizations/{organization_id}/webhooks', {
          params: { path: { organization_id: orgId } },
          body: { url: url.trim(), events: all ? ['*'] : chosen },
        }),
      );
      setOpen(false);
      setUrl('');
      onCreated({ url: created.url, secret: created.secret });
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Add a notification endpoint">
      <Field label="URL" hint="https, on a public address">
        {(props) => <input {...props} type="url" required value={url} onInput={(event) => setUrl(event.currentTarget.value)} />}
      </Field>
      <fieldset>
        <legend>Events</legend>
        <label class="check">
          <input type="checkbox" checked={all} onChange={(event) => setAll(event.currentTarget.checked)} /> All events, present and future
        </label>
        {all
          ? null
          : EVENT_TYPES.map((type) => (
              <label class="check" key={type}>
                <input
                  type="checkbox"
                  checked={chosen.includes(type)}
                  onChange={(event) => setChosen(event.currentTarget.checked ? [...chosen, type] : chosen.filter((each) => each !== type))}
                />{' '}
                {type}
              </label>
            ))}
      </fieldset>
      <ErrorNote error={action.error} />
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy}>
          Add endpoint
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function WebhookActions({ id, url, onChanged }: { id: string; url: string; onChanged: (message: string) => void }) {
  const { api, orgId } = useWorkspace();
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [generation, setGeneration] = useState(0);
  const action = useAction();
  const path = { organization_id: orgId, webhook_id: id };
  return (
    <>
      <div class="row">
        <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
          {showDeliveries ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            void action
              .run(() => data(api.POST('/organizations/{organization_id}/webhooks/{webhook_id}/test', { params: { path } })))
              .then((ok) => {
                if (ok) {
                  onChanged(`A test event is on its way to ${url}.`);
                  setGeneration(generation + 1);
                }
              })
          }
        >
          Send a test event
        </button>
        <ConfirmButton
          label="Delete"
          question={`Delete the endpoint ${url}?`}
          busy={action.busy}
          onConfirm={() =>
            void action
              .run(() => data(api.DELETE('/organizations/{organization_id}/webhooks/{webhook_id}', { params: { path } })))
              .then((ok) => ok && onChanged(`The endpoint ${url} is deleted.`))
          }
        />
      </div>
      <ErrorNote error={action.error} />
      {showDeliveries ? <Deliveries key={generation} webhookId={id} /> : null}
    </>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const { api, orgId } = useWorkspace();
  const deliveries = useLoad(
    () =>
      data(
        api.GET('/organizations/{organization_id}/webhooks/{webhook_id}/deliveries', {
          params: { path: { organization_id: orgId, webhook_id: webhookId }, query: { limit: 20 } },
        }),
      ),
    [orgId, webhookId],
  );
  const list = deliveries.value?.deliveries ?? [];
  return (
    <div>
      <LoadState loaded={deliveries} what="deliveries" />
      {deliveries.value && list.length === 0 ? <p>Nothing sent yet.</p> : null}
      {list.length > 0 ? (
        <table class="data">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Next attempt</th>
            </tr>
          </thead>
          <tbody>
            {list.map((delivery) => (
              <tr key={delivery.id}>
                <td data-label="Event">
                  {delivery.type} <span class="muted">{formatTime(delivery.created_at)}</span>
                </td>
                <td data-label="Status">{delivery.status}</td>
                <td data-label="Attempts">{delivery.attempts}</td>
                <td data-label="Last answer">{delivery.last_status_code ?? '—'}</td>
                <td data-label="Next attempt">{formatTime(delivery.next_attempt_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <button type="button" onClick={deliveries.reload}>
        Refresh deliveries
      </button>
    </div>
  );
}
