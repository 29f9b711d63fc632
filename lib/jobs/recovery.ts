/**
 * Sends again the messages of every job queued or running, for its items not finished: what
 * `npm start` does at start, since its embedded queue lived in the memory of the process that
 * stopped. Safe whatever is still queued: every step of the worker is conditional or idempotent
 * (a duplicate message finds its item claimed or finished). Deployed, SQS keeps the messages;
 * this is also what an operator would run for a job whose creation was cut short between its
 * transaction and its messages.
 */
import { listActiveJobs, unfinishedItemIndexes } from '../db/jobs.ts';
import { jobQueue, type Outgoing } from './queue.ts';

export async function requeueActiveJobs(): Promise<{ jobs: number; messages: number }> {
  const active = await listActiveJobs();
  let messages = 0;
  for (const { jobId, orgId } of active) {
    const indexes = await unfinishedItemIndexes(jobId);
    const outgoing: Outgoing[] = indexes.map((index) => ({ message: { kind: 'item', jobId, orgId, index }, groupId: orgId }));
    if (outgoing.length > 0) await jobQueue().send(outgoing);
    messages += outgoing.length;
  }
  return { jobs: active.length, messages };
}
