/**
 * The charge sweeper deployed (docs/charges.md): a function that EventBridge invokes every
 * minute to refund the charges of runs that can no longer finish (lib/billing/sweeper.ts), with
 * its own role (exactly what a sweep does to the table), its own log group, and its alarms.
 */
import { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DEFAULTS, SERVICE_NAME } from '../lib/config.ts';
import { SWEEP_INDEX } from '../lib/db/table.ts';
import { type Alarms, PERIOD } from './alarms.ts';
import { scheduledFunction } from './scheduled-function.ts';

/** The sweeper function's module (bundled like the routes'; the bundle tests and report build it too). */
export const SWEEPER_ENTRY = 'functions/sweep-charges.ts';

/** How often the sweeper runs; a run is refunded at most this long after it became due. */
export const SWEEP_INTERVAL = Duration.seconds(DEFAULTS.sweepIntervalSeconds);
/** Room for a long sweep (it stops starting refunds 10 s before this); runs may overlap safely. */
export const SWEEPER_TIMEOUT = Duration.seconds(50);

/**
 * What a sweep does to the table: Query the sweep index; per refund one transaction of
 * UpdateItem (balance, month counters), PutItem (the refund event) and DeleteItem (the pending
 * record, the Idempotency-Key claim). Then idle credit lanes (listed in the same index): GetItem
 * of each, its return (one transaction of UpdateItem), and a Query of the organization's lanes
 * before it turns cold. Nothing else: no Scan, no other index.
 */
export const SWEEPER_TABLE_ACTIONS = [
  'dynamodb:UpdateItem',
  'dynamodb:PutItem',
  'dynamodb:DeleteItem',
  'dynamodb:GetItem',
  'dynamodb:Query',
] as const;

export interface ChargeSweeperProps {
  table: Table;
  environment: Record<string, string>;
  retention: RetentionDays;
  tracer: boolean;
}

export class ChargeSweeper extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: ChargeSweeperProps) {
    super(scope, id);
    this.fn = scheduledFunction(this, {
      name: 'SweepCharges',
      entry: SWEEPER_ENTRY,
      does: 'Refunds the charges of runs that can no longer finish',
      runs: 'Runs the charge sweeper',
      rate: SWEEP_INTERVAL,
      timeout: SWEEPER_TIMEOUT,
      table: props.table,
      tableActions: SWEEPER_TABLE_ACTIONS,
      queriesIndex: SWEEP_INDEX,
      environment: props.environment,
      retention: props.retention,
      tracer: props.tracer,
    });
  }

  /**
   * Alarms beside the function's errors and throttles (which the stack's Alarms watch with the
   * other background functions'; a sweep whose refunds fail ends in an error): charges were
   * swept (each one a run that crashed, timed out or could not write its refund), a run stayed
   * pending past a sweep, and the schedule stopped invoking the sweeper.
   */
  addAlarms(alarms: Alarms): void {
    const sweepMetric = (metricName: string, statistic: string) =>
      new Metric({ namespace: 'WorkspaceService', metricName, dimensionsMap: { service: SERVICE_NAME }, period: PERIOD, statistic });
    alarms.add('ChargesSwept', {
      metric: sweepMetric('SweptRefunds', 'Sum'),
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'The sweeper refunded at least one charge in 5 minutes: a paid run crashed, timed out or failed to write its refund (docs/charges.md).',
    });
    alarms.add('PendingRunsOverdue', {
      metric: sweepMetric('PendingRunOverdueSeconds', 'Maximum'),
      threshold: SWEEP_INTERVAL.toSeconds(),
      evaluationPeriods: 1,
      description: `A charged run stayed pending more than ${SWEEP_INTERVAL.toSeconds()} s past its due time: the sweeper cannot refund it (see its errors).`,
    });
    alarms.add('SweeperNotRunning', {
      metric: this.fn.metricInvocations({ period: Duration.minutes(10), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      // No invocations at all is exactly what this alarm is for.
      treatMissingData: TreatMissingData.BREACHING,
      description: 'The charge sweeper was not invoked in 10 minutes: lost charges are not being refunded.',
    });
  }
}
