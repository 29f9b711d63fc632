/**
 * Bulk jobs deployed (docs/jobs.md): the SQS queue a job's items travel on, its dead-letter queue,
 * and the worker function its event source mapping invokes (functions/job-worker.ts), with their
 * alarms. Least privilege: the functions that queue work (the job routes marked `sendsJobs`, and
 * the worker itself, which queues each ended job's webhook and its retries) may send; only the
 * worker receives and deletes.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Alarms } from './alarms.ts';
import { bundledFunction, functionRole } from './function.ts';

export const JOB_WORKER_ENTRY = 'functions/job-worker.ts';

/** The worker's timeout: a batch of 10 items at the provider at once (each at most PROVIDER_TIMEOUT_MAX_MS) and their writes. */
export const JOB_WORKER_TIMEOUT = Duration.seconds(60);
/** AWS's advice for an SQS event source: six times the function's timeout, so a batch retried by Lambda is not delivered again meanwhile. */
export const JOB_VISIBILITY_TIMEOUT = Duration.seconds(6 * 60);
/** Deliveries before a message goes to the dead-letter queue: every step of the worker is idempotent, so 5 is retries, not harm. */
export const JOB_MAX_RECEIVE_COUNT = 5;
/** Messages per invocation: each is an item at the provider, run in parallel by the worker. */
export const JOB_BATCH_SIZE = 10;
/**
 * Worker invocations at once (the event source's maxConcurrency): at most 100 items at the provider
 * at once, whatever the backlog, to stay inside the provider's rate limit and the account's Lambda
 * concurrency (docs/scaling.md).
 */
export const JOB_WORKER_MAX_CONCURRENCY = 10;
/** A message older than this means the workers are not keeping up, or not running. */
export const JOB_OLDEST_MESSAGE_ALARM_SECONDS = 15 * 60;

/**
 * What the worker does to the table: the run path's actions (charge, takeover, settle, refund:
 * UpdateItem, GetItem, PutItem, ConditionCheckItem, DeleteItem) and the job's (claim, result, end:
 * UpdateItem and GetItem again). No Query, no Scan.
 */
export const JOB_WORKER_TABLE_ACTIONS = [
  'dynamodb:UpdateItem',
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DeleteItem',
] as const;

export interface JobsProps {
  table: Table;
  /** The run path's configuration (table, provider, telemetry): the worker runs items as a run does. */
  environment: Record<string, string>;
  providerApiKey: Secret;
  retention: RetentionDays;
  tracer: boolean;
}

export class Jobs extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: NodejsFunction;

  constructor(scope: Construct, id: string, props: JobsProps) {
    super(scope, id);
    const stack = scope as Stack;
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    // A standard queue: messages carry MessageGroupId = the organization, which SQS fair queues
    // use to keep one tenant's backlog from delaying another's messages.
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: JOB_VISIBILITY_TIMEOUT,
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: JOB_MAX_RECEIVE_COUNT },
    });

    const { role, logGroup } = functionRole(stack, 'JobWorker', props.retention);
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [...JOB_WORKER_TABLE_ACTIONS], resources: [props.table.tableArn] }));
    props.providerApiKey.grantRead(role);
    this.grantSend(role);
    this.worker = bundledFunction(stack, 'JobWorker', {
      description: `Runs the items of bulk jobs from the jobs queue (${JOB_WORKER_ENTRY})`,
      entry: JOB_WORKER_ENTRY,
      timeout: JOB_WORKER_TIMEOUT,
      role,
      logGroup,
      environment: {
        ...props.environment,
        SCRAPECREATORS_API_KEY_SECRET_ARN: props.providerApiKey.secretArn,
        JOBS_QUEUE_URL: this.queue.queueUrl,
      },
      tracer: props.tracer,
    });
    // Grants the worker's role receive, delete and the queue's attributes: the one consumer.
    this.worker.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: JOB_BATCH_SIZE,
        reportBatchItemFailures: true,
        maxConcurrency: JOB_WORKER_MAX_CONCURRENCY,
      }),
    );
  }

  /** Lets `role` queue messages (SendMessageBatch is authorized as sqs:SendMessage), and nothing else on the queue. */
  grantSend(role: IRole): void {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /**
   * A message in the dead-letter queue (an item or webhook that failed 5 deliveries: its job does
   * not end on its own), and a message waiting too long (the workers are not keeping up, or the
   * event source is disabled).
   */
  addAlarms(alarms: Alarms): void {
    alarms.add('JobsDeadLetters', {
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'A job message failed 5 deliveries and sits in the dead-letter queue: its job cannot end until it is redriven (docs/operations.md).',
    });
    alarms.add('JobsOldestMessageAge', {
      metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: JOB_OLDEST_MESSAGE_ALARM_SECONDS,
      evaluationPeriods: 2,
      description: `A job message waited more than ${JOB_OLDEST_MESSAGE_ALARM_SECONDS / 60} minutes twice in a row: the worker is not keeping up, failing, or not running.`,
    });
  }
}
