/**
 * `admin jobs …` (docs/jobs.md): the jobs queued or running, and their messages sent again.
 * `recover` runs the scheduled recovery of stalled jobs once (the jobs whose creation was cut short
 * before all their messages were sent: their pending items sent again, or the job cancelled when
 * its items were never written, which queues its webhook); `requeue` sends the messages of every
 * unfinished item of every active job, an operator's last resort. Against a deployed table both
 * send to the stack's SQS queues (`--queue-url`, and for `recover` `--webhooks-queue-url`: the
 * stack's outputs); against the local stack, to its queues, through its server's SQS endpoint
 * (lib/local/sqs-bridge.ts). Safe to repeat: a message whose item is claimed or finished changes
 * nothing.
 */
import { type CommandGroup, command } from './command.ts';
import { JOBS_QUEUE, queueUrls, useQueuesOf, webhooksQueueOption } from './queues.ts';

const WEBHOOKS_QUEUE = webhooksQueueOption('for the webhooks of the jobs it cancels');

const active = command({
  name: 'active',
  summary: 'jobs queued or running, with their counts',
  options: {},
  parse: () => ({}),
  run: async () => {
    const { getJob, listActiveJobs } = await import('../../lib/db/jobs.ts');
    const jobs = await Promise.all((await listActiveJobs()).map(({ jobId }) => getJob(jobId)));
    return {
      jobs: jobs
        .filter((job) => job !== null)
        .map((job) => ({
          id: job.id,
          organization_id: job.organization_id,
          operation: job.operation,
          status: job.status,
          total: job.total,
          queued: job.queued,
          running: job.running,
          succeeded: job.succeeded,
          failed: job.failed,
          cancelled: job.cancelled,
          charged: job.charged,
          // A capped job: its cap, and what its items' charges hold against it (in flight included).
          max_credits: job.max_credits,
          budget_spent: job.budget_spent,
          cancel_requested: job.cancel_requested,
          created_at: job.created_at,
          // `sending` past the threshold: stalled, for `jobs recover`; null: created before the field existed.
          messages: job.messages,
        })),
    };
  },
});

const requeue = command({
  name: 'requeue',
  summary: 'send again the messages of every active job\'s unfinished items; prints {"jobs": N, "messages": M}',
  options: JOBS_QUEUE,
  parse: (args) => queueUrls(args, ['queue-url']),
  run: async (queues, target) => {
    await useQueuesOf(target, queues, ['jobs']);
    const { requeueActiveJobs } = await import('../../lib/jobs/recovery.ts');
    return requeueActiveJobs();
  },
});

const recover = command({
  name: 'recover',
  summary:
    'what the schedule runs: jobs whose messages were never all sent, past the threshold, queued again or (items never written) cancelled; prints {"jobs": N, "messages": M, "cancelled": C}',
  options: { ...JOBS_QUEUE, ...WEBHOOKS_QUEUE },
  parse: (args) => queueUrls(args, ['queue-url', 'webhooks-queue-url']),
  run: async (queues, target) => {
    await useQueuesOf(target, queues, ['jobs', 'webhooks']);
    const { recoverStalledJobs } = await import('../../lib/jobs/recovery.ts');
    return recoverStalledJobs();
  },
});

export const group: CommandGroup = { name: 'jobs', commands: [active, requeue, recover] };
