/**
 * Bulk runs as jobs (docs/jobs.md): creating one (every input validated first, the organization's
 * active-job limit and the Idempotency-Key checked in the creation transaction), reading it and its
 * items, cancelling it. The items themselves run in lib/jobs/worker.ts, each through the run path
 * of a single run (lib/social/run.ts), so a job's money is the money module's.
 */
import { createHash, randomUUID } from 'node:crypto';
import { membershipOfCaller } from '../auth/access.ts';
import { accessRefusal } from '../billing/charge-rules.ts';
import { cursorSigningKey, jobsConfig } from '../config.ts';
import { canonicalHash } from '../db/idempotency.ts';
import {
  cancelJob,
  createJob,
  getJob,
  getJobKeyRecord,
  type JobItemRecord,
  JobKeyTaken,
  JobLimitFull,
  type JobRecord,
  jobKeyRecordKey,
  listJobItemsPage,
  NoJobOrganization,
  putJobItems,
  type StoredItemStatus,
} from '../db/jobs.ts';
import { getOrganization } from '../db/organizations.ts';
import {
  forbidden,
  type Issue,
  idempotencyKeyReused,
  internalError,
  issuesOf,
  jobLimitReached,
  notAMember,
  notFound,
  operationNotOffered,
  validationFailed,
} from '../errors.ts';
import { logError } from '../log.ts';
import { type Caller, mayRunOperations } from '../model.ts';
import { openCursor, sealCursor } from '../signed-cursor.ts';
import { findOperation, isEnabled } from '../social/operations.ts';
import { socialProvider } from '../social/providers/index.ts';
import { jobQueue, type Outgoing } from './queue.ts';
import { checkWebhookUrl, newWebhookSecret } from './webhook.ts';

export const MAX_JOB_INPUTS = 1000;
export const JOB_ITEM_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type JobItemStatus = (typeof JOB_ITEM_STATUSES)[number];

/** A job as the API shows it. */
export interface JobView {
  id: string;
  organization_id: string;
  operation: string;
  status: JobRecord['status'];
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  /** Items not finished yet: waiting, or at the provider. */
  pending: number;
  /** Credits the job's items were charged (refunds deducted). */
  charged: number;
  created_at: string;
  created_by_id: string;
  completed_at: string | null;
  webhook: { url: string; status: 'pending' | 'delivered' | 'failed' | null; attempts: number } | null;
}

export const jobView = (job: JobRecord): JobView => ({
  id: job.id,
  organization_id: job.organization_id,
  operation: job.operation,
  status: job.status,
  total: job.total,
  succeeded: job.succeeded,
  failed: job.failed,
  cancelled: job.cancelled,
  pending: job.queued + job.running,
  charged: job.charged,
  created_at: job.created_at,
  created_by_id: job.created_by_id,
  completed_at: job.completed_at,
  webhook: job.webhook_url ? { url: job.webhook_url, status: job.webhook_status, attempts: job.webhook_attempts } : null,
});

export interface JobItemView {
  index: number;
  input: unknown;
  status: JobItemStatus;
  output: unknown;
  error: { code: string; message: string; data?: Record<string, unknown> } | null;
  charged: number;
  finished_at: string | null;
}

/** An item's status as shown: a pending item of a cancelled job is cancelled (the cancel counted it). */
const shownStatus = (item: JobItemRecord, job: JobRecord): JobItemStatus => {
  if (item.status === 'running') return 'pending';
  if (item.status === 'pending' && (job.cancel_requested || job.status === 'cancelled')) return 'cancelled';
  return item.status;
};

const itemView = (item: JobItemRecord, job: JobRecord): JobItemView => ({
  index: item.index,
  input: item.input,
  status: shownStatus(item, job),
  output: item.output,
  error: item.error,
  charged: item.charged,
  finished_at: item.finished_at,
});

export interface NewJob {
  caller: Caller;
  orgId: string;
  operationName: string;
  inputs: readonly unknown[];
  webhookUrl?: string | undefined;
  idempotencyKey?: string | undefined;
  maxAgeSeconds?: number | undefined;
  now?: Date;
}

/** The 202's job: with its webhook's secret, shown in this answer only (and its replays). */
export type CreatedJob = JobView & { webhook_secret?: string };

/**
 * Editors and owners (and editor API keys). Every input is validated against the operation's
 * schema before anything is read or written: one bad input is a 400 naming `inputs.<i>.<field>`.
 * Then, in one transaction: the job, the organization's active-job counter (409
 * `job_limit_reached` at the limit) and the key's record; then the items and their messages.
 */
export async function createSocialJob(request: NewJob): Promise<{ job: CreatedJob; replayed: boolean }> {
  const now = request.now ?? new Date();
  const operation = findOperation(request.operationName);
  const issues: Issue[] = [];
  const inputs = request.inputs.map((input, index) => {
    const parsed = operation.input.safeParse(input);
    if (parsed.success) return parsed.data;
    issues.push(
      ...issuesOf('body', parsed.error, input).map((issue) => ({ ...issue, path: ['body', 'inputs', index, ...issue.path.slice(1)] })),
    );
    return undefined;
  });
  if (request.webhookUrl !== undefined) {
    try {
      await checkWebhookUrl(request.webhookUrl);
    } catch (error) {
      issues.push({ path: ['body', 'webhook_url'], code: 'invalid_webhook_url', message: (error as Error).message });
    }
  }
  if (issues.length > 0) throw validationFailed(issues);

  const { caller, orgId } = request;
  const claimKey = request.idempotencyKey
    ? jobKeyRecordKey(orgId, caller.userId, createHash('sha256').update(request.idempotencyKey).digest('hex'))
    : undefined;
  const requestHash = canonicalHash({
    operation: operation.name,
    inputs,
    webhook_url: request.webhookUrl ?? null,
    max_age: request.maxAgeSeconds ?? null,
  });
  const [org, member, record] = await Promise.all([
    getOrganization(orgId),
    membershipOfCaller(caller, orgId),
    claimKey ? getJobKeyRecord(claimKey, now.getTime()) : Promise.resolve(null),
  ]);
  const refused = accessRefusal(org, member, { operation: operation.name, network: operation.network, cost: operation.cost });
  if (refused) throw refused;
  if (!org) throw notAMember();
  if (!isEnabled(operation, org.networks, (name) => socialProvider().serves(name))) throw operationNotOffered(operation.name);
  if (record) return replay(record, requestHash);

  const webhookSecret = request.webhookUrl === undefined ? null : newWebhookSecret();
  const job: JobRecord = {
    id: `job_${randomUUID().replaceAll('-', '')}`,
    organization_id: orgId,
    operation: operation.name,
    status: 'queued',
    total: inputs.length,
    queued: inputs.length,
    running: 0,
    succeeded: 0,
    failed: 0,
    cancelled: 0,
    charged: 0,
    created_at: now.toISOString(),
    created_by_id: caller.userId,
    completed_at: null,
    max_age_seconds: request.maxAgeSeconds ?? null,
    cancel_requested: false,
    refusal: null,
    webhook_url: request.webhookUrl ?? null,
    webhook_secret: webhookSecret,
    webhook_status: null,
    webhook_attempts: 0,
  };
  const { maxActiveJobs } = jobsConfig();
  try {
    await createJob(job, maxActiveJobs, claimKey ? { key: claimKey, requestHash } : undefined, now.getTime());
  } catch (error) {
    if (error instanceof JobLimitFull) throw jobLimitReached(maxActiveJobs);
    if (error instanceof NoJobOrganization) throw notAMember();
    // A concurrent request with the same key created its job first: answer with that job.
    if (error instanceof JobKeyTaken) return replay({ jobId: error.jobId, requestHash: error.requestHash }, requestHash);
    throw error;
  }
  try {
    await putJobItems(job.id, inputs);
    const run = { operation: job.operation, createdById: job.created_by_id, maxAgeSeconds: job.max_age_seconds };
    const messages: Outgoing[] = inputs.map((input, index) => ({
      message: { kind: 'item', jobId: job.id, orgId, index, run: { ...run, input } },
      groupId: orgId,
    }));
    await jobQueue().send(messages);
  } catch (error) {
    // The job cannot run: end it now (its place under the limit given back) rather than leave it queued.
    logError('job items or messages not written; cancelling the job', error, { job: job.id });
    await cancelJob(job, new Date()).catch((cancelError: unknown) => logError('cancelling the unqueued job failed', cancelError));
    throw internalError('the job could not be queued and was cancelled; nothing was charged, retry with backoff');
  }
  return { job: { ...jobView(job), ...(webhookSecret ? { webhook_secret: webhookSecret } : {}) }, replayed: false };
}

/** The same key with the same request: the job it created, as first answered (its secret included). */
async function replay(
  record: { jobId: string; requestHash: string },
  requestHash: string,
): Promise<{ job: CreatedJob; replayed: boolean }> {
  if (record.requestHash !== requestHash) throw idempotencyKeyReused();
  const job = await getJob(record.jobId);
  if (!job) throw notFound();
  return { job: { ...jobView(job), ...(job.webhook_secret ? { webhook_secret: job.webhook_secret } : {}) }, replayed: true };
}

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

/** A job's items by index, `status` keeping one status; paged by `cursor`. Members of its organization. */
export async function listSocialJobItems(
  caller: Caller,
  jobId: string,
  query: { limit: number; status?: JobItemStatus | undefined; cursor?: string | undefined },
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
    items: page.items.map((item) => itemView(item, job)),
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
  if (!['queued', 'running'].includes(job.status) || job.cancel_requested) return jobView(job);
  const outcome = await cancelJob(job, now);
  if (outcome === 'ended' && job.webhook_url) await sendWebhookMessage(job, 1, 0);
  // Items finished since the read (or it ended otherwise): read what is stored.
  if (outcome === 'inactive' || job.running > 0) return jobView((await getJob(jobId)) ?? job);
  // What the cancel wrote, from the job as read (its items not started moved to cancelled).
  const moved = { ...job, cancelled: job.cancelled + job.queued, queued: 0, cancel_requested: true };
  const after: JobRecord =
    outcome === 'ended'
      ? { ...moved, status: 'cancelled', completed_at: now.toISOString(), ...(job.webhook_url ? { webhook_status: 'pending' } : {}) }
      : moved;
  return jobView(after);
}

/** Queues the ended job's webhook delivery (attempt `attempt`, after `delayMs`). */
export const sendWebhookMessage = (job: JobRecord, attempt: number, delayMs: number): Promise<void> =>
  jobQueue().send([
    {
      message: { kind: 'webhook', jobId: job.id, orgId: job.organization_id, attempt },
      groupId: job.organization_id,
      ...(delayMs > 0 ? { delaySeconds: delayMs / 1000 } : {}),
    },
  ]);
