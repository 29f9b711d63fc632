/**
 * Creating a job (docs/jobs.md): every input validated first, the organization's active-job limit
 * and the Idempotency-Key checked in the creation transaction, then its items and their messages.
 * Apart from reading and cancelling (lib/jobs/jobs.ts), which need neither the catalog nor the
 * providers: the functions that only read a job do not bundle them.
 */
import { createHash } from 'node:crypto';
import { membershipOfCaller } from '../auth/access.ts';
import { accessRefusal } from '../billing/charge-rules.ts';
import type { ChargeConsent } from '../billing/paid-run.ts';
import { jobsConfig } from '../config.ts';
import { canonicalHash } from '../db/idempotency.ts';
import { getJob, getJobKeyRecord, jobKeyRecordKey, putJobItems } from '../db/jobs.ts';
import { getOrganization, type Organization } from '../db/organizations.ts';
import {
  type Issue,
  idempotencyKeyReused,
  internalError,
  issuesOf,
  notAMember,
  notFound,
  operationNotOffered,
  validationFailed,
} from '../errors.ts';
import { logError } from '../log.ts';
import type { Caller } from '../model.ts';
import { descriptor } from '../social/catalog/index.ts';
import { type FieldsParam, readFields } from '../social/fields.ts';
import { findOperation, isEnabled } from '../social/operations.ts';
import { socialProvider } from '../social/providers/index.ts';
import { checkWebhookUrl } from '../webhooks/addresses.ts';
import { newWebhookSecret } from '../webhooks/signature.ts';
import { cancelJob, createJob, markJobMessagesSent, newJob } from './lifecycle.ts';
import { jobQueue, type Outgoing } from './queue.ts';
import { type JobView, jobView } from './view.ts';

export const MAX_JOB_INPUTS = 1000;

export interface NewJob {
  caller: Caller;
  orgId: string;
  operationName: string;
  inputs: readonly unknown[];
  webhookUrl?: string | undefined;
  idempotencyKey?: string | undefined;
  maxAgeSeconds?: number | undefined;
  /** Every item's output keeps only these paths (lib/social/fields.ts): stored on the job, applied by each item's run. */
  fields?: FieldsParam | undefined;
  /**
   * The most the job's items may be charged in all (`max_credits`, 0 to 1,000,000): where it was
   * given (the body or the `Max-Credits` header; an MCP argument or `_meta.max_credits`), each
   * value with the path a 400 names. Given twice, the two must agree.
   */
  maxCredits?: readonly MaxCreditsGiven[] | undefined;
  /**
   * Asked with the job's quote (its inputs × the operation's cost, or its `max_credits` if lower)
   * before it is created (MCP consent, lib/mcp/consent.ts): throws to refuse, or gives the consent
   * its creation spends.
   */
  consent?: ((cost: number, org: Organization) => Promise<ChargeConsent | undefined>) | undefined;
  now?: Date;
}

/** A `max_credits` as one place of the request gave it (already checked as a whole number 0 to 1,000,000). */
export interface MaxCreditsGiven {
  value: number | undefined;
  at: Issue['path'];
}

/**
 * The job's `max_credits` from every place that may give it: undefined when none did, the value
 * when those that did agree, the issue (naming the first) when they differ.
 */
export function jobMaxCredits(given: readonly MaxCreditsGiven[]): { value: number | undefined } | { issue: Issue } {
  const sent = given.filter((one): one is { value: number; at: Issue['path'] } => one.value !== undefined);
  const [first, ...others] = sent;
  const differing = others.find((other) => other.value !== first?.value);
  if (!first || !differing) return { value: first?.value };
  return {
    issue: {
      path: [...first.at],
      code: 'invalid_value',
      message: `is ${first.value} but ${differing.at.join('.')} is ${differing.value}: give the job's max_credits once, or the same value in both`,
    },
  };
}

/** The 202's job: with its webhook's secret, shown in this answer only (and its replays). */
export type CreatedJob = JobView & { webhook_secret?: string };

/**
 * Editors and owners (and editor API keys). Every input is validated against the operation's
 * schema before anything is read or written: one bad input is a 400 naming `inputs.<i>.<field>`.
 * Then, in one transaction: the job, the organization's active-job counter (409
 * `job_limit_reached` at the limit) and the key's record; then the items, their messages, and
 * one write saying the messages were all sent (`messages`: a creation cut short before it is
 * found and finished, or cancelled, by the recovery: lib/jobs/recovery.ts).
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
  const fields = request.fields === undefined ? undefined : readFields(request.fields, descriptor(operation).output_schema);
  if (fields && 'issues' in fields) issues.push(...fields.issues);
  const selection = fields && 'selection' in fields ? fields.selection : undefined;
  if (request.webhookUrl !== undefined) {
    try {
      await checkWebhookUrl(request.webhookUrl);
    } catch (error) {
      issues.push({ path: ['body', 'webhook_url'], code: 'invalid_webhook_url', message: (error as Error).message });
    }
  }
  const cap = jobMaxCredits(request.maxCredits ?? []);
  if ('issue' in cap) issues.push(cap.issue);
  if (issues.length > 0) throw validationFailed(issues);
  const maxCredits = 'value' in cap ? cap.value : undefined;

  const { caller, orgId } = request;
  const claimKey = request.idempotencyKey
    ? jobKeyRecordKey(orgId, caller.userId, createHash('sha256').update(request.idempotencyKey).digest('hex'))
    : undefined;
  const requestHash = canonicalHash({
    operation: operation.name,
    inputs,
    webhook_url: request.webhookUrl ?? null,
    max_age: request.maxAgeSeconds ?? null,
    // Only when given: a request without it hashes as before `fields` existed.
    ...(selection ? { fields: selection.canonical } : {}),
    // The cap is part of the job the key names: another cap with the same key is another request.
    ...(maxCredits === undefined ? {} : { max_credits: maxCredits }),
  });
  const [org, member, record] = await Promise.all([
    getOrganization(orgId),
    membershipOfCaller(caller, orgId),
    claimKey ? getJobKeyRecord(claimKey, now.getTime()) : Promise.resolve(null),
  ]);
  const refused = accessRefusal(org, member, { operation: operation.name, network: operation.network, cost: operation.cost });
  if (refused) throw refused;
  if (!org) throw notAMember();
  const provider = socialProvider();
  if (!isEnabled(operation, org.networks, (name) => provider.serves(name))) throw operationNotOffered(operation.name, provider.displayName);
  if (record) return replay(record, requestHash);

  const webhookSecret = request.webhookUrl === undefined ? null : newWebhookSecret();
  const job = newJob({
    orgId,
    operation: operation.name,
    total: inputs.length,
    createdById: caller.userId,
    now,
    maxAgeSeconds: request.maxAgeSeconds,
    outputFields: selection?.canonical ?? null,
    maxCredits: maxCredits ?? null,
    webhookUrl: request.webhookUrl,
    webhookSecret,
  });
  const quote = Math.min(inputs.length * operation.cost, maxCredits ?? Number.POSITIVE_INFINITY);
  const consent = request.consent ? await request.consent(quote, org) : undefined;
  const taken = await createJob(
    job,
    jobsConfig().maxActiveJobs,
    claimKey ? { key: claimKey, requestHash } : undefined,
    now.getTime(),
    consent,
  );
  // A concurrent request with the same key created its job first: answer with that job.
  if (taken) return replay(taken, requestHash);
  try {
    await putJobItems(job.id, inputs);
    const run = {
      operation: job.operation,
      createdById: job.created_by_id,
      maxAgeSeconds: job.max_age_seconds,
      fields: job.fields,
      maxCredits: job.max_credits,
    };
    const messages: Outgoing[] = inputs.map((input, index) => ({
      message: { kind: 'item', jobId: job.id, orgId, index, run: { ...run, input } },
      groupId: orgId,
    }));
    await jobQueue().send(messages);
  } catch (error) {
    // The job cannot run: end it now (its place under the limit given back) rather than leave it queued.
    logError('job items or messages not written; cancelling the job', error, { job: job.id });
    const cancelled = await cancelJob(job, new Date()).then(
      () => true,
      (cancelError: unknown) => {
        logError('cancelling the unqueued job failed', cancelError, { job: job.id });
        return false;
      },
    );
    if (cancelled) throw internalError('the job could not be queued and was cancelled; nothing was charged, retry with backoff');
    // Left `sending`: the recovery of stalled jobs runs it (its items written) or cancels it. Say so rather than claim it.
    throw internalError(
      `job ${job.id} could not be queued, and cancelling it failed too: it may still run within minutes; read it (GET /social/jobs/${job.id}) before retrying`,
    );
  }
  // Every message is on the queue: the job is not the recovery's (lib/jobs/recovery.ts). If this
  // write fails the job runs all the same; a recovery past the threshold sends its pending items'
  // messages once more (duplicates the worker ignores) and marks it.
  await markJobMessagesSent(job.id, new Date()).catch((error: unknown) =>
    logError('marking the job messages sent failed; the recovery will send its pending items again', error, { job: job.id }),
  );
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
