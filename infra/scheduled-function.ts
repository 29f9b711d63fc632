/**
 * A function EventBridge invokes on a schedule (the charge sweeper, the grant expiry, the payments
 * reconciler): built like a route's (its own role and log group, in the stack's scope so that its
 * ids read like theirs), given exactly the table actions it declares, and never retried on top of
 * its next invocation, which is the retry.
 */
import type { Duration, Stack } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import type { ParamsAndSecretsLayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { bundledFunction, functionRole } from './function.ts';

export interface ScheduledFunctionProps {
  /** The function's construct id in the stack; its role and log group are named after it. */
  name: string;
  entry: string;
  /** What it does, for the function's description. */
  does: string;
  /** What the schedule runs, for the rule's description. */
  runs: string;
  rate: Duration;
  timeout: Duration;
  table: Table;
  tableActions: readonly string[];
  /** An index it queries (`dynamodb:Query` on that index alone). */
  queriesIndex?: string;
  environment: Record<string, string>;
  retention: RetentionDays;
  tracer: boolean;
  /** What else its role may do (a secret to read), granted before the function adds its own. */
  grant?: (role: Role) => void;
  paramsAndSecrets?: ParamsAndSecretsLayerVersion;
}

/** The function, in `owner`'s stack, and its schedule (`<owner>/Schedule`). */
export function scheduledFunction(owner: Construct, props: ScheduledFunctionProps): NodejsFunction {
  const stack = owner.node.scope as Stack;
  const { role, logGroup } = functionRole(stack, props.name, props.retention, props.table);
  role.addToPrincipalPolicy(new PolicyStatement({ actions: [...props.tableActions], resources: [props.table.tableArn] }));
  if (props.queriesIndex) {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${props.table.tableArn}/index/${props.queriesIndex}`] }),
    );
  }
  props.grant?.(role);
  const fn = bundledFunction(stack, props.name, {
    description: `${props.does} (${props.entry})`,
    entry: props.entry,
    timeout: props.timeout,
    role,
    logGroup,
    environment: props.environment,
    tracer: props.tracer,
    retryAttempts: 0,
    ...(props.paramsAndSecrets ? { paramsAndSecrets: props.paramsAndSecrets } : {}),
  });
  new Rule(owner, 'Schedule', { description: props.runs, schedule: Schedule.rate(props.rate), targets: [new LambdaFunction(fn)] });
  return fn;
}
