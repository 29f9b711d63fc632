import { Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, MathExpression, type Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { PERIOD, type ServiceMetrics, sumOf } from './metrics.ts';

export { PERIOD };

/** CloudWatch's hard limit on the metrics one alarm on metric math may read. */
export const METRICS_PER_ALARM = 10;

/** Functions whose errors and throttles are watched together: a domain's routes (its nested stack), or the background functions. */
export interface FunctionGroup {
  /** The start of its alarms' ids: `<id>Errors`, `<id>Throttles`, then `<id>Errors2`… past METRICS_PER_ALARM functions. */
  id: string;
  /** What on-call reads in the alarms' descriptions and the dashboard's graph, e.g. "Billing routes". */
  title: string;
  functions: readonly NodejsFunction[];
}

/** The dashboard's graph of a group's functions, one line each, which its alarms' descriptions point to. */
export const groupGraphTitle = (group: FunctionGroup): string => `Errors and throttles: ${group.title}`;

/** A group's functions cut into alarms of at most METRICS_PER_ALARM, in order, each with its alarm id's suffix ('', '2', '3'…). */
export function alarmChunks<T>(items: readonly T[]): { suffix: string; items: T[] }[] {
  const chunks: { suffix: string; items: T[] }[] = [];
  for (let start = 0; start < items.length; start += METRICS_PER_ALARM) {
    const index = start / METRICS_PER_ALARM;
    chunks.push({ suffix: index === 0 ? '' : String(index + 1), items: items.slice(start, start + METRICS_PER_ALARM) });
  }
  return chunks;
}

export interface AlarmsProps {
  api: HttpApi;
  /** Every function of the stack, each in one group. */
  functionGroups: readonly FunctionGroup[];
  metrics: ServiceMetrics;
}

/** Where a rate starts to page, and the traffic below which a rate means nothing (per 5 minutes). */
export const THRESHOLDS = {
  minimumRequests: 50,
  unauthorizedPercent: 25,
  rateLimitedPercent: 10,
  providerMinimumCalls: 10,
  providerFailurePercent: 20,
} as const;

/**
 * What pages on-call (thresholds and the reasoning in docs/observability.md). Every alarm
 * notifies the topic when it fires and when it clears; missing data (no traffic) is fine.
 */
export class Alarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const { metrics } = props;
    this.topic = new Topic(this, 'Topic', { displayName: 'Workspace Service alarms', enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry no customer data (alarm name, metric, threshold); CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer key adds cost and a key policy for no gain.',
    });

    // 5xx rate of the API, as a percentage, once there is enough traffic to mean something.
    const requests = metrics.requests();
    const errors = props.api.metricServerError({ period: PERIOD, statistic: 'Sum' });
    this.add('Api5xxRate', {
      metric: new MathExpression({
        expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
        usingMetrics: { requests, errors },
        period: PERIOD,
        label: '5xx rate (%)',
      }),
      threshold: 2,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: 'More than 2% of API requests answered 5xx in 2 of the last 3 five-minute periods (at least 20 requests each).',
    });

    for (const group of props.functionGroups) this.addFunctionGroup(group);

    // The SDK retries, so a few throttles are invisible to callers.
    this.add('DynamoDbThrottles', {
      metric: metrics.tableThrottles(),
      threshold: 5,
      evaluationPeriods: 1,
      description: 'DynamoDB throttled at least 5 requests in 5 minutes (table or GSI).',
    });

    // What costs money. A refund that could not be written is credits a customer is owed: one is
    // enough to page (docs/operations.md says how to settle it).
    this.add('RefundFailures', {
      metric: metrics.service('RefundFailures'),
      threshold: 1,
      evaluationPeriods: 1,
      description: 'A refund could not be written (REFUND FAILED in the function log): an organization is owed credits.',
    });
    this.add('ProviderFailureRate', {
      metric: metrics.providerFailureRate(THRESHOLDS.providerMinimumCalls),
      threshold: THRESHOLDS.providerFailurePercent,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `At least ${THRESHOLDS.providerFailurePercent}% of provider calls failed (each refunded) in 2 of the last 3 five-minute periods (at least ${THRESHOLDS.providerMinimumCalls} calls each).`,
    });

    // Spikes of refusals: 401s (a broken identity provider or JWKS, expired tokens everywhere,
    // someone trying tokens) and 429s (a runaway client, or the stage's own throttle).
    this.add('UnauthorizedSpike', {
      metric: metrics.accessLogRate('Unauthorized', THRESHOLDS.minimumRequests),
      threshold: THRESHOLDS.unauthorizedPercent,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `At least ${THRESHOLDS.unauthorizedPercent}% of requests answered 401 in 2 of the last 3 five-minute periods (at least ${THRESHOLDS.minimumRequests} requests each).`,
    });
    this.add('RateLimitedSpike', {
      metric: metrics.accessLogRate('RateLimited', THRESHOLDS.minimumRequests),
      threshold: THRESHOLDS.rateLimitedPercent,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `At least ${THRESHOLDS.rateLimitedPercent}% of requests answered 429 in 2 of the last 3 five-minute periods (at least ${THRESHOLDS.minimumRequests} requests each).`,
    });
  }

  /**
   * The errors and the throttles of a group's functions, summed with metric math: one alarm each
   * per METRICS_PER_ALARM functions rather than two per function, which were 98 of the stack's
   * resources (docs/observability.md). The threshold stays 1, so the sum fires exactly when one
   * function alone would have; the description names the functions, the dashboard tells which.
   */
  private addFunctionGroup(group: FunctionGroup): void {
    const sum = (functions: NodejsFunction[], metric: (fn: NodejsFunction) => Metric, label: string) =>
      sumOf(Object.fromEntries(functions.map((fn, i) => [`f${i}`, metric(fn)])), label);
    for (const { suffix, items: functions } of alarmChunks(group.functions)) {
      const names = `${functions.map((fn) => fn.node.id).join(', ')} (${group.title})`;
      const where = `the dashboard's "${groupGraphTitle(group)}" graph shows which.`;
      // A function error is a crash the error mapper could not turn into an answer (timeout,
      // out of memory, failed init): API Gateway then answers its own 500. Never expected.
      this.add(`${group.id}Errors${suffix}`, {
        metric: sum(functions, (fn) => fn.metricErrors({ period: PERIOD, statistic: 'Sum' }), `${group.title}: errors`),
        threshold: 1,
        evaluationPeriods: 1,
        description: `${names}: a function failed (crash, timeout or init error) at least once in 5 minutes; ${where}`,
      });
      this.add(`${group.id}Throttles${suffix}`, {
        metric: sum(functions, (fn) => fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }), `${group.title}: throttles`),
        threshold: 1,
        evaluationPeriods: 1,
        description: `${names}: Lambda throttled invocations (account or reserved concurrency exhausted) in the last 5 minutes; ${where}`,
      });
    }
  }

  /** An alarm on the topic; by default it fires at or above the threshold, and missing data is fine. */
  add(
    id: string,
    options: {
      metric: Metric | MathExpression;
      threshold: number;
      evaluationPeriods: number;
      datapointsToAlarm?: number;
      description: string;
      comparisonOperator?: ComparisonOperator;
      treatMissingData?: TreatMissingData;
    },
  ): void {
    const alarm = new Alarm(this, id, {
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods,
      ...(options.datapointsToAlarm ? { datapointsToAlarm: options.datapointsToAlarm } : {}),
      comparisonOperator: options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}
