/**
 * The console's small components. Everything from the API is rendered as text (JSX children and
 * attributes, which Preact sets as text and properties): nothing here builds HTML from a string.
 */
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { type Api, ApiError } from './api.ts';
import { type Access, adviceFor, type Meter, meterOf, type Permissions } from './model.ts';

export interface Workspace {
  api: Api;
  token: () => string;
  orgId: string;
  access: Access;
  permissions: Permissions;
  /** A 401 from a call made outside the typed client (CSV): ends the session. */
  unauthorized: (error: ApiError) => void;
}

export const WorkspaceContext = createContext<Workspace | null>(null);

export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new Error('no workspace chosen');
  return workspace;
}

export interface Loaded<T> {
  value: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on reload); keeps the last value while reloading. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value: T | undefined; error: unknown; loading: boolean }>({
    value: undefined,
    error: undefined,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (value) => live && setState({ value, error: undefined, loading: false }),
      (error: unknown) => live && setState((previous) => ({ value: previous.value, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}

/** A promise's outcome for a button: busy while it runs, its error shown beside it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}

/** An error as the API gave it, and what to do about it. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  if (error instanceof ApiError) {
    const help = typeof error.data?.how_to_add_credits === 'string' ? error.data.how_to_add_credits : undefined;
    const advice = adviceFor(error.code);
    return (
      <div class="error" role="alert">
        <p>
          <strong>{error.message}</strong>
          {error.code ? <span class="code"> ({error.code})</span> : null}
        </p>
        {help ? <p>To add credits: {help}</p> : null}
        {advice ? <p>{advice}</p> : null}
        {error.requestId ? <p class="muted">Request id: {error.requestId}</p> : null}
      </div>
    );
  }
  return (
    <div class="error" role="alert">
      <p>
        <strong>{error instanceof Error ? error.message : String(error)}</strong>
      </p>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** Spend against a limit: a meter and the same as text. */
/** What a load shows while it has nothing to show: its error, or that it is loading `what`. */
export function LoadState({ loaded, what }: { loaded: Loaded<unknown>; what: string }) {
  return (
    <>
      <ErrorNote error={loaded.error} />
      {loaded.loading && !loaded.value ? <Loading what={what} /> : null}
    </>
  );
}

export function MeterRow({ label, spent, limit }: { label: string; spent: number; limit: number | null }) {
  const meter: Meter = meterOf(spent, limit);
  return (
    <div class={`meter meter-${meter.level}`}>
      <span class="meter-label">{label}</span>
      {meter.ratio === null ? null : <meter min={0} max={1} value={meter.ratio} aria-label={label} />}
      <span class="meter-text">{meter.text}</span>
    </div>
  );
}

/** Copies text with the Clipboard API; says so where screen readers hear it. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <span class="copy">
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(text).then(
            () => setState('copied'),
            () => setState('failed'),
          )
        }
      >
        {label}
      </button>
      <span role="status" class="muted">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </span>
  );
}

/** A destructive action asked twice: the first press offers the confirmation, which takes focus. */
export function ConfirmButton({
  label,
  question,
  onConfirm,
  busy,
}: {
  label: string;
  question: string;
  onConfirm: () => void;
  busy?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)} disabled={busy}>
        {label}
      </button>
    );
  return (
    <fieldset class="confirm">
      <legend>{question}</legend>
      <button
        type="button"
        class="danger"
        ref={confirm}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Yes, {label.toLowerCase()}
      </button>{' '}
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </fieldset>
  );
}

let fieldIds = 0;

/** A labelled input; `hint` is read with it. */
export function Field({
  label,
  hint,
  children,
}: {
  label: string;
  hint?: string;
  children: (props: { id: string; 'aria-describedby'?: string }) => ComponentChildren;
}) {
  const [id] = useState(() => `field-${++fieldIds}`);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({ id, ...(hint ? { 'aria-describedby': `${id}-hint` } : {}) })}
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/**
 * `confirm_above`: MCP tool calls quoted above it ask the user first (the lower of the key's and
 * the workspace's holds); empty never asks. On the keys, the connected apps and the overview (the workspace's).
 */
export function ConsentField({ value, onInput, hint }: { value: string; onInput: (value: string) => void; hint?: string }) {
  return (
    <Field label="Ask before MCP calls above (credits)" hint={hint ?? 'Empty: never ask'}>
      {(props) => <input {...props} inputMode="numeric" value={value} onInput={(event) => onInput(event.currentTarget.value)} />}
    </Field>
  );
}

/** The first screen after the page loads keeps the browser's focus (a Tab then reaches the skip button first). */
let pageJustLoaded = true;

/** A screen's heading, focused when another screen opens so that keyboard and screen reader users land on it. */
export function ScreenHeading({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (pageJustLoaded) pageJustLoaded = false;
    else heading.current?.focus();
  }, []);
  return (
    <h2 tabIndex={-1} ref={heading}>
      {children}
    </h2>
  );
}

/** A message that the last action worked, read out politely. */
export function Notice({ text }: { text: string | undefined }) {
  return (
    <p class="notice" role="status">
      {text ?? ''}
    </p>
  );
}

/**
 * The buttons of a listing read a page at a time: back to the page before (the cursors of the
 * pages before this one are kept, since the API's cursors only go forward) and on to the next one
 * while `page` has more. `labels`: the words of the two buttons, newest-first listings saying
 * "Newer"/"Older".
 */
export function Pager({
  cursors,
  setCursors,
  page,
  labels = ['Newer', 'Older'],
}: {
  cursors: (string | undefined)[];
  setCursors: (cursors: (string | undefined)[]) => void;
  page: { has_more: boolean; next_cursor?: string | null } | undefined;
  labels?: readonly [string, string];
}) {
  const next = page?.has_more ? page.next_cursor : null;
  return (
    <div class="row pager">
      <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
        {labels[0]}
      </button>
      <button type="button" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
        {labels[1]}
      </button>
    </div>
  );
}
