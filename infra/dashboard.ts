import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  type Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type GraphWidgetProps,
  GraphWidgetView,
  type IMetric,
  LegendPosition,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { type FunctionGroup, groupGraphTitle } from './alarms.ts';
import { PERIOD, type ServiceMetrics } from './metrics.ts';

export interface ServiceDashboardProps {
  api: HttpApi;
  metrics: ServiceMetrics;
  alarms: readonly Alarm[];
  /** The groups the errors and throttles alarms watch: one graph each, one line per function. */
  functionGroups: readonly FunctionGroup[];
}

const WIDTH = 12;
const HEIGHT = 6;

/**
 * One CloudWatch dashboard for on-call: traffic by route and status, latency, the money
 * (credits charged, refunded, refunds owed), the provider, and everything that throttles;
 * every alarm's state on top; then each function's errors and throttles, by the groups the
 * alarms sum them in, so that a group's alarm leads to the function that fired it. What each
 * graph means is in docs/observability.md.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { api, metrics } = props;
    const graph = (title: string, left: IMetric[], extra: Partial<GraphWidgetProps> = {}) =>
      new GraphWidget({ title, left, width: WIDTH, height: HEIGHT, period: PERIOD, legendPosition: LegendPosition.BOTTOM, ...extra });

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(6) });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: '# Workspace Service\nAlarms and their runbook: docs/observability.md and docs/operations.md in the repository.',
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: 24, height: 4 }));
    this.dashboard.addWidgets(
      graph('Requests by route and status', [metrics.requestsByRouteAndStatus()], { stacked: true }),
      graph('API latency (ms)', [
        api.metricLatency({ period: PERIOD, statistic: 'p50', label: 'p50' }),
        api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'p99' }),
        api.metricIntegrationLatency({ period: PERIOD, statistic: 'p99', label: 'integration p99' }),
      ]),
    );
    this.dashboard.addWidgets(
      graph(
        'Credits charged and refunded',
        [metrics.service('CreditsCharged', 'Sum', 'charged'), metrics.service('CreditsRefunded', 'Sum', 'refunded')],
        {
          right: [metrics.service('RefundFailures', 'Sum', 'refunds failed (owed)')],
          view: GraphWidgetView.TIME_SERIES,
        },
      ),
      graph(
        'Provider latency (ms) and failures',
        [metrics.service('UpstreamLatency', 'p50', 'latency p50'), metrics.service('UpstreamLatency', 'p99', 'latency p99')],
        {
          right: [metrics.service('UpstreamLatency', 'SampleCount', 'calls'), metrics.service('UpstreamFailures', 'Sum', 'failures')],
        },
      ),
    );
    this.dashboard.addWidgets(
      graph('Throttles', [metrics.accessLog('RateLimited'), metrics.functionThrottles(), metrics.tableThrottles()]),
      graph('Refused and failed requests', [
        metrics.accessLog('Unauthorized'),
        api.metricClientError({ period: PERIOD, statistic: 'Sum', label: '4xx' }),
        api.metricServerError({ period: PERIOD, statistic: 'Sum', label: '5xx' }),
      ]),
    );
    const byFunction = props.functionGroups.map((group) =>
      graph(
        groupGraphTitle(group),
        group.functions.map((fn) => fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: `${fn.node.id} errors` })),
        { right: group.functions.map((fn) => fn.metricThrottles({ period: PERIOD, statistic: 'Sum', label: `${fn.node.id} throttles` })) },
      ),
    );
    for (let start = 0; start < byFunction.length; start += 2) this.dashboard.addWidgets(...byFunction.slice(start, start + 2));
  }
}
