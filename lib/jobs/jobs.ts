import { membershipOfCaller } from '../auth/access.ts';
import { fieldsWithBillingUrl } from '../billing/billing-url.ts';
import { cursorSigningKey } from '../config.ts';
import { getJob, type JobItemRecord, type JobRecord, listJobItemsPage, type StoredItemStatus } from '../db/jobs.ts';
import { forbidden, notFound, validationFailed } from '../errors.ts';
import { type Caller, mayRunOperations } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';
import { jobEnded } from './job-ended.ts';
import { afterCancel, type CancelOutcome, cancelJob, cancellable } from './lifecycle.ts';
import { type JobView, jobView } from './view.ts';

export const JOB_ITEM_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type JobItemStatus = (typeof JOB_ITEM_STATUSES)[number];

export interface JobItemView {
  index: number;
  input: unknown;
  status: JobItemStatus;
  output: unknown;
  error: { code: string; message: string; data?: Record<string, unknown> } | null;
  charged: number;
  finished_at: string | null;
  /** The provider that produced its output (`Social-Provider` of a single run); null otherwise. */
  provider: string | null;
}

/** An item's status as shown: a pending item of a cancelled job is cancelled (the cancel counted it). */
const shownStatus = (item: JobItemRecord, job: JobRecord): JobItemStatus => {
  if (item.status === 'running') return 'pending';
  if (item.status === 'pending' && (job.cancel_requested || job.status === 'cancelled')) return 'cancelled';
  return item.status;
};

const itemView = (item: JobItemRecord, job: JobRecord, base: string | undefined): JobItemView => ({
  index: item.index,
  input: item.input,
  status: shownStatus(item, job),
  output: item.output,
  // Out of credits: where an owner buys them, under the base the reader reached (not stored: the
  // worker that refused the item knows no base).
  error: item.error && base !== undefined ? fieldsWithBillingUrl(item.error, base, job.organization_id) : item.error,
  charged: item.charged,
  finished_at: item.finished_at,
  provider: item.provider,
});

/**
 * The job, for a member of its organization; anyone else (and an unknown id) 404. `alongside`
 * starts once the job is read, in parallel with the membership's read.
 */
async function readableJob<T = undefined>(
  caller: Caller,
  jobId: string,
  alongside?: (job: JobRecord) => Promise<T>,
): Promise<{ job: JobRecord; role: string; also: T | undefined }> {
  const job = await getJob(jobId);
  if (!job) throw notFound();
  const [member, also] = await Promise.all([membershipOfCaller(caller, job.organization_id), alongside?.(job)]);
  if (!member) throw notFound();
  return { job, role: member.role, also };
}

export async function getSocialJob(caller: Caller, jobId: string): Promise<JobView> {
  return jobView((await readableJob(caller, jobId)).job);
}

export interface JobItemsPage {
  items: JobItemView[];
  next_cursor: string | null;
  has_more: boolean;
}

/** The stored statuses an item shown as `status` may have, given its job. */
function storedStatuses(status: JobItemStatus | undefined, job: JobRecord): StoredItemStatus[] | undefined {
  const cancelling = job.cancel_requested || job.status === 'cancelled';
  if (status === 'pending') return cancelling ? ['running'] : ['pending', 'running'];
  if (status === 'cancelled') return cancelling ? ['pending', 'cancelled'] : ['cancelled'];
  return status === undefined ? undefined : [status];
}

const itemsCursorScope = (jobId: string, status: string | undefined) => `job-items:${jobId}:${status ?? ''}`;

/**
 * A job's items by index, `status` keeping one status; paged by `cursor`. Members of its
 * organization. `base`: the API's base URL as the reader reached it, for an item refused
 * `insufficient_credits` (`data.billing_url`).
 */
export async function listSocialJobItems(
  caller: Caller,
  jobId: string,
  query: { limit: number; status?: JobItemStatus | undefined; cursor?: string | undefined },
  base?: string,
): Promise<JobItemsPage> {
  const signingKey = cursorSigningKey();
  const scope = itemsCursorScope(jobId, query.status);
  const opened = query.cursor === undefined ? undefined : openCursor(query.cursor, signingKey, scope);
  if (opened && 'problem' in opened)
    throw validationFailed([{ path: ['query', 'cursor'], code: 'invalid_cursor', message: opened.problem }]);
  const after = opened ? Number(opened.position) : undefined;
  // The page is read alongside the membership: it is shown only to a member.
  const { job, also: page } = await readableJob(caller, jobId, (read) =>
    listJobItemsPage(jobId, query.limit, after, storedStatuses(query.status, read)),
  );
  if (!page) throw notFound();
  const last = page.items.at(-1);
  return {
    items: page.items.map((item) => itemView(item, job, base)),
    next_cursor: page.hasMore && last ? sealCursor(scope, String(last.index), signingKey) : null,
    has_more: page.hasMore,
  };
}

/**
 * Editors and owners: the job's items not yet started are cancelled (never charged); items at
 * the provider finish, and the job ends as `cancelled` when they have. Cancelling an ended job
 * changes nothing (200, the job as it is).
 */
export async function cancelSocialJob(caller: Caller, jobId: string, now = new Date()): Promise<JobView> {
  const { job, role } = await readableJob(caller, jobId);
  if (!mayRunOperations(role)) throw forbidden('only editors and owners can cancel jobs');
  // Ended, or its cancel already asked: nothing to write.
  if (!cancellable(job)) return jobView(job);
  const outcome = await cancelActiveJob(job, now);
  // What the cancel wrote, from the job as read; or, when items may have finished since, what is stored.
  return jobView(afterCancel(job, outcome, now) ?? (await getJob(jobId)) ?? job);
}

/**
 * What a cancel does, whoever asks (a member, or the recovery for a job whose items were never
 * written): its items not started cancelled, the job ended now if nothing runs (its place under
 * the organization's limit given back) and its webhook queued, or ended when its running items
 * finish (the worker queues the webhook then).
 */
export async function cancelActiveJob(job: JobRecord, now: Date): Promise<CancelOutcome> {
  const outcome = await cancelJob(job, now);
  if (outcome === 'ended') await jobEnded(afterCancel(job, outcome, now) ?? job);
  return outcome;
}
