/**
 * Jobs with their progress. The API lists no organization's jobs (docs/console.md): a job is
 * opened by its id (from `POST …/jobs`, a webhook, a script's log) and this tab remembers the last
 * few, at most 8, so that opening the screen reads at most 8 jobs and one page of items. A job
 * still queued or running is read again every 5 s (JOB_POLL_MS), and no more often.
 */
import { useEffect, useState } from 'preact/hooks';
import { data } from '../api.ts';
import { formatCredits, formatTime, JOB_POLL_MS, jobIsActive, jobProgress } from '../model.ts';
import { ConfirmButton, ErrorNote, Field, Loading, LoadState, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';

const REMEMBERED = 8;
const storageKey = (orgId: string) => `workspace-console:jobs:${orgId}`;

function remembered(orgId: string): string[] {
  try {
    const ids = JSON.parse(sessionStorage.getItem(storageKey(orgId)) ?? '[]') as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string').slice(0, REMEMBERED) : [];
  } catch {
    return [];
  }
}

export function JobsScreen() {
  const { orgId } = useWorkspace();
  const [ids, setIds] = useState<string[]>(() => remembered(orgId));
  const [selected, setSelected] = useState<string | undefined>(() => remembered(orgId)[0]);
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const keep = (next: string[]) => {
    sessionStorage.setItem(storageKey(orgId), JSON.stringify(next));
    setIds(next);
  };
  const open = (event: Event) => {
    event.preventDefault();
    const id = typed.trim();
    if (!/^job_[0-9a-f]{32}$/.test(id)) {
      setProblem('A job id is job_ and 32 hexadecimal digits, as POST …/jobs answered it.');
      return;
    }
    setProblem(undefined);
    setTyped('');
    keep([id, ...ids.filter((each) => each !== id)].slice(0, REMEMBERED));
    setSelected(id);
  };
  return (
    <section>
      <ScreenHeading>Jobs</ScreenHeading>
      <form class="row" onSubmit={open} aria-label="Open a job">
        <Field label="Job id" hint="Jobs opened here are remembered in this tab">
          {(props) => <input {...props} value={typed} onInput={(event) => setTyped(event.currentTarget.value)} />}
        </Field>
        <button type="submit">Open job</button>
      </form>
      {problem ? (
        <p class="error" role="alert">
          {problem}
        </p>
      ) : null}
      {ids.length === 0 ? <p>No job opened yet in this tab.</p> : null}
      <ul class="cards">
        {ids.map((id) => (
          <JobCard
            key={id}
            id={id}
            selected={id === selected}
            onSelect={() => setSelected(id === selected ? undefined : id)}
            onForget={() => keep(ids.filter((each) => each !== id))}
          />
        ))}
      </ul>
    </section>
  );
}

function JobCard({ id, selected, onSelect, onForget }: { id: string; selected: boolean; onSelect: () => void; onForget: () => void }) {
  const { api, permissions } = useWorkspace();
  const job = useLoad(() => data(api.GET('/social/jobs/{job_id}', { params: { path: { job_id: id } } })), [id]);
  const action = useAction();
  const active = job.value ? jobIsActive(job.value.status) : false;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(job.reload, JOB_POLL_MS);
    return () => clearInterval(timer);
  }, [active, job.reload]);
  const value = job.value;
  const progress = value ? jobProgress(value) : undefined;
  return (
    <li class="card" data-testid="job">
      <h3>
        <code>{id}</code> {value ? <span class={`badge badge-${value.status}`}>{value.status}</span> : null}
      </h3>
      <ErrorNote error={job.error ?? action.error} />
      {job.loading && !value ? <Loading what="the job" /> : null}
      {value && progress ? (
        <>
          <p>
            {value.operation} · {progress.done} of {value.total} items done · {value.succeeded} succeeded, {value.failed} failed,{' '}
            {value.cancelled} cancelled · {formatCredits(value.charged)} charged · started {formatTime(value.created_at)}
          </p>
          <progress max={100} value={progress.percent} aria-label={`Job ${id} progress`}>
            {progress.percent}%
          </progress>
        </>
      ) : null}
      <div class="row">
        <button type="button" aria-expanded={selected} onClick={onSelect}>
          {selected ? 'Hide items' : 'Show items'}
        </button>
        {value && active && permissions.cancelJobs ? (
          <ConfirmButton
            label="Cancel job"
            question="Cancel this job? Items not started are never charged."
            busy={action.busy}
            onConfirm={() =>
              void action.run(() => data(api.POST('/social/jobs/{job_id}/cancel', { params: { path: { job_id: id } } }))).then(job.reload)
            }
          />
        ) : null}
        <button type="button" onClick={onForget}>
          Forget
        </button>
      </div>
      {selected ? <JobItems id={id} active={active} /> : null}
    </li>
  );
}

function JobItems({ id, active }: { id: string; active: boolean }) {
  const { api } = useWorkspace();
  const items = useLoad(
    () => data(api.GET('/social/jobs/{job_id}/items', { params: { path: { job_id: id }, query: { limit: 25 } } })),
    [id],
  );
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(items.reload, JOB_POLL_MS);
    return () => clearInterval(timer);
  }, [active, items.reload]);
  const list = items.value?.items ?? [];
  return (
    <div>
      <LoadState loaded={items} what="items" />
      {list.length > 0 ? (
        <table class="data">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Input</th>
              <th scope="col">Status</th>
              <th scope="col">Charged</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {list.map((item) => (
              <tr key={item.index}>
                <td data-label="#">{item.index}</td>
                <td data-label="Input">
                  <code>{JSON.stringify(item.input)}</code>
                </td>
                <td data-label="Status">{item.status}</td>
                <td data-label="Charged">{formatCredits(item.charged)}</td>
                <td data-label="Result">
                  {item.error ? (
                    `${item.error.code}: ${item.error.message}`
                  ) : item.output ? (
                    <code>{JSON.stringify(item.output).slice(0, 200)}</code>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {items.value?.has_more ? <p class="muted">The first 25 items; the API pages the rest.</p> : null}
    </div>
  );
}
