/**
 * `npm start`'s stand-in for the deployed worker function (infra/jobs.ts): the same message
 * handler (lib/jobs/worker.ts) on this process's embedded jobs queue, JOBS_WORKER_CONCURRENCY
 * messages at a time, each as an invocation of its own (its log and metric context). Returns the
 * function that stops it.
 */
import { jobsConfig } from '../config.ts';
import type { JobMessage } from '../jobs/queue.ts';
import { handleJobMessage } from '../jobs/worker.ts';
import { embeddedQueue } from './embedded-queue.ts';

export function startJobWorker(
  /** How each message runs (npm start: as an invocation of its own). */
  run: <T>(work: () => Promise<T>) => Promise<T> = (work) => work(),
): () => Promise<void> {
  const settings = jobsConfig();
  return embeddedQueue<JobMessage>('jobs').consume((message) => run(() => handleJobMessage(message)), {
    concurrency: settings.workerConcurrency,
    visibilityTimeoutMs: settings.visibilityTimeoutSeconds * 1000,
  });
}
