/**
 * `admin jobs …` (docs/jobs.md): the jobs queued or running, and their messages sent again.
 * `recover` runs the scheduled recovery of stalled jobs once (the jobs whose creation was cut short
 * before all their messages were sent: their pending items sent again, or the job cancelled when
 * its items were never written); `requeue` sends the messages of every unfinished item of every
 * active job, an operator's last resort. Both send to the stack's SQS queue (`--queue-url`): the
 * local stack does both itself (its queue lives in its memory). Safe to repeat: a message whose
 * item is claimed or finished changes nothing.
 */
import { type Args, type CommandGroup, command, UsageError } from './command.ts';

const QUEUE_URL = {
  'queue-url': { type: 'string', value: 'URL', description: "the stack's jobs queue (required: this process has no queue of its own)" },
} as const;

/** The deployed queue to send to: this process's own embedded queue would die with it. */
function queueUrl(args: Args, local: string): string {
  const url = args.optional('queue-url');
  if (url === undefined) throw new UsageError(`--queue-url is required (locally, ${local})`);
  if (!/^https:\/\/sqs\.[a-z0-9-]+\.amazonaws\.com\/\d+\/[\w-]+$/.test(url)) throw new UsageError('--queue-url must be an SQS queue URL');
  return url;
}

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
  options: QUEUE_URL,
  parse: (args) => ({ url: queueUrl(args, 'restart npm start: it queues active jobs again at start') }),
  run: async ({ url }) => {
    process.env.JOBS_QUEUE_URL = url;
    const { requeueActiveJobs } = await import('../../lib/jobs/recovery.ts');
    return requeueActiveJobs();
  },
});

const recover = command({
  name: 'recover',
  summary:
    'what the schedule runs: jobs whose messages were never all sent, past the threshold, queued again or (items never written) cancelled; prints {"jobs": N, "messages": M, "cancelled": C}',
  options: QUEUE_URL,
  parse: (args) => ({ url: queueUrl(args, 'npm start runs it every minute') }),
  run: async ({ url }) => {
    process.env.JOBS_QUEUE_URL = url;
    const { recoverStalledJobs } = await import('../../lib/jobs/recovery.ts');
    return recoverStalledJobs();
  },
});

export const group: CommandGroup = { name: 'jobs', commands: [active, requeue, recover] };
