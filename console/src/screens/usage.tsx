/**
 * Where the credits went: the last 30 days by day, stacked by operation, network, member or key,
 * from `GET …/usage` (one request per grouping), with the same figures as tables and as CSV.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, apiBase, data, download, fetchText } from '../api.ts';
import { drawUsageChart } from '../chart.ts';
import { formatCredits, GROUP_BY_LABELS, type GroupBy, groupLabel, usageSeries, usageWindow } from '../model.ts';
import { ErrorNote, Loading, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';

const GROUPS: GroupBy[] = ['operation', 'network', 'member', 'api_key'];

export function UsageScreen() {
  const { api, orgId, access, token, unauthorized } = useWorkspace();
  const [groupBy, setGroupBy] = useState<GroupBy>('operation');
  const [window] = useState(() => usageWindow(Date.now()));
  const usage = useLoad(
    () =>
      data(
        api.GET('/organizations/{organization_id}/usage', {
          params: { path: { organization_id: orgId }, query: { from: window.from, to: window.to, granularity: 'day', group_by: groupBy } },
        }),
      ).then((report) => {
        performance.mark('console:usage-data');
        return report;
      }),
    [orgId, groupBy],
  );
  const series = usage.value ? usageSeries(usage.value.buckets, groupBy) : undefined;
  const chart = useRef<HTMLDivElement>(null);
  const csv = useAction();

  useEffect(() => {
    const target = chart.current;
    if (!target || !series) return;
    target.textContent = '';
    if (series.groups.length === 0) return;
    const plot = drawUsageChart(target, series, Math.max(280, Math.min(900, target.clientWidth)));
    performance.mark('console:usage-chart');
    performance.measure('console:usage-chart-render', 'console:usage-data', 'console:usage-chart');
    document.documentElement.dataset.chart = 'drawn';
    return () => plot.destroy();
  }, [series]);

  const downloadCsv = () =>
    csv.run(async () => {
      const query = new URLSearchParams({ from: window.from, to: window.to, granularity: 'day', group_by: groupBy });
      try {
        const { text } = await fetchText(`${apiBase()}organizations/${encodeURIComponent(orgId)}/usage?${query}`, token(), 'text/csv');
        download(`usage-${orgId}-${groupBy}.csv`, text);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) unauthorized(error);
        throw error;
      }
    });

  const days = usage.value?.buckets.filter((bucket) => bucket.results.length > 0).reverse() ?? [];
  return (
    <section>
      <ScreenHeading>Usage</ScreenHeading>
      <p class="muted">
        Net credits (charged less refunded) by UTC day, the last 30 days.
        {access.role === 'owner' ? ' The whole workspace.' : ' Your own runs only (owners see the whole workspace).'}
      </p>
      <div class="row">
        <label>
          Group by{' '}
          <select value={groupBy} onChange={(event) => setGroupBy(event.currentTarget.value as GroupBy)}>
            {GROUPS.map((group) => (
              <option key={group} value={group}>
                {GROUP_BY_LABELS[group]}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void downloadCsv()} disabled={csv.busy}>
          Download CSV
        </button>
      </div>
      <ErrorNote error={usage.error ?? csv.error} />
      {usage.loading && !series ? <Loading what="usage" /> : null}
      <div
        class="chart"
        ref={chart}
        role="img"
        aria-label={`Net credits by day, stacked by ${GROUP_BY_LABELS[groupBy]}; the tables below give the figures`}
      />
      {series && series.groups.length === 0 ? <p>No runs in these 30 days.</p> : null}
      {series && series.totals.length > 0 ? (
        <>
          <h3>Totals by {GROUP_BY_LABELS[groupBy]}</h3>
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{GROUP_BY_LABELS[groupBy]}</th>
                <th scope="col">Runs</th>
                <th scope="col">Charged</th>
                <th scope="col">Refunded</th>
                <th scope="col">Net</th>
              </tr>
            </thead>
            <tbody>
              {series.totals.map((total) => (
                <tr key={total.group}>
                  <td data-label={GROUP_BY_LABELS[groupBy]}>{total.group}</td>
                  <td data-label="Runs">{total.runs}</td>
                  <td data-label="Charged">{formatCredits(total.charged)}</td>
                  <td data-label="Refunded">{formatCredits(total.refunded)}</td>
                  <td data-label="Net">{formatCredits(total.net)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>By day</h3>
          <table class="data" data-testid="usage-days">
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col">{GROUP_BY_LABELS[groupBy]}</th>
                <th scope="col">Runs</th>
                <th scope="col">Net</th>
              </tr>
            </thead>
            <tbody>
              {days.flatMap((bucket) =>
                bucket.results.map((result) => {
                  const group = groupLabel(groupBy, result);
                  return (
                    <tr key={`${bucket.start}/${group}`}>
                      <td data-label="Day (UTC)">{bucket.start.slice(0, 10)}</td>
                      <td data-label={GROUP_BY_LABELS[groupBy]}>{group}</td>
                      <td data-label="Runs">{result.runs}</td>
                      <td data-label="Net">{formatCredits(result.net)}</td>
                    </tr>
                  );
                }),
              )}
            </tbody>
          </table>
        </>
      ) : null}
    </section>
  );
}
