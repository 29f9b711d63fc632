/**
 * Webhook deliveries deployed (docs/jobs.md, "Webhooks"): a queue of their own, its dead-letter
 * queue, and the function its event source mapping invokes (functions/deliver-webhooks.ts), apart
 * from the jobs queue and its worker so that a slow receiver never holds a worker that runs items.
 * The functions that end a job (the worker, the recovery, the cancel route) and the delivery
 * function itself (its retries) may send; only the delivery function receives and deletes.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../lib/config.ts';
import { type Alarms, PERIOD } from './alarms.ts';
import { bundledFunction, functionRole } from './function.ts';
import { workQueue } from './queues.ts';

export const DELIVER_WEBHOOKS_ENTRY = 'functions/deliver-webhooks.ts';

/**
 * The delivery function's timeout: its batch's attempts run at once, each ending by the smaller of
 * JOBS_WEBHOOK_TIMEOUT_MS (10 s) and the time left less 5 s for its writes (lib/webhooks/delivery.ts).
 */
export const DELIVER_WEBHOOKS_TIMEOUT = Duration.seconds(30);
/** Six times the function's timeout (AWS's advice): an invocation, its attempts included, is over long before a message comes back. */
export const WEBHOOKS_VISIBILITY_TIMEOUT = Duration.seconds(6 * 30);
/** Receives before a message goes to the dead-letter queue: an attempt's failure is not one (it queues the next), so 5 is the table or the queue failing. */
export const WEBHOOKS_MAX_RECEIVE_COUNT = 5;
export const WEBHOOKS_BATCH_SIZE = 10;
/**
 * Delivery invocations at once: up to 200 attempts in flight, each held at most one attempt
 * deadline, apart from the job worker's 10 (docs/scaling.md, "Webhooks on paper").
 */
export const WEBHOOKS_MAX_CONCURRENCY = 20;
/** A delivery message older than this: past every retry's delay (8 minutes at most), so the function is not keeping up. */
export const WEBHOOKS_OLDEST_MESSAGE_ALARM_SECONDS = 15 * 60;

/** What a delivery does to the table: read the event's subject (a job), record the attempt. Nothing else. */
export const DELIVER_WEBHOOKS_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

/** Its environment: the table and the telemetry settings; no JWT, no provider. */
const DELIVERY_ENVIRONMENT = ['TABLE_NAME', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_LOG_LEVEL'];

export interface WebhooksProps {
  table: Table;
  environment: Record<string, string>;
  retention: RetentionDays;
  tracer: boolean;
}

export class Webhooks extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly delivery: NodejsFunction;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const stack = scope as Stack;
    // MessageGroupId = the organization: SQS fair queues hand out the quiet tenants' deliveries
    // first while another's slow receivers hold many in flight.
    ({ queue: this.queue, deadLetterQueue: this.deadLetterQueue } = workQueue(this, {
      visibilityTimeout: WEBHOOKS_VISIBILITY_TIMEOUT,
      maxReceiveCount: WEBHOOKS_MAX_RECEIVE_COUNT,
    }));

    // In the stack's scope, so that its ids read like the other functions' (DeliverWebhooks, DeliverWebhooksRole).
    const { role, logGroup } = functionRole(stack, 'DeliverWebhooks', props.retention, props.table);
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [...DELIVER_WEBHOOKS_TABLE_ACTIONS], resources: [props.table.tableArn] }));
    this.grantSend(role);
    this.delivery = bundledFunction(stack, 'DeliverWebhooks', {
      description: `Delivers webhooks from the webhooks queue (${DELIVER_WEBHOOKS_ENTRY})`,
      entry: DELIVER_WEBHOOKS_ENTRY,
      timeout: DELIVER_WEBHOOKS_TIMEOUT,
      role,
      logGroup,
      environment: {
        ...Object.fromEntries(DELIVERY_ENVIRONMENT.map((name) => [name, props.environment[name] ?? ''])),
        WEBHOOKS_QUEUE_URL: this.queue.queueUrl,
      },
      tracer: props.tracer,
    });
    // Grants the function's role receive, delete and the queue's attributes: the one consumer.
    this.delivery.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: WEBHOOKS_BATCH_SIZE,
        reportBatchItemFailures: true,
        maxConcurrency: WEBHOOKS_MAX_CONCURRENCY,
      }),
    );
  }

  /** Lets `role` queue deliveries (SendMessageBatch is authorized as sqs:SendMessage), and nothing else on the queue. */
  grantSend(role: IRole): void {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /** A function that queues deliveries (a job's end): the right to send, and the queue's URL. */
  addSender(fn: IFunction & { addEnvironment(key: string, value: string): unknown }): void {
    if (fn.role) this.grantSend(fn.role);
    fn.addEnvironment('WEBHOOKS_QUEUE_URL', this.queue.queueUrl);
  }

  /**
   * A delivery message in the dead-letter queue (its outcome could not be recorded 5 times), one
   * waiting too long, and a delivery given up on after its last attempt (an owner or a job's
   * caller not told).
   */
  addAlarms(alarms: Alarms): void {
    alarms.add('WebhooksDeadLetters', {
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'A webhook delivery message failed 5 receives and sits in the dead-letter queue: its delivery stays pending until it is redriven (docs/operations.md).',
    });
    alarms.add('WebhooksOldestMessageAge', {
      metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: WEBHOOKS_OLDEST_MESSAGE_ALARM_SECONDS,
      evaluationPeriods: 2,
      description: `A webhook delivery message waited more than ${WEBHOOKS_OLDEST_MESSAGE_ALARM_SECONDS / 60} minutes twice in a row: the delivery function is not keeping up, failing, or not running.`,
    });
    // Written by the delivery function (lib/webhooks/delivery.ts) when it records a delivery `failed`.
    alarms.add('WebhookDeliveriesFailed', {
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'WebhookDeliveriesFailed',
        dimensionsMap: { service: SERVICE_NAME },
        period: PERIOD,
        statistic: 'Sum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'A webhook delivery (a job webhook or an alert to an owner endpoint) failed its last attempt: its receiver was not told. See docs/operations.md; resend with admin webhooks resend once the receiver answers.',
    });
  }
}
