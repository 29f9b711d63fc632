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
import { type Args, type CommandGroup, command, type Target, UsageError } from './command.ts';

const JOBS_QUEUE = {
  'queue-url': { type: 'string', value: 'URL', description: "the stack's jobs queue (its output JobsQueueUrl; not for the local stack)" },
} as const;
const WEBHOOKS_QUEUE = {
  'webhooks-queue-url': {
    type: 'string',
    value: 'URL',
    description:
      "the stack's webhooks queue, for the webhooks of the jobs it cancels (its output WebhooksQueueUrl; not for the local stack)",
  },
} as const;

const SQS_URL = /^https:\/\/sqs\.[a-z0-9-]+\.amazonaws\.com\/\d+\/[\w-]+$/;

interface Queues {
  jobs?: string;
  webhooks?: string;
}

function queueUrls(args: Args, names: readonly ('queue-url' | 'webhooks-queue-url')[]): Queues {
  const urls: Queues = {};
  for (const name of names) {
    const url = args.optional(name);
    if (url === undefined) continue;
    if (!SQS_URL.test(url)) throw new UsageError(`--${name} must be an SQS queue URL`);
    urls[name === 'queue-url' ? 'jobs' : 'webhooks'] = url;
  }
  return urls;
}

/** Whether the table is the local stack's own (no --table, or the one its dev.json names). */
const isLocalStack = (target: Target) =>
  target.dev !== null &&
  target.dev.tableName === process.env.TABLE_NAME &&
  target.dev.dynamodbEndpoint === process.env.DYNAMODB_ENDPOINT &&
  target.dev.baseUrl !== undefined;

/**
 * Points this process's queues where the table's stack has them: the local stack's (its server),
 * or the deployed ones given; refuses a deployed table without them (this process has no queue
 * of its own: what it sent would die with it).
 */
async function useQueuesOf(target: Target, given: Queues, needed: readonly (keyof Queues)[]): Promise<void> {
  const baseUrl = target.dev?.baseUrl;
  if (isLocalStack(target) && baseUrl) {
    if (given.jobs || given.webhooks) throw new UsageError('the local stack has its own queues: no --queue-url with it');
    const { bridgeQueueUrl } = await import('../../lib/local/sqs-bridge.ts');
    process.env.JOBS_QUEUE_URL = bridgeQueueUrl(baseUrl, 'jobs');
    process.env.WEBHOOKS_QUEUE_URL = bridgeQueueUrl(baseUrl, 'webhooks');
    process.env.AWS_ENDPOINT_URL_SQS = baseUrl;
    return;
  }
  const missing = needed.filter((queue) => !given[queue]);
  if (missing.length > 0) {
    const options = missing.map((queue) => (queue === 'jobs' ? '--queue-url' : '--webhooks-queue-url')).join(' and ');
    const outputs = missing.map((queue) => (queue === 'jobs' ? 'JobsQueueUrl' : 'WebhooksQueueUrl')).join(' and ');
    throw new UsageError(
      `${options} ${missing.length > 1 ? 'are' : 'is'} required against a deployed table (the stack's ${outputs}; the local stack needs none)`,
    );
  }
  if (given.jobs) process.env.JOBS_QUEUE_URL = given.jobs;
  if (given.webhooks) process.env.WEBHOOKS_QUEUE_URL = given.webhooks;
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
