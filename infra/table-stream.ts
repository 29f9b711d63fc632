/**
 * The table's change stream deployed (docs/usage.md): DynamoDB Streams on the table feeding the
 * stream function (functions/table-stream.ts) through an event source mapping, which hands each
 * batch to the stream's consumers (usage today). The mapping filters the records no consumer
 * wants, batches, takes partial batch failures, bisects a failing batch, retries, and sends what
 * it gives up on to an on-failure queue; alarms on the iterator age (usage falling behind) and on
 * that queue (records not counted).
 */
import { Duration, type Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { type ParamsAndSecretsLayerVersion, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { FilterPattern } from '../lib/stream/filter.ts';
import type { Alarms } from './alarms.ts';
import { bundledFunction, functionRole } from './function.ts';
import { holdingQueue } from './queues.ts';
import { RUN_TIME_SECRETS } from './route-function.ts';

/** The stream function's module (bundled like the others; the bundle tests and report build it too). */
export const TABLE_STREAM_ENTRY = 'functions/table-stream.ts';

/** Records per invocation: one organization's events of a batch share one transaction, so larger batches write fewer counters. */
export const TABLE_STREAM_BATCH_SIZE = 100;
/**
 * Retries of a failing record once the batch is bisected down to it, before its batch goes to the
 * on-failure queue. Storage errors are retried inside the function first (the SDK's retries, a
 * transaction's conflicts), so what fails here five times is a poison record, not a blip.
 */
export const TABLE_STREAM_RETRY_ATTEMPTS = 5;
/** The function's timeout: a batch of 100 events is a few transactions. */
export const TABLE_STREAM_TIMEOUT = Duration.seconds(30);
/** Usage is promised within 10 s of a charge: a record older than this at the function pages. */
export const ITERATOR_AGE_ALARM_MS = 60_000;

/**
 * What the function does to the table: usage's transaction of PutItem (the markers, each only if
 * absent) and UpdateItem (the counters); the alerts consumer's reads of the settings (a batch's
 * at once: BatchGetItem), of a scope's limits and a stored event (GetItem) and of the endpoints
 * (Query), and its conditional writes of events and deliveries (UpdateItem); the auto-recharge
 * consumer's reads (GetItem) and its claims, failures and settles (PutItem, UpdateItem in
 * transactions). The stream is read by the mapping with the stream-read permissions CDK grants.
 */
export const TABLE_STREAM_TABLE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
] as const;

export interface TableStreamProps {
  table: Table;
  /** The records the consumers want (functions/table-stream.ts STREAM_CONSUMERS): the mapping's filter. */
  filters: readonly FilterPattern[];
  environment: Record<string, string>;
  retention: RetentionDays;
  tracer: boolean;
  /** Stripe's secret key, read at run time by the auto-recharge consumer (lib/billing/recharge.ts). */
  stripeSecretKey: Secret;
  extension: ParamsAndSecretsLayerVersion;
}

export class TableStream extends Construct {
  readonly fn: NodejsFunction;
  readonly onFailureQueue: Queue;

  constructor(scope: Construct, id: string, props: TableStreamProps) {
    super(scope, id);
    const stack = scope as Stack;
    // In the stack's scope, so that its ids read like the other functions' (TableStream, TableStreamRole).
    const { role, logGroup } = functionRole(stack, 'TableStreamFunction', props.retention, props.table);
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [...TABLE_STREAM_TABLE_ACTIONS], resources: [props.table.tableArn] }));
    props.stripeSecretKey.grantRead(role);
    this.fn = bundledFunction(stack, 'TableStreamFunction', {
      description: `Counts usage (and any other consumer) from the table's change stream (${TABLE_STREAM_ENTRY})`,
      entry: TABLE_STREAM_ENTRY,
      timeout: TABLE_STREAM_TIMEOUT,
      role,
      logGroup,
      environment: { ...props.environment, [RUN_TIME_SECRETS.stripeSecretKey]: props.stripeSecretKey.secretArn },
      tracer: props.tracer,
      paramsAndSecrets: props.extension,
    });
    // The mapping's on-failure destination receives a description of each batch it gave up on
    // (shard and sequence numbers), not the records: docs/operations.md says how to replay them
    // from the stream within its 24 hours.
    this.onFailureQueue = holdingQueue(this, 'OnFailureQueue');
    Validations.of(this.onFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "It is itself the dead-letter destination of the table stream's event source mapping (an on-failure destination is not a redrive policy, so cdk-nag cannot tell); nothing consumes it but an operator.",
    });
    this.fn.addEventSource(
      new DynamoEventSource(props.table, {
        // Nothing written before the function existed is lost: usage counts from the stream's oldest record.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: TABLE_STREAM_BATCH_SIZE,
        // No batching window: freshness (a charge within seconds in usage) over fewer invocations.
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: TABLE_STREAM_RETRY_ATTEMPTS,
        // One invocation per shard at a time: the records of an item (an organization's events) stay in order.
        parallelizationFactor: 1,
        onFailure: new SqsDlq(this.onFailureQueue),
        filters: props.filters.map((pattern) => ({ pattern: JSON.stringify(pattern) })),
      }),
    );
  }

  /** The stream falling behind (usage stale), and a batch given up on (events not counted). */
  addAlarms(alarms: Alarms): void {
    alarms.add('TableStreamIteratorAge', {
      metric: this.fn.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
      threshold: ITERATOR_AGE_ALARM_MS,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `The table stream's oldest record reached the stream function ${ITERATOR_AGE_ALARM_MS / 1000} s or more after it was written, in 2 of 3 minutes: usage is falling behind (the function failing, throttled or slow; docs/operations.md).`,
    });
    alarms.add('TableStreamFailures', {
      metric: this.onFailureQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      description:
        "The table stream's mapping gave up on a batch after its retries (a poison record): those events are not in usage until replayed (docs/operations.md).",
    });
  }
}
