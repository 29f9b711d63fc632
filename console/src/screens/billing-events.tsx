/**
 * Billing events (owners): the last 30 days, newest first, a page at a time (one request per
 * page), and the whole window as CSV (`Accept: text/csv`, following `Link: rel="next"`).
 */
import { useState } from 'preact/hooks';
import { ApiError, apiBase, data, download, fetchText } from '../api.ts';
import { formatCredits, formatTime, joinCsvPages, nextLink } from '../model.ts';
import { ErrorNote, Loading, Pager, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';

const PAGE_SIZE = 25;
/** At most this many pages of 100 in one download: 5,000 events. */
const CSV_MAX_PAGES = 50;

export function BillingEventsScreen() {
  const { api, orgId, token, unauthorized } = useWorkspace();
  // The cursors of the pages before this one, to go back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useLoad(
    () =>
      data(
        api.GET('/organizations/{organization_id}/billing/events', {
          params: { path: { organization_id: orgId }, query: { days: 30, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
        }),
      ),
    [orgId, cursor],
  );
  const csv = useAction();
  const downloadCsv = () =>
    csv.run(async () => {
      const pages: string[] = [];
      let url: string | null = `${apiBase()}organizations/${encodeURIComponent(orgId)}/billing/events?days=30&limit=100`;
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
      download(`billing-events-${orgId}.csv`, joinCsvPages(pages));
    });

  const events = page.value?.events ?? [];
  return (
    <section>
      <ScreenHeading>Billing events</ScreenHeading>
      <p class="muted">Every charge, refund and grant of the last 30 days, newest first.</p>
      <div class="row">
        <button type="button" onClick={() => void downloadCsv()} disabled={csv.busy}>
          Download CSV (30 days)
        </button>
      </div>
      <ErrorNote error={page.error ?? csv.error} />
      {page.loading && !page.value ? <Loading what="billing events" /> : null}
      {page.value && events.length === 0 ? <p>No billing events in these 30 days.</p> : null}
      {events.length > 0 ? (
        <table class="data" data-testid="billing-events">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">Amount</th>
              <th scope="col">By</th>
              <th scope="col">Id</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.id}>
                <td data-label="When">{formatTime(event.created_at)}</td>
                <td data-label="Event">
                  {event.title}
                  <span class="muted"> {event.type}</span>
                </td>
                <td data-label="Amount">{formatCredits(event.amount)}</td>
                <td data-label="By">{event.metadata.user_id ?? event.metadata.api_key_id ?? '—'}</td>
                <td data-label="Id">
                  <code>{event.id}</code>
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
