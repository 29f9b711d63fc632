/**
 * The payments reconciler deployed (docs/funding.md, "The reconciler"): a function EventBridge
 * invokes every minute to settle payments whose webhook never came (lib/billing/reconciler.ts),
 * with its own role (what a settle or a reversal does to the table, and Stripe's key alone: it
 * verifies no signature) and its own log group. Its errors and throttles are watched with the
 * other background functions'.
 */
import { Duration } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { ParamsAndSecretsLayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { SWEEP_INDEX } from '../lib/db/table.ts';
import { RUN_TIME_SECRETS } from './route-function.ts';
import { scheduledFunction } from './scheduled-function.ts';

export const RECONCILER_ENTRY = 'functions/reconcile-payments.ts';
/** Every minute: events are handled once 2 minutes old, so a lost webhook is settled within 4. */
export const RECONCILE_INTERVAL = Duration.minutes(1);
/** Room for a pass over a busy minute's events (each a few Stripe reads and one transaction). */
export const RECONCILER_TIMEOUT = Duration.seconds(55);
/**
 * What a pass does to the table: the checkpoint and a purchase (GetItem); a settle's marker and
 * billing event (PutItem); the balance, the purchase, its slot, a reversal, the checkpoint
 * (UpdateItem). The due auto-recharges' pass (lib/billing/recharge.ts `runDueRecharges`) after it:
 * the due index (Query), the auto-recharge item (GetItem, PutItem), a claimed purchase (PutItem).
 */
export const RECONCILER_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

export interface PaymentsReconcilerProps {
  table: Table;
  environment: Record<string, string>;
  retention: RetentionDays;
  tracer: boolean;
  stripeSecretKey: Secret;
  extension: ParamsAndSecretsLayerVersion;
}

export class PaymentsReconciler extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: PaymentsReconcilerProps) {
    super(scope, id);
    this.fn = scheduledFunction(this, {
      name: 'ReconcilePayments',
      entry: RECONCILER_ENTRY,
      does: 'Settles payments whose webhook never came, and runs the auto-recharges due',
      runs: 'Runs the payments reconciler and the due auto-recharges',
      rate: RECONCILE_INTERVAL,
      timeout: RECONCILER_TIMEOUT,
      table: props.table,
      tableActions: RECONCILER_TABLE_ACTIONS,
      queriesIndex: SWEEP_INDEX,
      environment: { ...props.environment, [RUN_TIME_SECRETS.stripeSecretKey]: props.stripeSecretKey.secretArn },
      retention: props.retention,
      tracer: props.tracer,
      grant: (role) => props.stripeSecretKey.grantRead(role),
      paramsAndSecrets: props.extension,
    });
  }
}
