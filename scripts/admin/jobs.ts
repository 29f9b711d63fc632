/**
 * `admin jobs …` (docs/jobs.md): the jobs queued or running, and their messages sent again. The
 * local stack re-queues its active jobs itself at start (its queue lives in its memory); deployed,
 * `requeue` sends to the stack's SQS queue (`--queue-url`), for a job whose creation was cut short
 * between its transaction and its messages. Safe to repeat: a message whose item is claimed or
 * finished changes nothing.
 */
import { type CommandGroup, command, UsageError } from './command.ts';

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
        })),
    };
  },
});

const requeue = command({
  name: 'requeue',
  summary: 'send again the messages of every active job\'s unfinished items; prints {"jobs": N, "messages": M}',
  options: {
    'queue-url': { type: 'string', value: 'URL', description: "the stack's jobs queue (required: this process has no queue of its own)" },
  },
  parse: (args) => {
    const url = args.optional('queue-url');
    // The CLI's own embedded queue would die with it: the local stack re-queues at start instead.
    if (url === undefined)
      throw new UsageError('--queue-url is required (locally, restart npm start: it queues active jobs again at start)');
    if (!/^https:\/\/sqs\.[a-z0-9-]+\.amazonaws\.com\/\d+\/[\w-]+$/.test(url)) throw new UsageError('--queue-url must be an SQS queue URL');
    return { url };
  },
  run: async ({ url }) => {
    process.env.JOBS_QUEUE_URL = url;
    const { requeueActiveJobs } = await import('../../lib/jobs/recovery.ts');
    return requeueActiveJobs();
  },
});

export const group: CommandGroup = { name: 'jobs', commands: [active, requeue] };
