/**
 * The stack's queues for the commands that send to them (`jobs requeue|recover`, `webhooks
 * resend`): against the local stack, its own queues through its server's SQS endpoint
 * (lib/local/sqs-bridge.ts); against a deployed table, the queue URLs given (the stack's
 * outputs). Never this process's own: what it sent would die with it.
 */
import { type Args, type Target, UsageError } from './command.ts';

export const JOBS_QUEUE = {
  'queue-url': { type: 'string', value: 'URL', description: "the stack's jobs queue (its output JobsQueueUrl; not for the local stack)" },
} as const;
/** The webhooks queue's option, `forWhat` saying what the command sends there. */
export const webhooksQueueOption = (forWhat: string) =>
  ({
    'webhooks-queue-url': {
      type: 'string',
      value: 'URL',
      description: `the stack's webhooks queue, ${forWhat} (its output WebhooksQueueUrl; not for the local stack)`,
    },
  }) as const;

const SQS_URL = /^https:\/\/sqs\.[a-z0-9-]+\.amazonaws\.com\/\d+\/[\w-]+$/;

export interface Queues {
  jobs?: string;
  webhooks?: string;
}

export function queueUrls(args: Args, names: readonly ('queue-url' | 'webhooks-queue-url')[]): Queues {
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
export const isLocalStack = (target: Target) =>
  target.dev !== null &&
  target.dev.tableName === process.env.TABLE_NAME &&
  target.dev.dynamodbEndpoint === process.env.DYNAMODB_ENDPOINT &&
  target.dev.baseUrl !== undefined;

/**
 * Points this process's queues where the table's stack has them: the local stack's (its server),
 * or the deployed ones given; refuses a deployed table without them (this process has no queue
 * of its own: what it sent would die with it).
 */
export async function useQueuesOf(target: Target, given: Queues, needed: readonly (keyof Queues)[]): Promise<void> {
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
