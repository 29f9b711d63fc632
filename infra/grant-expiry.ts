/**
 * The grant expiry deployed (docs/funding.md, "Grants and expiry"): a function that EventBridge
 * invokes every minute and that runs a pass every 15 s of it (functions/expire-grants.ts), with its
 * own role (exactly what an expiry does to the table) and log group. Its errors and throttles are
 * watched with the other background functions'.
 */
import { Duration } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SWEEP_INDEX } from '../lib/db/table.ts';
import { scheduledFunction } from './scheduled-function.ts';

export const GRANT_EXPIRY_ENTRY = 'functions/expire-grants.ts';

/** Passes for 45 s of each minute's invocation (the last one starting by then), with room to finish. */
export const GRANT_EXPIRY_TIMEOUT = Duration.seconds(60);

/**
 * What an expiry does to the table: GetItem (the grant, the balance); UpdateItem (the grant's
 * warning; in one transaction the grant and the balance) and PutItem (the `credits.expired`
 * event); Query of the due index. No Scan, no DeleteItem.
 */
// Query: a hot organization's credit lanes, returned to its balance before an expiry (lib/billing/lanes.ts).
export const GRANT_EXPIRY_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:Query'] as const;

export interface GrantExpiryProps {
  table: Table;
  environment: Record<string, string>;
  retention: RetentionDays;
  tracer: boolean;
}

export class GrantExpiry extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: GrantExpiryProps) {
    super(scope, id);
    this.fn = scheduledFunction(this, {
      name: 'ExpireGrants',
      entry: GRANT_EXPIRY_ENTRY,
      does: 'Expires what credit grants have left, and warns of it',
      runs: 'Runs the grant expiry',
      rate: Duration.minutes(1),
      timeout: GRANT_EXPIRY_TIMEOUT,
      table: props.table,
      tableActions: GRANT_EXPIRY_TABLE_ACTIONS,
      queriesIndex: SWEEP_INDEX,
      environment: props.environment,
      retention: props.retention,
      tracer: props.tracer,
    });
  }
}
