/**
 * The CloudWatch metrics the alarms and the dashboard read, built once: the service's own
 * (Embedded Metric Format, lib/observability/metrics.ts), the two counted from the access log,
 * and sums over the stack's functions and table.
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { FilterPattern, type LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../lib/config.ts';

export const PERIOD = Duration.minutes(5);

/** Statuses counted from the access log (API Gateway has no per-status metric for an HTTP API). */
const ACCESS_LOG_STATUSES = { Unauthorized: '401', RateLimited: '429' } as const;

export interface ServiceMetricsProps {
  api: HttpApi;
  table: Table;
  /** The table's global secondary indexes (their write throttles throttle the table's writes). */
  indexNames: readonly string[];
  functions: NodejsFunction[];
  /** The API's access log group: one JSON line per request, including those no function saw. */
  accessLogs: LogGroup;
}

export class ServiceMetrics extends Construct {
  constructor(
    scope: Construct,
    id: string,
    private readonly props: ServiceMetricsProps,
  ) {
    super(scope, id);
    // One metric per status from the access log: 401s answered by the functions, and 429s from
    // both the per-caller limit and the stage's own throttling (which no function sees).
    for (const [metricName, status] of Object.entries(ACCESS_LOG_STATUSES)) {
      props.accessLogs.addMetricFilter(`${metricName}Filter`, {
        filterPattern: FilterPattern.stringValue('$.status', '=', status),
        metricNamespace: METRICS_NAMESPACE,
        metricName,
        metricValue: '1',
      });
    }
  }

  /** A metric the functions write, with its only dimension, `service`. */
  service(metricName: string, statistic = 'Sum', label?: string): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service: SERVICE_NAME },
      period: PERIOD,
      statistic,
      ...(label ? { label } : {}),
    });
  }

  /** Responses with this status, counted from the access log (no dimension). */
  accessLog(metricName: keyof typeof ACCESS_LOG_STATUSES): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      period: PERIOD,
      statistic: 'Sum',
      label: `${ACCESS_LOG_STATUSES[metricName]}s`,
    });
  }

  /** API Gateway's count of requests (every request, whatever answered it). */
  requests(): Metric {
    return this.props.api.metricCount({ period: PERIOD, statistic: 'Sum', label: 'requests' });
  }

  /** `Requests` by route and status: one series per combination that occurred (dashboards only). */
  requestsByRouteAndStatus(): MathExpression {
    return new MathExpression({
      expression: `SEARCH('{${METRICS_NAMESPACE},route,service,status} MetricName="Requests" service="${SERVICE_NAME}"', 'Sum', ${PERIOD.toSeconds()})`,
      usingMetrics: {},
      period: PERIOD,
      label: '',
    });
  }

  /** The provider's failures as a percentage of its calls, once there are enough calls to mean something. */
  providerFailureRate(minimumCalls: number): MathExpression {
    return new MathExpression({
      expression: `IF(calls >= ${minimumCalls}, 100 * FILL(failures, 0) / calls, 0)`,
      usingMetrics: {
        // Every provider call records its latency: the sample count is the number of calls.
        calls: this.service('UpstreamLatency', 'SampleCount'),
        failures: this.service('UpstreamFailures'),
      },
      period: PERIOD,
      label: 'provider failures (% of calls)',
    });
  }

  /** Responses with this status as a percentage of all requests, once there are enough requests. */
  accessLogRate(metricName: keyof typeof ACCESS_LOG_STATUSES, minimumRequests: number): MathExpression {
    return new MathExpression({
      expression: `IF(requests >= ${minimumRequests}, 100 * FILL(answered, 0) / requests, 0)`,
      usingMetrics: { requests: this.requests(), answered: this.accessLog(metricName) },
      period: PERIOD,
      label: `${ACCESS_LOG_STATUSES[metricName]}s (% of requests)`,
    });
  }

  /** Lambda throttles summed over the stack's functions. */
  functionThrottles(): MathExpression {
    const usingMetrics = Object.fromEntries(
      this.props.functions.map((fn, i) => [`f${i}`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })]),
    );
    return sumOf(usingMetrics, 'Lambda throttles');
  }

  /**
   * DynamoDB throttle events on the table and its GSIs. On-demand tables still throttle (a hot
   * partition, a sudden multiple of the previous peak, a GSI that cannot keep up).
   */
  tableThrottles(): MathExpression {
    const throttleMetric = (metricName: string, indexName?: string) =>
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: this.props.table.tableName, ...(indexName ? { GlobalSecondaryIndexName: indexName } : {}) },
        period: PERIOD,
        statistic: 'Sum',
      });
    const usingMetrics: Record<string, Metric> = {
      read: throttleMetric('ReadThrottleEvents'),
      write: throttleMetric('WriteThrottleEvents'),
    };
    this.props.indexNames.forEach((indexName, i) => {
      usingMetrics[`gsiRead${i}`] = throttleMetric('ReadThrottleEvents', indexName);
      usingMetrics[`gsiWrite${i}`] = throttleMetric('WriteThrottleEvents', indexName);
    });
    return sumOf(usingMetrics, 'DynamoDB throttle events');
  }
}

/** The sum of the metrics, a missing data point counting as 0. */
export const sumOf = (usingMetrics: Record<string, Metric>, label: string): MathExpression =>
  new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((name) => `FILL(${name}, 0)`)
      .join(' + '),
    usingMetrics,
    period: PERIOD,
    label,
  });
