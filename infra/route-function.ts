/**
 * The function of one route of the route table: its own role and log group, exactly the grants
 * its route declares (table actions, indexes, secrets, queues, the signing key), and the
 * environment its handler reads. Built in whichever stack holds the route (infra/route-stack.ts);
 * what it references of the parent stack (the table, the secrets, the queues) CloudFormation
 * passes in as parameters.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Key } from 'aws-cdk-lib/aws-kms';
import type { ParamsAndSecretsLayerVersion } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { FUNCTION_TIMEOUT_SECONDS, type Route, type RouteSecret, routeKey, tableActionsOf } from '../lib/routes.ts';
import { bundledFunction, functionRole } from './function.ts';
import type { ServiceUserPool } from './identity.ts';
import type { Jobs } from './jobs.ts';
import { grantVendorKeys, type VendorKey } from './vendor-keys.ts';
import type { Webhooks } from './webhooks.ts';

/**
 * The secrets a function reads at run time through the Parameters and Secrets extension, and the
 * variable that carries each one's ARN: the value itself never enters the environment. The cursor
 * key is the one secret resolved at deploy time instead (routeFunction says why).
 */
export const RUN_TIME_SECRETS: Record<Exclude<RouteSecret, 'cursorSigningKey' | 'providerKeys'>, string> = {
  oauthSealingKey: 'OAUTH_SEALING_KEY_SECRET_ARN',
  mcpConsentKey: 'MCP_CONSENT_KEY_SECRET_ARN',
  stripeSecretKey: 'STRIPE_SECRET_KEY_SECRET_ARN',
  stripeWebhookSecret: 'STRIPE_WEBHOOK_SECRET_SECRET_ARN',
};

/** What every route's function may be given, all of it owned by the parent stack. */
export interface RouteFunctionDeps {
  table: Table;
  environment: Record<string, string>;
  retention: RetentionDays;
  secrets: Record<Exclude<RouteSecret, 'providerKeys'>, Secret>;
  /** Every data vendor's key: what `providerKeys` grants. */
  vendors: readonly VendorKey[];
  apiKeySigningKey: Key;
  jobs: Jobs;
  webhooks: Webhooks;
  tracer: boolean;
  /** The Parameters and Secrets extension's layer, for the functions that read a secret at run time. */
  extension: ParamsAndSecretsLayerVersion;
  identity: ServiceUserPool | undefined;
  /** The stack parameter `InvitationFromAddress`: what the functions that send email send from, and all they may. */
  invitationFromAddress: string;
}

export function routeFunction(scope: Construct, route: Route, deps: RouteFunctionDeps): NodejsFunction {
  const { role, logGroup } = functionRole(scope, route.name, deps.retention, deps.table);
  const tableActions = tableActionsOf(route);
  if (tableActions.length > 0) {
    role.addToPrincipalPolicy(new PolicyStatement({ actions: tableActions, resources: [deps.table.tableArn] }));
  }
  const indexActions = tableActions.filter((action) => action === 'dynamodb:Query');
  if (route.indexes?.length && indexActions.length > 0) {
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: indexActions, resources: route.indexes.map((index) => `${deps.table.tableArn}/index/${index}`) }),
    );
  }
  const environment = { ...deps.environment };
  if (route.signsApiKeys) {
    deps.apiKeySigningKey.grant(role, 'kms:Sign', 'kms:GetPublicKey');
    environment.API_KEY_KMS_KEY_ID = deps.apiKeySigningKey.keyArn;
  }
  if (route.sendsJobs) {
    deps.jobs.grantSend(role);
    environment.JOBS_QUEUE_URL = deps.jobs.queue.queueUrl;
  }
  if (route.hostedUi && deps.identity) {
    environment.CONSOLE_HOSTED_UI_URL = deps.identity.domain.baseUrl();
    environment.CONSOLE_CLIENT_ID = deps.identity.client.userPoolClientId;
  }
  if (route.sendsEmail) {
    // SES authorizes SendEmail on the sending identity (an address or its domain): any identity
    // of this account and region, but only from the stack's one address.
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [Stack.of(scope).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
        conditions: { StringEquals: { 'ses:FromAddress': deps.invitationFromAddress } },
      }),
    );
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
      reason:
        "SES authorizes SendEmail on whichever identity verifies the sender (its address or its domain); the condition ses:FromAddress limits the grant to the stack's one InvitationFromAddress (none when it is empty).",
    });
    environment.INVITATION_FROM_ADDRESS = deps.invitationFromAddress;
  }
  if (route.sendsWebhooks) {
    deps.webhooks.grantSend(role);
    environment.WEBHOOKS_QUEUE_URL = deps.webhooks.queue.queueUrl;
  }
  let paramsAndSecrets: ParamsAndSecretsLayerVersion | undefined;
  for (const name of route.secrets ?? []) {
    if (name === 'providerKeys') {
      grantVendorKeys(deps.vendors, role, environment);
      paramsAndSecrets = deps.extension;
      continue;
    }
    const secret = deps.secrets[name];
    if (name === 'cursorSigningKey') {
      // A CloudFormation dynamic reference, resolved at deploy and never a value in the template:
      // acceptable for this key alone, which only positions paging cursors (infra/stack.ts), and
      // it spares the paging functions the extension and a call per cold start.
      environment.CURSOR_SIGNING_KEY = secret.secretValue.unsafeUnwrap();
    } else {
      // Read at run time through the extension (a layer: CDK maps each region to AWS's published
      // ARN of its arm64 build), which uses the function's role: read on this one secret.
      secret.grantRead(role);
      environment[RUN_TIME_SECRETS[name]] = secret.secretArn;
      paramsAndSecrets = deps.extension;
    }
  }

  return bundledFunction(scope, route.name, {
    description: `${routeKey(route)} (${route.entry})`,
    entry: route.entry,
    // API Gateway gives up at 30 s; a social run may wait PROVIDER_TIMEOUT_MS (at most
    // PROVIDER_TIMEOUT_MAX_MS) and still have time to write its refund.
    timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
    role,
    logGroup,
    environment,
    tracer: deps.tracer,
    ...(route.assets?.length ? { assets: route.assets } : {}),
    ...(paramsAndSecrets ? { paramsAndSecrets } : {}),
  });
}
