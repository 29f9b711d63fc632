/**
 * Bulk jobs as tasks (MCP 2026-07-28's tasks extension; docs/mcp.md, "Jobs as tasks"): a task's
 * id is its job's id, and every task method reads or cancels the job through the same domain
 * functions as the REST routes and the job tools (lib/jobs/jobs.ts). A job never asks for input
 * and its failed items are results: a task is `working`, `completed` or `cancelled`.
 */
import type { ServiceError } from '../errors.ts';
import { errorBody } from '../http/error-mapper.ts';
import { cancelSocialJob, getSocialJob } from '../jobs/jobs.ts';
import type { JobView } from '../jobs/view.ts';
import { ModernErrorCode } from './era.ts';
import { callJobTool } from './job-tools.ts';
import { ErrorCode } from './jsonrpc.ts';
import { asServiceError, JsonRpcError } from './protocol-errors.ts';
import type { McpScope } from './scope.ts';

/** How often a client should ask again while a task works (a job's items take seconds each). */
export const POLL_INTERVAL_MS = 5000;

const JOB_ID = /^job_[0-9a-f]{32}$/;

/** A job as a task: its state, and what it has done so far. */
export function taskOf(job: JobView) {
  const done = job.succeeded + job.failed + job.cancelled;
  return {
    taskId: job.id,
    status: job.status === 'completed' ? 'completed' : job.status === 'cancelled' ? 'cancelled' : 'working',
    statusMessage: `${done} of ${job.total} items done`,
    createdAt: job.created_at,
    lastUpdatedAt: job.completed_at ?? job.created_at,
    ttlMs: null,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

const unknownTask = (taskId: unknown) =>
  new JsonRpcError(ErrorCode.InvalidParams, `Unknown task: ${String(taskId).slice(0, 100)}`, { taskId });

/** The task's job, when it is one of this workspace's jobs the caller may read; -32602 otherwise (unknown, malformed, foreign alike). */
async function jobOfTask(scope: McpScope, taskId: unknown): Promise<JobView> {
  if (typeof taskId !== 'string' || !JOB_ID.test(taskId)) throw unknownTask(taskId);
  try {
    const job = await getSocialJob(scope.caller, taskId);
    if (job.organization_id !== scope.orgId) throw unknownTask(taskId);
    return job;
  } catch (error) {
    if (error instanceof JsonRpcError) throw error;
    const failure = asServiceError(error, scope);
    if (failure.status === 404 || failure.status === 403) throw unknownTask(taskId);
    throw refusal(failure, scope);
  }
}

/** A refusal of the service (a role, an outage) as our -32010, its error body as `data`. */
const refusal = (failure: ServiceError, scope: McpScope) =>
  new JsonRpcError(ModernErrorCode.ServiceRefusal, `${failure.code}: ${failure.message}`, errorBody(failure, scope.requestId));

/** tasks/get: the job as a task; once completed, with what get_job answers (the job and its first page of items). */
export async function getTask(scope: McpScope, taskId: unknown, maxChars: number): Promise<Record<string, unknown>> {
  const job = await jobOfTask(scope, taskId);
  const task = taskOf(job);
  if (task.status !== 'completed') return task;
  return { ...task, result: await callJobTool(scope, 'get_job', { job_id: job.id }, maxChars) };
}

/** tasks/cancel: as POST /social/jobs/{id}/cancel (editors and owners). */
export async function cancelTask(scope: McpScope, taskId: unknown): Promise<void> {
  const job = await jobOfTask(scope, taskId);
  try {
    await cancelSocialJob(scope.caller, job.id);
  } catch (error) {
    throw refusal(asServiceError(error, scope), scope);
  }
}

/** tasks/update: a job never asks for input, so nothing changes; the task must still be one the caller may read. */
export async function updateTask(scope: McpScope, taskId: unknown): Promise<void> {
  await jobOfTask(scope, taskId);
}
