import { METRICS_NAMESPACE, serviceName } from '../config.ts';

/**
 * CloudWatch metrics in Embedded Metric Format: each record is one JSON line on stdout, which
 * CloudWatch turns into metrics, with no API call on the request path. Namespace
 * POWERTOOLS_METRICS_NAMESPACE (the stack sets `WorkspaceService`), dimension `service` on
 * every metric. Off (nothing written) outside Lambda unless POWERTOOLS_METRICS_DISABLED=false
 * says otherwise: local runs and tests stay quiet. The catalogue of metrics is
 * docs/observability.md.
 *
 * Written here rather than with Powertools Metrics (whose environment variables and record
 * shape it keeps): every record this service writes is one metric written at once, which needs
 * none of its store, and Powertools Metrics cost every function bundle size and every business
 * metric a new Metrics instance, built even with metrics off (figures: docs/performance.md).
 */
export const MetricUnit = { Count: 'Count', Milliseconds: 'Milliseconds', Seconds: 'Seconds' } as const;
type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/** Powertools' reading of POWERTOOLS_METRICS_DISABLED; unset, metrics are on in Lambda only. */
const disabled = (): boolean => {
  const setting = process.env.POWERTOOLS_METRICS_DISABLED?.trim().toLowerCase();
  return setting ? ['1', 'y', 'yes', 't', 'true', 'on'].includes(setting) : !process.env.AWS_LAMBDA_FUNCTION_NAME;
};

/**
 * One EMF record: the metrics given, under the `service` dimension and the dimensions given (in
 * that order: `[["service", ...dimensions]]`), timestamped now. `process.stdout` directly, not
 * `console`: in Lambda the runtime wraps console output in its own JSON log format, and an EMF
 * record must be a line of its own.
 */
export function writeMetrics(metrics: Record<string, readonly [Unit, number]>, dimensions: Record<string, string> = {}): void {
  if (disabled()) return;
  const service = serviceName();
  const record = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE,
          Dimensions: [['service', ...Object.keys(dimensions)]],
          Metrics: Object.entries(metrics).map(([name, [unit]]) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    service,
    ...dimensions,
    ...Object.fromEntries(Object.entries(metrics).map(([name, [, value]]) => [name, value])),
  };
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

/**
 * `Requests` (Count) with dimensions `route` and `status`: one per request, written by the
 * middleware chain when the request ends.
 */
export const recordRequest = (route: string, status: number): void =>
  writeMetrics({ Requests: [MetricUnit.Count, 1] }, { route, status: String(status) });

/** `ColdStart` (Count) with dimension `function_name`: the first request of an instance. */
export const recordColdStart = (functionName: string): void =>
  writeMetrics({ ColdStart: [MetricUnit.Count, 1] }, functionName ? { function_name: functionName } : {});

/**
 * Business metrics carry only the `service` dimension (one time series each, whatever the
 * route): each is its own EMF record, so the request's route/status dimensions never split them.
 */
const single = (name: string, unit: Unit, value: number): void => writeMetrics({ [name]: [unit, value] });

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
export const recordUnauthorized = (reason: string): void => writeMetrics({ Unauthorized: [MetricUnit.Count, 1] }, { reason });

/**
 * One sweep of the charge sweeper: `SweptRefunds` (Count), runs it refunded (each a charge that
 * would have been lost), and `PendingRunOverdueSeconds` (Seconds), how long past its due time
 * the oldest run it could not refund is (0 when it left none). Both alarm (infra/sweeper.ts).
 */
export function recordSweep(refunded: number, overdueSeconds: number): void {
  single('SweptRefunds', MetricUnit.Count, refunded);
  single('PendingRunOverdueSeconds', MetricUnit.Seconds, overdueSeconds);
}

/**
 * One run of the recovery of stalled jobs (lib/jobs/recovery.ts): `StalledJobs` (Count), the jobs
 * it found whose creation was cut short before all their messages were sent, each sent again or
 * (its items never written) cancelled. Alarmed (infra/jobs.ts).
 */
export const recordStalledJobs = (count: number): void => single('StalledJobs', MetricUnit.Count, count);

/**
 * `WebhookDeliveriesFailed` (Count): a delivery given up on after its last attempt (a job's
 * webhook or an event to an owner's endpoint, lib/webhooks/delivery.ts): a receiver that was not
 * told. Alarmed (infra/webhooks.ts).
 */
export const recordWebhookDeliveryFailed = (): void => single('WebhookDeliveriesFailed', MetricUnit.Count, 1);
