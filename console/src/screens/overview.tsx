/**
 * Balance and spend against every limit: the organization's and the caller's, by month and by day;
 * and the operations that are not working now. Two requests (the credits route, the status page).
 */
import { useState } from 'preact/hooks';
import { data } from '../api.ts';
import { consentText, formatCredits, formatTime, notWorking, parseLimit } from '../model.ts';
import { ConsentField, ErrorNote, Field, Loading, MeterRow, Notice, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';

export function OverviewScreen() {
  const { api, orgId, permissions } = useWorkspace();
  const credits = useLoad(
    () => data(api.GET('/organizations/{organization_id}/credits', { params: { path: { organization_id: orgId } } })),
    [orgId],
  );
  const value = credits.value;
  return (
    <section>
      <ScreenHeading>Overview</ScreenHeading>
      <ErrorNote error={credits.error} />
      {!value ? (
        credits.loading ? (
          <Loading what="the balance" />
        ) : null
      ) : (
        <>
          <div class="balance">
            <span class="muted">Balance</span>
            <strong data-testid="balance">{formatCredits(value.balance)}</strong>
          </div>
          <p class="muted">
            This month: {formatTime(value.period.start)} to {formatTime(value.period.end)}
          </p>
          <h3>The workspace</h3>
          <MeterRow label="This month" spent={value.organization.spent} limit={value.organization.spending_limit} />
          <MeterRow label="Today" spent={value.organization.spent_today} limit={value.organization.daily_limit} />
          {value.member ? (
            <>
              <h3>You</h3>
              <MeterRow label="Your month" spent={value.member.spent} limit={value.member.spending_limit} />
              <MeterRow label="Your day" spent={value.member.spent_today} limit={value.member.daily_limit} />
            </>
          ) : null}
          {value.api_key ? (
            <>
              <h3>This API key ({value.api_key.id})</h3>
              <MeterRow label="Key's month" spent={value.api_key.spent} limit={value.api_key.spending_limit} />
              <MeterRow label="Key's day" spent={value.api_key.spent_today} limit={value.api_key.daily_limit} />
            </>
          ) : null}
          <p data-testid="consent">
            {consentText(value.confirm_above?.credits ?? null)}
            {value.confirm_above
              ? value.confirm_above.scope === 'api_key'
                ? " (this key's threshold)"
                : " (the workspace's threshold)"
              : ''}
          </p>
          {permissions.manageOrganization ? (
            <OrganizationLimits
              monthly={value.organization.spending_limit}
              daily={value.organization.daily_limit}
              // Only a person manages the workspace: for them the threshold that holds is the workspace's own.
              confirmAbove={value.confirm_above?.scope === 'organization' ? value.confirm_above.credits : null}
              onSaved={credits.reload}
            />
          ) : null}
        </>
      )}
      <ServiceStatus />
    </section>
  );
}

function OrganizationLimits({
  monthly,
  daily,
  confirmAbove,
  onSaved,
}: {
  monthly: number | null;
  daily: number | null;
  confirmAbove: number | null;
  onSaved: () => void;
}) {
  const { api, orgId } = useWorkspace();
  const [month, setMonth] = useState(monthly === null ? '' : String(monthly));
  const [day, setDay] = useState(daily === null ? '' : String(daily));
  const [ask, setAsk] = useState(confirmAbove === null ? '' : String(confirmAbove));
  const [done, setDone] = useState<string | undefined>(undefined);
  const action = useAction();
  const save = (event: Event) => {
    event.preventDefault();
    const spendingLimit = parseLimit(month);
    const dailyLimit = parseLimit(day);
    const threshold = parseLimit(ask);
    if (!spendingLimit.ok || !dailyLimit.ok || !threshold.ok) {
      void action.run(async () => {
        throw new Error('Limits and the consent threshold are whole numbers of credits, or empty for none.');
      });
      return;
    }
    void action
      .run(() =>
        data(
          api.PATCH('/organizations/{organization_id}', {
            params: { path: { organization_id: orgId } },
            body: { spending_limit: spendingLimit.value, daily_limit: dailyLimit.value, confirm_above: threshold.value },
          }),
        ),
      )
      .then((ok) => {
        if (ok) {
          setDone('The workspace limits are saved.');
          onSaved();
        }
      });
  };
  return (
    <form class="card" onSubmit={save}>
      <h3>Workspace limits</h3>
      <div class="row">
        <Field label="Monthly limit (credits)" hint="Empty: no limit">
          {(props) => <input {...props} inputMode="numeric" value={month} onInput={(event) => setMonth(event.currentTarget.value)} />}
        </Field>
        <Field label="Daily limit (credits)" hint="Empty: no limit">
          {(props) => <input {...props} inputMode="numeric" value={day} onInput={(event) => setDay(event.currentTarget.value)} />}
        </Field>
        <ConsentField value={ask} onInput={setAsk} hint="Empty: never ask; a key's own, if lower, holds for it" />
      </div>
      <ErrorNote error={action.error} />
      <button type="submit" disabled={action.busy}>
        Save limits
      </button>
      <Notice text={done} />
    </form>
  );
}

/**
 * What GET /social/status says, in one line while every operation works, else the operations that
 * do not (a run of one "not available" answers 503 `operation_unavailable`, charging nothing).
 */
function ServiceStatus() {
  const { api } = useWorkspace();
  const status = useLoad(() => data(api.GET('/social/status')), []);
  const page = status.value;
  if (!page) return <ErrorNote error={status.error} />;
  const affected = notWorking(page.operations);
  return (
    <>
      <h3>Operations</h3>
      {affected.length === 0 ? (
        <p data-testid="service-status">All {page.operations.length} operations are working.</p>
      ) : (
        <ul data-testid="service-status">
          {affected.map(({ operation, words }) => (
            <li key={operation}>
              <code>{operation}</code>: {words}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
