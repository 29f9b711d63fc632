/**
 * The payments reconciler deployed (docs/funding.md, "The reconciler"): a function EventBridge
 * invokes every minute to settle payments whose webhook never came (lib/billing/reconciler.ts),
 * with its own role (what a settle or a reversal does to the table, and Stripe's key alone: it
 * verifies no signature) and its own log group. Its errors and throttles are watched with the
 * other background functions'.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ParamsAndSecretsLayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { bundledFunction, functionRole } from './function.ts';
import { RUN_TIME_SECRETS } from './route-function.ts';

export const RECONCILER_ENTRY = 'functions/reconcile-payments.ts';
/** Every minute: events are handled once 2 minutes old, so a lost webhook is settled within 4. */
export const RECONCILE_INTERVAL = Duration.minutes(1);
/** Room for a pass over a busy minute's events (each a few Stripe reads and one transaction). */
export const RECONCILER_TIMEOUT = Duration.seconds(55);
/**
 * What a pass does to the table: the checkpoint and a purchase (GetItem); a settle's marker and
 * billing event (PutItem); the balance, the purchase, its slot, a reversal, the checkpoint (UpdateItem).
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
    const stack = scope as Stack;
    const { role, logGroup } = functionRole(stack, 'ReconcilePayments', props.retention);
    role.addToPrincipalPolicy(new PolicyStatement({ actions: [...RECONCILER_TABLE_ACTIONS], resources: [props.table.tableArn] }));
    props.stripeSecretKey.grantRead(role);
    this.fn = bundledFunction(stack, 'ReconcilePayments', {
      description: `Settles payments whose webhook never came (${RECONCILER_ENTRY})`,
      entry: RECONCILER_ENTRY,
      timeout: RECONCILER_TIMEOUT,
      role,
      logGroup,
      environment: { ...props.environment, [RUN_TIME_SECRETS.stripeSecretKey]: props.stripeSecretKey.secretArn },
      tracer: props.tracer,
      paramsAndSecrets: props.extension,
      // The next minute's pass is the retry (its checkpoint did not move).
      retryAttempts: 0,
    });
    new Rule(this, 'Schedule', {
      description: 'Runs the payments reconciler',
      schedule: Schedule.rate(RECONCILE_INTERVAL),
      targets: [new LambdaFunction(this.fn)],
    });
  }
}
