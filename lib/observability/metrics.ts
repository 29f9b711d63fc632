import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, serviceName } from '../config.ts';

/**
 * CloudWatch metrics in Embedded Metric Format: written to the function's log as JSON and
 * turned into metrics by CloudWatch, with no API call on the request path.
 * Namespace POWERTOOLS_METRICS_NAMESPACE (the stack sets `WorkspaceService`), dimension
 * `service` on every metric. Off (nothing written) outside Lambda unless
 * POWERTOOLS_METRICS_DISABLED=false says otherwise: local runs and tests stay quiet.
 * The catalogue of metrics is docs/observability.md.
 */
if (process.env.POWERTOOLS_METRICS_DISABLED === undefined && !process.env.AWS_LAMBDA_FUNCTION_NAME) {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
}

export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE,
  serviceName: serviceName(),
});

/**
 * `Requests` (Count) with dimensions `route` and `status`: one per request, recorded by the
 * middleware chain. Stored on the per-request instance, published when the request ends.
 */
export function recordRequest(route: string, status: number): void {
  metrics.addDimension('route', route);
  metrics.addDimension('status', String(status));
  metrics.addMetric('Requests', MetricUnit.Count, 1);
}

type Unit = Parameters<Metrics['addMetric']>[1];

/**
 * Business metrics carry only the `service` dimension (one time series each, whatever the
 * route): each is written at once as its own EMF record, so the request's route/status
 * dimensions never split them.
 */
function single(name: string, unit: Unit, value: number): void {
  metrics.singleMetric().addMetric(name, unit, value);
}

/** `CreditsCharged` (Count): credits taken from an organization by a social operation run. */
export const recordCreditsCharged = (credits: number): void => single('CreditsCharged', MetricUnit.Count, credits);

/** `CreditsRefunded` (Count): credits given back after a failed upstream call. */
export const recordCreditsRefunded = (credits: number): void => single('CreditsRefunded', MetricUnit.Count, credits);

/** `UpstreamLatency` (Milliseconds): one provider call, successful or not. */
export const recordUpstreamLatency = (milliseconds: number): void =>
  single('UpstreamLatency', MetricUnit.Milliseconds, Math.max(0, Math.round(milliseconds)));

/** `UpstreamFailures` (Count): a provider call that failed or returned output breaking its schema. */
export const recordUpstreamFailure = (): void => single('UpstreamFailures', MetricUnit.Count, 1);

/**
 * `RefundFailures` (Count): a refund that could not be written (the `REFUND FAILED` log line):
 * credits the organization is owed until the refund is replayed. Alarmed.
 */
export const recordRefundFailure = (): void => single('RefundFailures', MetricUnit.Count, 1);

/** `Unauthorized` (Count) with dimension `reason` (lib/auth/refusals.ts): 401s by why the token was refused. */
export function recordUnauthorized(reason: string): void {
  const metric = metrics.singleMetric();
  metric.addDimension('reason', reason);
  metric.addMetric('Unauthorized', MetricUnit.Count, 1);
}

/**
 * One sweep of the charge sweeper: `SweptRefunds` (Count), runs it refunded (each a charge that
 * would have been lost), and `PendingRunOverdueSeconds` (Seconds), how long past its due time
 * the oldest run it could not refund is (0 when it left none). Both alarm (infra/sweeper.ts).
 */
export function recordSweep(refunded: number, overdueSeconds: number): void {
  const record = metrics.singleMetric();
  record.addMetric('SweptRefunds', MetricUnit.Count, refunded);
  record.addMetric('PendingRunOverdueSeconds', MetricUnit.Seconds, overdueSeconds);
}
