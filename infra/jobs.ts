/**
 * Bulk jobs deployed (docs/jobs.md): the SQS queue a job's items travel on, its dead-letter queue,
 * the worker function its event source mapping invokes (functions/job-worker.ts), and the
 * recovery of stalled jobs that EventBridge invokes every minute (functions/recover-jobs.ts), with
 * their alarms. Least privilege: the functions that queue items (the job routes marked `sendsJobs`
 * and the recovery) may send; only the worker receives and deletes. An ended job's webhook goes to
 * the webhooks queue (infra/webhooks.ts), never here: a delivery never holds a worker.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import { ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULTS, METRICS_NAMESPACE, SERVICE_NAME } from '../lib/config.ts';
import { type Alarms, PERIOD } from './alarms.ts';
import { bundledFunction, functionRole } from './function.ts';
import { workQueue } from './queues.ts';
import { grantVendorKeys, type VendorKey } from './vendor-keys.ts';

export const JOB_WORKER_ENTRY = 'functions/job-worker.ts';
/** The recovery of stalled jobs' module (bundled like the others; the bundle tests and report build it too). */
export const RECOVER_JOBS_ENTRY = 'functions/recover-jobs.ts';

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
 * UpdateItem and GetItem again); Query for a hot organization's credit lanes (a reclaim before a
 * refusal, its balance after a run: lib/billing/lanes.ts). No Scan.
 */
export const JOB_WORKER_TABLE_ACTIONS = [
  'dynamodb:UpdateItem',
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DeleteItem',
  'dynamodb:Query',
] as const;

/** How often the recovery of stalled jobs runs: a stalled job is found within the threshold (2 min) and this. */
export const JOB_RECOVERY_INTERVAL = Duration.seconds(DEFAULTS.jobRecoveryIntervalSeconds);
/** Room for a long recovery (it takes on no job 10 s before this); less than the hold a recovery takes on a job (the threshold, at least 60 s). */
export const JOB_RECOVERY_TIMEOUT = Duration.seconds(50);

/**
 * What a recovery does to the table: Query the active jobs' partition and a stalled job's items;
 * GetItem the jobs past the threshold; UpdateItem to take one, mark it sent or cancel it (the job
 * and the organization's counter); DeleteItem its active marker in the cancel's transaction. No
 * index, no Scan, no PutItem.
 */
export const JOB_RECOVERY_TABLE_ACTIONS = ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'] as const;

/** The recovery's environment: the table and the telemetry settings; no JWT, no provider. */
const RECOVERY_ENVIRONMENT = ['TABLE_NAME', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_LOG_LEVEL'];

export interface JobsProps {
  table: Table;
  /** The run path's configuration (table, provider, telemetry): the worker runs items as a run does. */
  environment: Record<string, string>;
  /** Every data vendor's key, read as a run reads them. */
  vendors: readonly VendorKey[];
  retention: RetentionDays;
  tracer: boolean;
}

export class Jobs extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: NodejsFunction;
  /** The recovery of stalled jobs (scheduled). */
  readonly recovery: NodejsFunction;

  constructor(scope: Construct, id: string, props: JobsProps) {
    super(scope, id);
    const stack = scope as Stack;
    // A standard queue: messages carry MessageGroupId = the organization, which SQS fair queues
    // use to keep one tenant's backlog from delaying another's messages.
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = workQueue(this, {
      visibilityTimeout: JOB_VISIBILITY_TIMEOUT,
      maxReceiveCount: JOB_MAX_RECEIVE_COUNT,
    }));

    const { role, logGroup } = functionRole(stack, 'JobWorker', props.retention, props.table);
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [...JOB_WORKER_TABLE_ACTIONS], resources: [props.table.tableArn] }));
    const environment = { ...props.environment };
    grantVendorKeys(props.vendors, role, environment);
    this.worker = bundledFunction(stack, 'JobWorker', {
      description: `Runs the items of bulk jobs from the jobs queue (${JOB_WORKER_ENTRY})`,
      entry: JOB_WORKER_ENTRY,
      timeout: JOB_WORKER_TIMEOUT,
      role,
      logGroup,
      environment,
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

    // A function of its own rather than a step of the charge sweeper: the sweeper's role stays
    // what a refund needs (no SQS, no Query of the table), and this one gets only what a recovery
    // needs. In the stack's scope, so that its ids read like the other functions' (RecoverJobs, RecoverJobsRole).
    const recovery = functionRole(stack, 'RecoverJobs', props.retention, props.table);
    recovery.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...JOB_RECOVERY_TABLE_ACTIONS], resources: [props.table.tableArn] }),
    );
    this.grantSend(recovery.role);
    this.recovery = bundledFunction(stack, 'RecoverJobs', {
      description: `Sends again the messages of jobs whose creation was cut short, or cancels them (${RECOVER_JOBS_ENTRY})`,
      entry: RECOVER_JOBS_ENTRY,
      timeout: JOB_RECOVERY_TIMEOUT,
      role: recovery.role,
      logGroup: recovery.logGroup,
      environment: {
        ...Object.fromEntries(RECOVERY_ENVIRONMENT.map((name) => [name, props.environment[name] ?? ''])),
        JOBS_QUEUE_URL: this.queue.queueUrl,
      },
      tracer: props.tracer,
      // The next scheduled run is the retry: a failed recovery is not run again on top of it.
      retryAttempts: 0,
    });
    new Rule(this, 'RecoverySchedule', {
      description: 'Runs the recovery of stalled jobs',
      schedule: Schedule.rate(JOB_RECOVERY_INTERVAL),
      targets: [new LambdaFunction(this.recovery)],
    });
  }

  /** Lets `role` queue messages (SendMessageBatch is authorized as sqs:SendMessage), and nothing else on the queue. */
  grantSend(role: IRole): void {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /**
   * A message in the dead-letter queue (an item that failed 5 deliveries: its job does not end on
   * its own), and a message waiting too long (the workers are not keeping up, or the
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
    alarms.add('JobsStalled', {
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'StalledJobs',
        dimensionsMap: { service: SERVICE_NAME },
        period: PERIOD,
        statistic: 'Sum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      description:
        "The recovery found a job whose creation was cut short before all its messages were sent (its function killed or timed out), and sent them again or cancelled it: look at the creating function's errors (docs/jobs.md).",
    });
    alarms.add('JobRecoveryNotRunning', {
      metric: this.recovery.metricInvocations({ period: Duration.minutes(10), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      // No invocations at all is exactly what this alarm is for.
      treatMissingData: TreatMissingData.BREACHING,
      description: 'The recovery of stalled jobs was not invoked in 10 minutes: a job whose creation was cut short stays queued.',
    });
  }
}
