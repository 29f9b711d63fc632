/**
 * The trash (editors and owners): what the caller could restore, newest deletion first, each
 * with its deadline; restore one. One request to open (a page of 50), one per restore.
 */
import { useState } from 'preact/hooks';
import { data } from '../api.ts';
import { formatTime } from '../model.ts';
import { ErrorNote, Loading, Notice, Pager, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';

type Kind = 'asset' | 'skill' | 'conversation' | 'project';
const KINDS: Kind[] = ['project', 'conversation', 'asset', 'skill'];

export function TrashScreen() {
  const { api, orgId } = useWorkspace();
  const [kind, setKind] = useState<Kind | ''>('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const trash = useLoad(
    () =>
      data(
        api.GET('/organizations/{organization_id}/trash', {
          params: { path: { organization_id: orgId }, query: { limit: 50, ...(kind ? { kind } : {}), ...(cursor ? { cursor } : {}) } },
        }),
      ),
    [orgId, kind, cursor],
  );
  // Restored here: gone from the list at once (the index behind the trash catches up a moment later).
  const [restored, setRestored] = useState<string[]>([]);
  const [done, setDone] = useState<string | undefined>(undefined);
  const action = useAction();
  const restore = (item: { kind: Kind; id: string; title: string | null }) =>
    void action
      .run(async () => {
        if (item.kind === 'project') await data(api.POST('/projects/{project_id}/restore', { params: { path: { project_id: item.id } } }));
        else if (item.kind === 'conversation')
          await data(api.POST('/conversations/{conversation_id}/restore', { params: { path: { conversation_id: item.id } } }));
        else if (item.kind === 'asset') await data(api.POST('/assets/{asset_id}/restore', { params: { path: { asset_id: item.id } } }));
        else await data(api.POST('/skills/{skill_id}/restore', { params: { path: { skill_id: item.id } } }));
      })
      .then((ok) => {
        if (ok) {
          setRestored([...restored, item.id]);
          setDone(`Restored the ${item.kind} “${item.title ?? item.id}”.`);
        }
      });
  const items = (trash.value?.items ?? []).filter((item) => !restored.includes(item.id));
  return (
    <section>
      <ScreenHeading>Trash</ScreenHeading>
      <p class="muted">Deleted resources you can restore, until each one's deadline.</p>
      <div class="row">
        <label>
          Kind{' '}
          <select
            value={kind}
            onChange={(event) => {
              setKind(event.currentTarget.value as Kind | '');
              setCursors([undefined]);
            }}
          >
            <option value="">all</option>
            {KINDS.map((each) => (
              <option key={each} value={each}>
                {each}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Notice text={done} />
      <ErrorNote error={trash.error ?? action.error} />
      {trash.loading && !trash.value ? <Loading what="the trash" /> : null}
      {trash.value && items.length === 0 ? <p>Nothing to restore.</p> : null}
      {items.length > 0 ? (
        <table class="data" data-testid="trash">
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Kind</th>
              <th scope="col">Deleted</th>
              <th scope="col">Restore until</th>
              <th scope="col">
                <span class="visually-hidden">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={item.id}>
                <td data-label="Title" class="title">
                  {item.title ?? item.id}
                </td>
                <td data-label="Kind">{item.kind}</td>
                <td data-label="Deleted">
                  {formatTime(item.deleted_at)}
                  {item.deleted_by_id ? ` by ${item.deleted_by_id}` : ''}
                </td>
                <td data-label="Restore until">{formatTime(item.restore_until)}</td>
                <td data-label="Action">
                  <button
                    type="button"
                    disabled={action.busy}
                    onClick={() => restore(item)}
                    aria-label={`Restore ${item.kind} ${item.title ?? item.id}`}
                  >
                    Restore
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager cursors={cursors} setCursors={setCursors} page={trash.value} labels={['Previous page', 'Next page']} />
    </section>
  );
}
