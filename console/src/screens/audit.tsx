/**
 * The audit log (owners, with a user's token): who changed what and when, newest first, a page at
 * a time, filtered by type, actor, target and time; and the filtered log as CSV (`Accept:
 * text/csv`, following `Link: rel="next"`), as the billing events screen does.
 */
import { useState } from 'preact/hooks';
import { ApiError, apiBase, data, download, fetchText } from '../api.ts';
import { auditLines, formatTime, joinCsvPages, nextLink } from '../model.ts';
import { ErrorNote, Field, Loading, Pager, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';

const PAGE_SIZE = 25;
/** At most this many pages of 100 in one download: 5,000 events. */
const CSV_MAX_PAGES = 50;

interface Filters {
  type: string;
  actor_id: string;
  target_id: string;
  /** `datetime-local` values, read as UTC. */
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { type: '', actor_id: '', target_id: '', from: '', to: '' };

/** The filters as the route takes them: the empty ones left out, the instants in UTC with `Z`. */
function queryOf(filters: Filters): Record<string, string> {
  const instant = (value: string) => (value ? new Date(`${value}Z`).toISOString() : '');
  const query: Record<string, string> = {
    type: filters.type.replace(/\s+/g, ''),
    actor_id: filters.actor_id.trim(),
    target_id: filters.target_id.trim(),
    from: instant(filters.from),
    to: instant(filters.to),
  };
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== ''));
}

export function AuditScreen() {
  const { api, orgId, token, unauthorized } = useWorkspace();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  // The cursors of the pages before this one, to go back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const query = queryOf(filters);
  const page = useLoad(
    () =>
      data(
        api.GET('/organizations/{organization_id}/audit-events', {
          params: { path: { organization_id: orgId }, query: { ...query, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
        }),
      ),
    [orgId, cursor, JSON.stringify(query)],
  );
  const apply = (next: Filters) => {
    setFilters(next);
    setCursors([undefined]);
  };
  const csv = useAction();
  const downloadCsv = () =>
    csv.run(async () => {
      const pages: string[] = [];
      const search = new URLSearchParams({ ...query, limit: '100' });
      let url: string | null = `${apiBase()}organizations/${encodeURIComponent(orgId)}/audit-events?${search}`;
      try {
        while (url && pages.length < CSV_MAX_PAGES) {
          const answer: { text: string; link: string | null } = await fetchText(url, token(), 'text/csv');
          pages.push(answer.text);
          const next = nextLink(answer.link);
          url = next ? new URL(next, apiBase()).href : null;
        }
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) unauthorized(error);
        throw error;
      }
      download(`audit-events-${orgId}.csv`, joinCsvPages(pages));
    });

  const field = (name: keyof Filters, label: string, type: 'text' | 'datetime-local' = 'text', hint?: string) => (
    <Field label={label} {...(hint ? { hint } : {})}>
      {(props) => {
        const onInput = (event: { currentTarget: HTMLInputElement }) => setDraft({ ...draft, [name]: event.currentTarget.value });
        return type === 'datetime-local' ? (
          <input {...props} type="datetime-local" value={draft[name]} onInput={onInput} />
        ) : (
          <input {...props} type="text" value={draft[name]} onInput={onInput} />
        );
      }}
    </Field>
  );
  const events = page.value?.events ?? [];
  return (
    <section>
      <ScreenHeading>Audit log</ScreenHeading>
      <p class="muted">Who changed the workspace's settings, members, keys and endpoints, and when: kept 400 days, newest first.</p>
      <form
        class="row"
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
        }}
      >
        {field('type', 'Types', 'text', 'comma-separated, such as api_key.created,api_key.revoked')}
        {field('actor_id', 'Actor')}
        {field('target_id', 'Target')}
        {field('from', 'From (UTC)', 'datetime-local')}
        {field('to', 'To (UTC)', 'datetime-local')}
        <button type="submit">Filter</button>
        <button
          type="button"
          onClick={() => {
            setDraft(NO_FILTERS);
            apply(NO_FILTERS);
          }}
        >
          Clear
        </button>
      </form>
      <div class="row">
        <button type="button" onClick={() => void downloadCsv()} disabled={csv.busy}>
          Download CSV
        </button>
      </div>
      <ErrorNote error={page.error ?? csv.error} />
      {page.loading && !page.value ? <Loading what="audit events" /> : null}
      {page.value && events.length === 0 ? <p>No audit events match.</p> : null}
      {events.length > 0 ? (
        <table class="data audit" data-testid="audit-events">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">By</th>
              <th scope="col">Target</th>
              <th scope="col">What</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.id}>
                <td data-label="When">{formatTime(event.occurred_at)}</td>
                <td data-label="Event">
                  <code class="nowrap">{event.type}</code>
                </td>
                <td data-label="By">
                  {event.actor.id}
                  <span class="muted"> {event.actor.type}</span>
                  {event.actor.client_id ? <span class="muted"> via {event.actor.client_id}</span> : null}
                </td>
                <td data-label="Target">
                  {event.target.id}
                  <span class="muted"> {event.target.type}</span>
                </td>
                <td data-label="What">
                  {auditLines(event.changes ?? null, event.details ?? null).map((line) => (
                    <div key={line}>{line}</div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager cursors={cursors} setCursors={setCursors} page={page.value} />
    </section>
  );
}
