/**
 * The synthesized stack, as a specification: every route of the route table reaches its own
 * function, each function may do exactly what its route declares, the table keeps its data, the
 * alarms exist, every stack keeps room under CloudFormation's limits, and cdk-nag (AwsSolutions)
 * finds nothing left unacknowledged.
 * The parent and its nested stacks (a domain's routes each) are read as the one template
 * CloudFormation makes of them (template.ts, mergeNested), so a link from a route's function in a
 * nested stack to the parent's table is checked against the table itself.
 * Two synths for the whole file (each about 2 CPU-s): the stack as `cdk deploy` makes it by
 * default, and one with every option on at once (extra routes, the extension layer, the user
 * pool). Self sign-up, the one option that changes nothing but the pool, is checked on the pool alone.
 * Bundling is skipped here (the bundle tests and `npm run bundle:report` build the code).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { alarmChunks, METRICS_PER_ALARM } from '../../infra/alarms.ts';
import { ServiceUserPool } from '../../infra/identity.ts';
import { JOB_RECOVERY_TIMEOUT } from '../../infra/jobs.ts';
import { RUN_TIME_SECRETS } from '../../infra/route-function.ts';
import { routeStackId, routesByStack } from '../../infra/route-stack.ts';
import {
  FUNCTION_TIMEOUT_SECONDS,
  PROVIDER_TIMEOUT_MAX_MS,
  WorkspaceServiceStack,
  type WorkspaceServiceStackProps,
} from '../../infra/stack.ts';
import { DELIVER_WEBHOOKS_TIMEOUT, WEBHOOKS_VISIBILITY_TIMEOUT } from '../../infra/webhooks.ts';
import { DEFAULTS, MIN_JOB_STALLED_AFTER_SECONDS } from '../../lib/config.ts';
import { SWEEP_INDEX, table as tableDefinition } from '../../lib/db/table.ts';
import { defined } from '../../lib/defined.ts';
import { type Route, routeKey, routes, tableActionsOf } from '../../lib/routes.ts';
import {
  actionsOf,
  allStatements,
  functionOf,
  mergeNested,
  ofType,
  resource,
  type StackTemplate,
  type Statement,
  stackTemplates,
  statementsOf,
  wildcardDynamoActions,
} from './template.ts';

/**
 * One synth: the template is read from the cloud assembly, so it exists even when cdk-nag fails
 * the synth. Without CDK's own template validation (a WebAssembly linter, ~5 CPU-s a synth, the
 * unit tier's longest step): it only warns unless a feature flag this app does not set makes its
 * findings errors, and `cdk synth` (`npm run synth`) still runs it.
 */
function synth(routeTable: readonly Route[], options: Pick<WorkspaceServiceStackProps, 'userPool' | 'secretsExtensionArn'> = {}) {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const stack = new WorkspaceServiceStack(app, 'WorkspaceService', { routes: routeTable, ...options });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  // An in-memory app throws from synth with cdk-nag's report when a finding is not acknowledged.
  let nagReport: string | undefined;
  try {
    app.synth();
  } catch (error) {
    nagReport = (error as Error).message;
  }
  const stacks = stackTemplates(outdir, stack);
  rmSync(outdir, { recursive: true, force: true });
  return { ...mergeNested(stacks), stacks, nagReport };
}

/** What a route of the table says for the API description, for routes that exist only here. */
/** What CDK sets for the Parameters and Secrets extension on a function that has its layer. */
const EXTENSION_SETTINGS = [
  'PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED',
  'PARAMETERS_SECRETS_EXTENSION_CACHE_SIZE',
  'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT',
  'PARAMETERS_SECRETS_EXTENSION_LOG_LEVEL',
  'PARAMETERS_SECRETS_EXTENSION_MAX_CONNECTIONS',
  'SECRETS_MANAGER_TIMEOUT_MILLIS',
  'SECRETS_MANAGER_TTL',
  'SSM_PARAMETER_STORE_TIMEOUT_MILLIS',
  'SSM_PARAMETER_STORE_TTL',
];
const TEST_ONLY = { summary: 'test only', description: 'test only', tag: 'test', errors: [] } as const;
/** A route whose function reads a secret at run time, through the extension (the provider key, the OAuth sealing key). */
const readsAtRunTime = (route: Route) => (route.secrets ?? []).some((name) => name === 'providerKeys' || name in RUN_TIME_SECRETS);

const { template, stacks, stackOf, nagReport } = synth(routes);
const tableId = ofType(template, 'AWS::DynamoDB::Table')[0]![0];
const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
const sweeperId = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
  String(fn.Properties.Description).includes('(functions/sweep-charges.ts)'),
)![0];
const expiryId = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
  String(fn.Properties.Description).includes('(functions/expire-grants.ts)'),
)![0];
const workerId = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
  String(fn.Properties.Description).includes('(functions/job-worker.ts)'),
)![0];
const reconcilerId = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
  String(fn.Properties.Description).includes('(functions/reconcile-payments.ts)'),
)![0];
const recoveryId = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
  String(fn.Properties.Description).includes('(functions/recover-jobs.ts)'),
)![0];
const deliveryId = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
  String(fn.Properties.Description).includes('(functions/deliver-webhooks.ts)'),
)![0];
/** A queue by the construct it belongs to (`Jobs`, `Webhooks`) and its role (`Queue`, `DeadLetterQueue`). */
const queueOf = (owner: string, kind: 'Queue' | 'DeadLetterQueue') =>
  defined(
    ofType(template, 'AWS::SQS::Queue').find(([id]) => new RegExp(`^${owner}${kind}[0-9A-F]{8}$`).test(id)),
    `the ${owner} ${kind}`,
  )[0];
const webhooksQueueArn = { 'Fn::GetAtt': [queueOf('Webhooks', 'Queue'), 'Arn'] };
const streamFunctionId = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
  String(fn.Properties.Description).includes('(functions/table-stream.ts)'),
)![0];
/** The groups whose errors and throttles the alarms sum: each domain's routes (its nested stack), then the background functions. */
const functionGroups = [
  ...[...routesByStack(routes)].map(([id, domainRoutes]) => ({
    id,
    title: `${domainRoutes[0]!.tag} routes`,
    names: domainRoutes.map((route) => route.name),
    functionIds: domainRoutes.map((route) => functionOf(template, route)),
  })),
  {
    id: 'BackgroundFunctions',
    title: 'background functions',
    names: ['SweepCharges', 'ExpireGrants', 'ReconcilePayments', 'JobWorker', 'RecoverJobs', 'DeliverWebhooks', 'TableStreamFunction'],
    functionIds: [sweeperId, expiryId, reconcilerId, workerId, recoveryId, deliveryId, streamFunctionId],
  },
];
const onTheTable = (statement: Statement) => actionsOf(statement).some((action) => action.startsWith('dynamodb:'));
/** The audit log's guard every role carries (infra/function.ts denyAuditChanges): checked on its own below. */
const isAuditDeny = (statement: Statement) => statement.Effect === 'Deny';
const dynamoStatements = (functionId: string) =>
  statementsOf(template, functionId)
    .filter(onTheTable)
    .filter((s) => !isAuditDeny(s));
/** A function's grants beyond DynamoDB (its logs, X-Ray, a queue). */
const otherStatements = (functionId: string) => statementsOf(template, functionId).filter((statement) => !onTheTable(statement));
/** The alarms that read a function's metric (`Errors`, `Throttles`, `Invocations`…), alone or summed with others' by metric math. */
const alarmsReading = (t: Template, functionId: string, metricName: string) =>
  ofType(t, 'AWS::CloudWatch::Alarm')
    .map(([, alarm]) => alarm.Properties)
    .filter((alarm) =>
      [alarm, ...(alarm.Metrics ?? []).map((query: { MetricStat?: { Metric: unknown } }) => query.MetricStat?.Metric ?? {})].some(
        (metric) =>
          metric.MetricName === metricName &&
          JSON.stringify(metric.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: functionId } }]),
      ),
    );

describe('routes and functions', () => {
  it.each(
    routes.map((route) => [route.name, route] as const),
  )('%s: its API route invokes its own function, built from its entry', (_, route) => {
    const fn = resource(template, functionOf(template, route));

    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: { LogFormat: 'JSON' },
    });
    expect(fn.Properties.Description).toContain(`(${route.entry})`);
  });

  it("gives every function a timeout under API Gateway's 30 s that leaves a timed-out provider call time to refund", () => {
    const providerMax = template.toJSON().Parameters.ProviderTimeoutMs.MaxValue;

    expect(FUNCTION_TIMEOUT_SECONDS).toBeLessThan(30);
    expect(providerMax).toBe(PROVIDER_TIMEOUT_MAX_MS);
    expect(FUNCTION_TIMEOUT_SECONDS * 1000 - providerMax).toBeGreaterThanOrEqual(5000);
    for (const route of routes) {
      expect(resource(template, functionOf(template, route)).Properties).toMatchObject({
        Timeout: FUNCTION_TIMEOUT_SECONDS,
        MemorySize: 1024,
      });
    }
    for (const [, integration] of ofType(template, 'AWS::ApiGatewayV2::Integration')) {
      expect(integration.Properties.TimeoutInMillis ?? 30_000).toBeGreaterThan(FUNCTION_TIMEOUT_SECONDS * 1000);
    }
  });

  it("keeps Lambda's platform.report lines, and a function log level at which the EMF metrics survive", () => {
    for (const [, fn] of ofType(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties.LoggingConfig).toMatchObject({
        LogFormat: 'JSON',
        SystemLogLevel: 'INFO',
        ApplicationLogLevel: { Ref: 'LogLevel' },
      });
    }
    // EMF records carry no level: Lambda files them as INFO and drops them under WARN or ERROR.
    template.hasParameter('LogLevel', { Type: 'String', Default: 'INFO', AllowedValues: ['DEBUG', 'INFO'] });
  });

  it('runs every function where Lambda puts its credentials in the environment, the only place its bundle reads them', () => {
    // infra/stubs/credentials-from-env.ts: SnapStart and capacity providers (Managed Instances)
    // hand credentials over a container endpoint, which the bundles no longer carry a client for.
    for (const [, fn] of ofType(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties.SnapStart).toBeUndefined();
      expect(fn.Properties.CapacityProviderConfig).toBeUndefined();
    }
    expect(ofType(template, 'AWS::Lambda::CapacityProvider')).toEqual([]);
  });

  it('has one function and one API route per route of the table, and no others but the background functions (sweeper, grant expiry, reconciler, job worker and recovery, webhook delivery, table stream)', () => {
    const invoked = new Set(routes.map((route) => functionOf(template, route)));
    const background = [sweeperId, expiryId, reconcilerId, workerId, recoveryId, deliveryId, streamFunctionId];

    expect(invoked.size).toBe(routes.length);
    expect(new Set(background).size).toBe(7);
    expect(ofType(template, 'AWS::Lambda::Function').map(([id]) => id)).toEqual(expect.arrayContaining([...invoked, ...background]));
    expect(ofType(template, 'AWS::Lambda::Function')).toHaveLength(routes.length + 7);
    expect(ofType(template, 'AWS::ApiGatewayV2::Route')).toHaveLength(routes.length);
  });

  it('fails the check for a route the stack has no function for', () => {
    const unwired: Route = {
      name: 'Unwired',
      method: 'GET',
      path: '/nowhere',
      entry: 'functions/nowhere.ts',
      tableActions: [],
      ...TEST_ONLY,
    };

    expect(() => functionOf(template, unwired)).toThrow('route Unwired: expected one API route "GET /nowhere", found 0');
  });

  it('gives every function the configuration the handlers read', () => {
    for (const route of routes) {
      const variables = resource(template, functionOf(template, route)).Properties.Environment.Variables;
      expect(Object.keys(variables).sort()).toEqual(
        [
          'TABLE_NAME',
          'JWT_ISSUER',
          'JWT_AUDIENCE',
          'JWT_CLIENT_IDS',
          'JWT_JWKS_URI',
          'CORS_ALLOWED_ORIGINS',
          'CREDITS_HELP',
          'RATE_LIMIT_REQUESTS',
          'RATE_LIMIT_WINDOW_SECONDS',
          'RESTORE_WINDOW_DAYS',
          'SOCIAL_PROVIDER',
          'SCRAPECREATORS_BASE_URL',
          'TIKHUB_BASE_URL',
          'FACEBOOK_SCRAPER3_BASE_URL',
          'PROVIDER_TIMEOUT_MS',
          'POWERTOOLS_SERVICE_NAME',
          'POWERTOOLS_METRICS_NAMESPACE',
          'POWERTOOLS_LOG_LEVEL',
          ...(readsAtRunTime(route) ? EXTENSION_SETTINGS : []),
          ...((route.secrets ?? []).includes('providerKeys') ? VENDOR_KEY_VARIABLES : []),
          ...((route.secrets ?? []).includes('oauthSealingKey') ? ['OAUTH_SEALING_KEY_SECRET_ARN'] : []),
          ...((route.secrets ?? []).includes('mcpConsentKey') ? ['MCP_CONSENT_KEY_SECRET_ARN'] : []),
          ...((route.secrets ?? []).includes('stripeSecretKey') ? ['STRIPE_SECRET_KEY_SECRET_ARN'] : []),
          ...((route.secrets ?? []).includes('stripeWebhookSecret') ? ['STRIPE_WEBHOOK_SECRET_SECRET_ARN'] : []),
          ...((route.secrets ?? []).includes('cursorSigningKey') ? ['CURSOR_SIGNING_KEY'] : []),
          ...(route.signsApiKeys ? ['API_KEY_KMS_KEY_ID'] : []),
          ...(route.sendsJobs ? ['JOBS_QUEUE_URL'] : []),
          ...(route.sendsWebhooks ? ['WEBHOOKS_QUEUE_URL'] : []),
          ...(route.sendsEmail ? ['INVITATION_FROM_ADDRESS'] : []),
        ].sort(),
      );
      expect(variables).toMatchObject({
        TABLE_NAME: { Ref: tableId },
        JWT_ISSUER: { Ref: 'JwtIssuer' },
        SOCIAL_PROVIDER: { Ref: 'SocialProvider' },
      });
    }
  });
});

describe('least privilege', () => {
  it.each(
    routes.map((route) => [route.name, route] as const),
  )('%s may do exactly its declared table actions, on the table only', (_, route) => {
    const statements = dynamoStatements(functionOf(template, route));

    if (route.tableActions.length === 0) {
      expect(statements).toEqual([]);
      return;
    }
    // The handler's own actions, and the chain's on every route that takes a token (CHAIN_TABLE_ACTIONS).
    expect(statements.flatMap(actionsOf).sort()).toEqual(
      [...tableActionsOf(route), ...(route.indexes?.length ? ['dynamodb:Query'] : [])].sort(),
    );
    expect(statements.map((statement) => statement.Resource)).toEqual([
      tableArn,
      // One index: a single Resource (CloudFormation's form for one ARN), not a list of one.
      ...(route.indexes ?? []).map((index) => ({ 'Fn::Join': ['', [tableArn, `/index/${index}`]] })),
    ]);
  });

  it("denies every function's role UpdateItem and DeleteItem on the audit log's partitions, whatever it is granted", () => {
    const functions = ofType(template, 'AWS::Lambda::Function').map(([id]) => id);
    const denials = functions.map((id) => statementsOf(template, id).filter(isAuditDeny));
    expect(functions.length).toBeGreaterThan(routes.length);
    for (const denied of denials)
      expect(denied).toEqual([
        {
          Effect: 'Deny',
          Action: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
          Resource: tableArn,
          Condition: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['AUDIT#*'] } },
        },
      ]);
  });

  it('grants no wildcard DynamoDB action anywhere in the stack', () => {
    expect(wildcardDynamoActions(allStatements(template))).toEqual([]);
  });

  it('the wildcard check catches dynamodb:* and *', () => {
    const granted: Statement[] = [
      { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:*'], Resource: '*' },
      { Effect: 'Allow', Action: '*', Resource: '*' },
      { Effect: 'Allow', Action: 'dynamodb:Batch*', Resource: '*' },
    ];

    expect(wildcardDynamoActions(granted)).toEqual(['dynamodb:*', '*', 'dynamodb:Batch*']);
  });

  it('lets a function write its own log group and nothing else in CloudWatch Logs', () => {
    for (const route of routes) {
      const functionId = functionOf(template, route);
      const logGroup = resource(template, functionId).Properties.LoggingConfig.LogGroup;
      const logs = statementsOf(template, functionId).filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('logs:')),
      );
      expect(logs).toEqual([
        { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroup.Ref, 'Arn'] } },
      ]);
    }
    expect(ofType(template, 'AWS::IAM::Role').every(([, role]) => role.Properties.ManagedPolicyArns === undefined)).toBe(true);
  });
});

/**
 * The second synth: every option at once, since none of them touches what another one sets. Extra
 * routes that read the provider key and the OAuth sealing key (in a domain of their own), the
 * extension layer named by -c secretsExtensionArn, and the user pool of -c userPool=true.
 */
const EXTENSION_ARN = 'arn:aws:lambda:ap-south-2:123456789012:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12';
const EXTRA_ROUTE: Route = {
  name: 'NeedsSecretAndIndex',
  method: 'POST',
  path: '/test-only/{thing}',
  entry: 'functions/route-not-found.ts',
  tableActions: ['dynamodb:GetItem'],
  secrets: ['providerKeys'],
  ...TEST_ONLY,
};
const EXTRA_ROUTES = [EXTRA_ROUTE];
const withOptions = synth([...routes, ...EXTRA_ROUTES], { secretsExtensionArn: EXTENSION_ARN, userPool: {} });

/**
 * CloudFormation takes at most 500 resources, 200 parameters and 200 outputs a template. A stack
 * kept at 400 resources leaves the next wave room: 100 resources are 16 routes in one domain's
 * nested stack (6 each), or 83 routes' API routes and alarms in the parent (docs/deployment.md).
 */
const MAX_RESOURCES = 400;
const MAX_PARAMETERS = 200;
const MAX_OUTPUTS = 200;
const figures = (synthesized: readonly StackTemplate[]) =>
  synthesized.map(({ path, json }) => ({
    path,
    resources: Object.keys(json.Resources).length,
    parameters: Object.keys(json.Parameters ?? {}).length,
    outputs: Object.keys(json.Outputs ?? {}).length,
  }));

describe("CloudFormation's limits, with room for the next waves", () => {
  it.each([
    ['by default', () => stacks],
    ['with every option', () => withOptions.stacks],
  ] as const)('keeps every stack %s, the parent and each nested stack, at most 400 resources, 200 parameters and 200 outputs', (variant, synthesized) => {
    const counted = figures(synthesized());
    for (const each of counted) {
      console.log(`${variant}: ${each.path}: ${each.resources} resources, ${each.parameters} parameters, ${each.outputs} outputs`);
    }

    expect(
      counted.filter((each) => each.resources > MAX_RESOURCES || each.parameters > MAX_PARAMETERS || each.outputs > MAX_OUTPUTS),
      `stacks over ${MAX_RESOURCES} resources, ${MAX_PARAMETERS} parameters or ${MAX_OUTPUTS} outputs, of ${JSON.stringify(counted)}`,
    ).toEqual([]);
  });
});

describe('nested stacks: one per domain of the route table', () => {
  const domains = [...routesByStack(routes)];
  const pathOf = (id: string) => `WorkspaceService/${id}`;
  const typesOf = (json: StackTemplate['json']) => {
    const count: Record<string, number> = {};
    for (const each of Object.values(json.Resources)) count[each.Type] = (count[each.Type] ?? 0) + 1;
    return count;
  };
  const apiRouteOf = (t: Template, route: Route) =>
    defined(
      ofType(t, 'AWS::ApiGatewayV2::Route').find(([, each]) => each.Properties.RouteKey === routeKey(route)),
      `the API route of ${route.name}`,
    );

  it("is named after its domain's tag", () => {
    expect(['Billing', 'API keys', 'AI agents (MCP)', 'Social operations', 'test'].map(routeStackId)).toEqual([
      'BillingRoutes',
      'ApiKeysRoutes',
      'AiAgentsMcpRoutes',
      'SocialOperationsRoutes',
      'TestRoutes',
    ]);
    expect(stacks.map((each) => each.path)).toEqual(['WorkspaceService', ...domains.map(([id]) => pathOf(id))]);
    expect(new Set(domains.map(([, domainRoutes]) => domainRoutes[0]!.tag)).size).toBe(new Set(routes.map((route) => route.tag)).size);
  });

  it.each(
    domains,
  )("%s holds each of its routes' function, role, policy, log group, integration and invoke permission, and nothing else", (id, domainRoutes) => {
    const n = domainRoutes.length;
    const here = pathOf(id);

    expect(
      typesOf(
        defined(
          stacks.find((each) => each.path === here),
          here,
        ).json,
      ),
    ).toEqual({
      'AWS::IAM::Role': n,
      'AWS::IAM::Policy': n,
      'AWS::Logs::LogGroup': n,
      'AWS::Lambda::Function': n,
      'AWS::ApiGatewayV2::Integration': n,
      'AWS::Lambda::Permission': n,
    });
    for (const route of domainRoutes) {
      const functionId = functionOf(template, route);
      const fn = resource(template, functionId).Properties;
      const integrationId = /"Ref":"([^"]+)"/.exec(JSON.stringify(apiRouteOf(template, route)[1].Properties.Target))![1]!;
      const [permissionId, permission] = defined(
        ofType(template, 'AWS::Lambda::Permission').find(
          ([, each]) => JSON.stringify(each.Properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
        ),
        `the invoke permission of ${route.name}`,
      );
      const held = [functionId, fn.Role['Fn::GetAtt'][0], fn.LoggingConfig.LogGroup.Ref, integrationId, permissionId];

      expect([route.name, ...held.map((logicalId) => stackOf.get(logicalId))]).toEqual([route.name, ...held.map(() => here)]);
      expect(permission.Properties).toMatchObject({ Principal: 'apigateway.amazonaws.com', Action: 'lambda:InvokeFunction' });
      expect(JSON.stringify(permission.Properties.SourceArn)).toContain(
        `{"Ref":"${ofType(template, 'AWS::ApiGatewayV2::Api')[0]![0]}"},"/*/*${route.path === '$default' ? '' : route.path}"]`,
      );
    }
  });

  it('leaves the API routes in the parent, under the logical ids they had before the nested stacks, each pointing at the integration in its domain', () => {
    const parent = stacks[0]!;
    for (const [id, domainRoutes] of domains) {
      const nested = defined(
        stacks.find((each) => each.path === pathOf(id)),
        id,
      );
      for (const route of domainRoutes) {
        const [routeId] = apiRouteOf(template, route);
        expect([route.name, stackOf.get(routeId)]).toEqual([route.name, parent.path]);
        expect(routeId).toMatch(new RegExp(`^${route.name}Route[0-9A-F]{8}$`));
        expect(JSON.stringify(parent.json.Resources[routeId]!.Properties.Target)).toContain(
          `"Fn::GetAtt":["${nested.resourceId}","Outputs.`,
        );
      }
    }
    // As the flat stack named them: a deploy updates each route's target in place.
    expect(
      ['ListBillingEvents', 'GetMe', 'RouteNotFound'].map((name) => apiRouteOf(template, routes.find((route) => route.name === name)!)[0]),
    ).toEqual(['ListBillingEventsRoute29A917CD', 'GetMeRoute9B9E0860', 'RouteNotFoundRoute967C60BD']);
  });

  it('keeps the table, the signing key, the secrets, the queues and the user pool in the parent, under the logical ids they had before: a deploy never replaces them', () => {
    const idsOf = (json: StackTemplate['json'], type: string) =>
      Object.entries(json.Resources)
        .filter(([, each]) => each.Type === type)
        .map(([id]) => id);
    const parent = stacks[0]!.json;

    expect({
      table: idsOf(parent, 'AWS::DynamoDB::Table'),
      key: idsOf(parent, 'AWS::KMS::Key'),
      secrets: idsOf(parent, 'AWS::SecretsManager::Secret'),
      queues: idsOf(parent, 'AWS::SQS::Queue'),
      userPool: idsOf(withOptions.stacks[0]!.json, 'AWS::Cognito::UserPool'),
    }).toEqual({
      table: ['TableCD117FA1'],
      key: ['ApiKeySigningKey3FF962E0'],
      // Facebook Scraper3's key is new.
      secrets: [
        'ProviderApiKey671227A8',
        'TikHubApiKeyADF7E755',
        'FacebookScraper3ApiKeyF04B4D97',
        'CursorSigningKey255C5A33',
        'OAuthSealingKey1BB7AC03',
        'McpConsentKeyDF3F9D19',
        'StripeSecretKeyA7F6217B',
        'StripeWebhookSecretFCDDBC6A',
      ],
      queues: [
        'JobsDeadLetterQueue8CC426EE',
        'JobsQueue24944186',
        'WebhooksDeadLetterQueue1C65998B',
        'WebhooksQueueCBC86013',
        'TableStreamOnFailureQueue9086B7DC',
      ],
      userPool: ['IdentityUserPool96FE3B9B'],
    });
  });
});

describe('the functions that read the provider registry', () => {
  it('each builds it from exactly the environment the stack gives it: those without the keys answer which provider serves what', async () => {
    const { vi } = await import('vitest');
    const readers = ofType(template, 'AWS::Lambda::Function').filter(([, fn]) => 'SOCIAL_PROVIDER' in fn.Properties.Environment.Variables);
    // The listing, the quote, the status page, job creation and its items, the run, MCP and the job worker.
    expect(readers.length).toBeGreaterThanOrEqual(8);
    const saved = { ...process.env };
    try {
      for (const [id, fn] of readers) {
        for (const name of Object.keys(process.env))
          if (/^(SOCIAL_PROVIDER|SCRAPECREATORS_|TIKHUB_|FACEBOOK_SCRAPER3_)/.test(name)) delete process.env[name];
        // Each of its variables set (a value for each Ref), SocialProvider at all three vendors.
        for (const name of Object.keys(fn.Properties.Environment.Variables))
          process.env[name] = name.endsWith('_BASE_URL') ? 'https://vendor.example' : '1';
        process.env.SOCIAL_PROVIDER = 'http,tikhub,facebook_scraper3';
        vi.resetModules();
        const registry = await import('../../lib/social/providers/index.ts');
        expect([id, registry.providerIdentity().displayName]).toEqual([id, 'ScrapeCreators + TikHub + Facebook Scraper3']);
        expect(registry.servedByProvider('facebook_search')).toBe(true);
      }
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
      vi.resetModules();
    }
  });
});

describe("the routes that run providers: every vendor's key", () => {
  const readersOf = (t: Template, id: string) =>
    ofType(t, 'AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.PolicyDocument).includes(`"Ref":"${id}"`))
      .flatMap(([, policy]) => policy.Properties.Roles.map((role: { Ref: string }) => role.Ref))
      .sort();
  const roleOf = (t: Template, functionId: string) => resource(t, functionId).Properties.Role['Fn::GetAtt'][0] as string;
  const declaring = routes.filter((route) => route.secrets?.includes('providerKeys'));

  it('one secret per vendor of the registry, with the logical ids deployed stacks have, an output and a base URL parameter each', () => {
    expect(VENDOR_SECRETS.map(([prefix]) => secretNamed(template, prefix)[0]).map((id) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual([
      'ProviderApiKey',
      'TikHubApiKey',
      'FacebookScraper3ApiKey',
    ]);
    // Operators' scripts read these outputs by name (docs/deployment.md).
    expect(Object.keys(template.toJSON().Outputs)).toEqual(
      expect.arrayContaining(['ProviderApiKeySecretArn', 'TikHubApiKeySecretArn', 'FacebookScraper3ApiKeySecretArn']),
    );
    for (const [prefix, , parameter, defaultUrl] of VENDOR_SECRETS) {
      const [id, secret] = secretNamed(template, prefix);
      expect(secret).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(template.toJSON().Outputs[`${prefix}SecretArn`].Value).toEqual({ Ref: id });
      template.hasParameter(parameter, { Type: 'String', Default: defaultUrl, AllowedPattern: '^https://.+' });
    }
  });

  it('each is read by exactly the functions that run providers (the declaring routes and the job worker), each by its ARN', () => {
    expect(declaring.map((route) => route.name).sort()).toEqual(['Mcp', 'RunSocialOperation']);
    const runners = [...declaring.map((route) => functionOf(template, route)), workerId];
    for (const [prefix, variable] of VENDOR_SECRETS) {
      const [id] = secretNamed(template, prefix);
      expect(readersOf(template, id)).toEqual(runners.map((functionId) => roleOf(template, functionId)).sort());
      for (const functionId of runners) {
        expect(resource(template, functionId).Properties.Environment.Variables).toMatchObject({
          SOCIAL_PROVIDER: { Ref: 'SocialProvider' },
          [variable]: { Ref: id },
        });
      }
    }
  });

  it("and by a route added to the table that declares providerKeys (the variant's extra route)", () => {
    const variant = withOptions.template;
    const functionId = functionOf(variant, EXTRA_ROUTE);
    for (const [prefix, variable] of VENDOR_SECRETS) {
      const [id] = secretNamed(variant, prefix);
      expect(readersOf(variant, id)).toContain(roleOf(variant, functionId));
      expect(readersOf(variant, id)).toHaveLength(declaring.length + 2);
      expect(resource(variant, functionId).Properties.Environment.Variables[variable]).toEqual({ Ref: id });
    }
  });
});

/** Each vendor's secret: its logical id's prefix, the variable of its ARN, its base URL's parameter and default. */
const VENDOR_SECRETS = [
  ['ProviderApiKey', 'SCRAPECREATORS_API_KEY_SECRET_ARN', 'ScrapeCreatorsBaseUrl', 'https://api.scrapecreators.com'],
  ['TikHubApiKey', 'TIKHUB_API_KEY_SECRET_ARN', 'TikHubBaseUrl', 'https://api.tikhub.io'],
  ['FacebookScraper3ApiKey', 'FACEBOOK_SCRAPER3_API_KEY_SECRET_ARN', 'FacebookScraper3BaseUrl', 'https://facebook-scraper3.p.rapidapi.com'],
] as const;
const VENDOR_KEY_VARIABLES = VENDOR_SECRETS.map(([, variable]) => variable);

const secretNamed = (t: Template, logicalIdPrefix: string) => {
  const found = ofType(t, 'AWS::SecretsManager::Secret').filter(([id]) => id.startsWith(logicalIdPrefix));
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('the provider API key', () => {
  it('takes the extension layer named by -c secretsExtensionArn where the region map lacks one, with no map', () => {
    const arn = EXTENSION_ARN;
    const named = withOptions;
    const { Mappings } = named.template.toJSON() as { Mappings?: Record<string, unknown> };

    expect(named.nagReport).toBeUndefined();
    expect(Object.keys(Mappings ?? {}).filter((name) => /paramsandsecrets/i.test(name))).toEqual([]);
    for (const route of [...routes, ...EXTRA_ROUTES].filter(readsAtRunTime)) {
      expect(resource(named.template, functionOf(named.template, route)).Properties.Layers).toEqual([arn]);
    }
  });

  it('is read through the Parameters and Secrets extension: its arm64 layer, from the map of its ARNs by region that CDK keeps, on exactly the functions that read a secret at run time', () => {
    const { Mappings } = template.toJSON() as { Mappings: Record<string, Record<string, Record<string, string>>> };
    const [mapName, byRegion] = Object.entries(Mappings).find(([name]) => /paramsandsecrets/i.test(name))!;
    const [column] = Object.keys(byRegion['us-east-1']!);

    expect(byRegion['us-east-1']).toEqual({
      [column!]: expect.stringMatching(
        /^arn:aws:lambda:us-east-1:177933569100:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+$/,
      ),
    });
    for (const [region, arns] of Object.entries(byRegion)) {
      expect(arns[column!]).toMatch(
        new RegExp(`^arn:aws:lambda:${region}:\\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\\d+$`),
      );
    }
    for (const route of routes) {
      const fn = resource(template, functionOf(template, route));
      const reads = readsAtRunTime(route);
      expect([route.name, fn.Properties.Layers]).toEqual([
        route.name,
        reads ? [{ 'Fn::FindInMap': [mapName, { Ref: 'AWS::Region' }, column] }] : undefined,
      ]);
      if (reads) {
        expect(fn.Properties.Architectures).toEqual(['arm64']);
        expect(fn.Properties.Environment.Variables).toMatchObject({
          PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2773',
          SECRETS_MANAGER_TTL: '300',
        });
      }
    }
  });

  it('is generated by Secrets Manager (never a value in the template), kept on deletion, and reaches functions only as an ARN', () => {
    const [secretId, secret] = secretNamed(template, 'ProviderApiKey');

    expect(ofType(template, 'AWS::SecretsManager::Secret').map(([id]) => id)).toEqual([
      secretId,
      secretNamed(template, 'TikHubApiKey')[0],
      secretNamed(template, 'FacebookScraper3ApiKey')[0],
      secretNamed(template, 'CursorSigningKey')[0],
      secretNamed(template, 'OAuthSealingKey')[0],
      secretNamed(template, 'McpConsentKey')[0],
      secretNamed(template, 'StripeSecretKey')[0],
      secretNamed(template, 'StripeWebhookSecret')[0],
    ]);
    expect(secret.Properties).not.toHaveProperty('SecretString');
    expect(secret.Properties).toHaveProperty('GenerateSecretString');
    expect(secret).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(Object.keys(template.toJSON().Parameters).filter((name) => /key|secret|token/i.test(name))).toEqual([]);
    for (const t of [template, withOptions.template]) {
      // What each variable naming a key, a secret or a token may hold: an ARN, never a value (the cursor key aside: below).
      const allowed: Record<string, unknown> = {
        API_KEY_KMS_KEY_ID: { 'Fn::GetAtt': [ofType(t, 'AWS::KMS::Key')[0]![0], 'Arn'] },
        ...Object.fromEntries(VENDOR_SECRETS.map(([prefix, variable]) => [variable, { Ref: secretNamed(t, prefix)[0] }])),
        OAUTH_SEALING_KEY_SECRET_ARN: { Ref: secretNamed(t, 'OAuthSealingKey')[0] },
        MCP_CONSENT_KEY_SECRET_ARN: { Ref: secretNamed(t, 'McpConsentKey')[0] },
        STRIPE_SECRET_KEY_SECRET_ARN: { Ref: secretNamed(t, 'StripeSecretKey')[0] },
        STRIPE_WEBHOOK_SECRET_SECRET_ARN: { Ref: secretNamed(t, 'StripeWebhookSecret')[0] },
      };
      for (const [, fn] of ofType(t, 'AWS::Lambda::Function')) {
        const variables: Record<string, unknown> = fn.Properties.Environment.Variables;
        for (const [name, value] of Object.entries(variables)) {
          if (/KEY|SECRET|TOKEN/.test(name) && name !== 'CURSOR_SIGNING_KEY' && !EXTENSION_SETTINGS.includes(name)) {
            expect([name, value]).toEqual([name, allowed[name] ?? 'not a variable a function may have']);
          }
        }
      }
    }
  });
});

describe('the OAuth sealing key', () => {
  const tables = [
    ['the route table', template, routes],
    ['the variant', withOptions.template, [...routes, ...EXTRA_ROUTES]],
  ] as const;

  it('is generated by Secrets Manager as {"kid":"k1","key":<64 letters and digits>}, kept on deletion, says what it seals, and is an output', () => {
    const [sealingId, secret] = secretNamed(template, 'OAuthSealingKey');

    expect(secret).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(secret.Properties).toEqual({
      Description:
        'Seals the OAuth consent ticket and the hosted sign-in state (who signed in): {"kid","key","previous"} JSON, read at run time (rotation: docs/deployment.md)',
      GenerateSecretString: {
        SecretStringTemplate: '{"kid":"k1"}',
        GenerateStringKey: 'key',
        PasswordLength: 64,
        ExcludePunctuation: true,
      },
    });
    template.hasOutput('OAuthSealingKeySecretArn', { Value: { Ref: sealingId } });
  });

  it.each(
    tables,
  )('reaches in %s exactly the functions whose routes declare it: its ARN, read on that secret alone, and the extension layer', (_, t, table) => {
    const [sealingId] = secretNamed(t, 'OAuthSealingKey');
    const declaring = table.filter((route) => route.secrets?.includes('oauthSealingKey')).map((route) => functionOf(t, route));
    const holders = ofType(t, 'AWS::Lambda::Function')
      .filter(([, fn]) => 'OAUTH_SEALING_KEY_SECRET_ARN' in fn.Properties.Environment.Variables)
      .map(([id]) => id);
    const readers = ofType(t, 'AWS::IAM::Policy').filter(([, policy]) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes(`"Ref":"${sealingId}"`),
    );

    expect(holders.sort()).toEqual(declaring.sort());
    expect(readers).toHaveLength(declaring.length);
    for (const functionId of holders) {
      const fn = resource(t, functionId);
      expect(fn.Properties.Environment.Variables.OAUTH_SEALING_KEY_SECRET_ARN).toEqual({ Ref: sealingId });
      expect(fn.Properties.Layers).toEqual(
        t === template
          ? [{ 'Fn::FindInMap': [expect.stringMatching(/paramsandsecrets/i), { Ref: 'AWS::Region' }, expect.any(String)] }]
          : [EXTENSION_ARN],
      );
      expect(
        statementsOf(t, functionId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('secretsmanager:'))),
      ).toEqual([
        { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'], Resource: { Ref: sealingId } },
      ]);
    }
  });

  it('is declared by the authorize route alone: the one function that seals or opens a ticket', () => {
    expect(routes.filter((route) => route.secrets?.includes('oauthSealingKey')).map((route) => route.name)).toEqual(['OAuthAuthorize']);
  });
});

describe("Stripe's secret key and the webhook's signing secrets", () => {
  it.each([
    [
      'StripeSecretKey',
      'stripeSecretKey',
      'STRIPE_SECRET_KEY_SECRET_ARN',
      ['CreateCreditPurchase', 'CreatePaymentMethod', 'DeletePaymentMethod', 'ReceiveStripeWebhook'],
    ],
    ['StripeWebhookSecret', 'stripeWebhookSecret', 'STRIPE_WEBHOOK_SECRET_SECRET_ARN', ['ReceiveStripeWebhook']],
  ] as const)('%s: a placeholder (never a value in the template), kept on deletion, read at run time by %s’s routes alone', (name, routeSecret, variable, readers) => {
    const [secretId, secret] = secretNamed(template, name);
    expect(secret.Properties).not.toHaveProperty('SecretString');
    expect(secret).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(routes.filter((route) => route.secrets?.includes(routeSecret)).map((route) => route.name)).toEqual(readers);
    const functions = ofType(template, 'AWS::Lambda::Function').filter(([, fn]) => variable in fn.Properties.Environment.Variables);
    // The payments reconciler (scheduled, not a route) and the stream function (auto-recharge's payments) read Stripe's key too.
    expect(functions.map(([id]) => id).sort()).toEqual(
      [
        ...readers.map((name) =>
          functionOf(
            template,
            defined(
              routes.find((route) => route.name === name),
              name,
            ),
          ),
        ),
        ...(name === 'StripeSecretKey' ? [reconcilerId, streamFunctionId] : []),
      ].sort(),
    );
    for (const [, fn] of functions) expect(fn.Properties.Environment.Variables[variable]).toEqual({ Ref: secretId });
  });
});

describe('the cursor signing key', () => {
  it('is generated by Secrets Manager and reaches only the functions that page with signed cursors, as a deploy-time reference', () => {
    const [secretId, secret] = secretNamed(template, 'CursorSigningKey');
    const holders = ofType(template, 'AWS::Lambda::Function').filter(
      ([, fn]) => 'CURSOR_SIGNING_KEY' in fn.Properties.Environment.Variables,
    );
    // Which functions those are, the bundles test checks against what each bundle reads.
    const paging = routes.filter((route) => route.secrets?.includes('cursorSigningKey'));

    expect(secret.Properties).not.toHaveProperty('SecretString');
    expect(secret.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64, ExcludePunctuation: true });
    expect(paging.map((route) => route.name).sort()).toEqual([
      'ListApiKeys',
      'ListAuditEvents',
      'ListBillingEvents',
      'ListCreditGrants',
      'ListCreditPurchases',
      'ListInvitations',
      'ListMembers',
      'ListSocialJobItems',
      'ListTrash',
      'ListWebhookDeliveries',
      'ListWebhooks',
      'Mcp',
    ]);
    expect(holders.map(([id]) => id).sort()).toEqual(paging.map((route) => functionOf(template, route)).sort());
    for (const [, fn] of holders) {
      expect(fn.Properties.Environment.Variables.CURSOR_SIGNING_KEY).toEqual({
        'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']],
      });
    }
  });

  it('reaches no function whose route does not declare it, in the variant too (its extra routes read other secrets)', () => {
    const t = withOptions.template;
    const holders = ofType(t, 'AWS::Lambda::Function')
      .filter(([, fn]) => 'CURSOR_SIGNING_KEY' in fn.Properties.Environment.Variables)
      .map(([id]) => id);
    const declaring = [...routes, ...EXTRA_ROUTES].filter((route) => route.secrets?.includes('cursorSigningKey'));

    expect(holders.sort()).toEqual(declaring.map((route) => functionOf(t, route)).sort());
  });

  it('is read by no role: only CloudFormation reads it, at deploy', () => {
    for (const t of [template, withOptions.template]) {
      const [secretId] = secretNamed(t, 'CursorSigningKey');
      expect(allStatements(t).filter((statement) => JSON.stringify(statement.Resource).includes(`"${secretId}"`))).toEqual([]);
    }
  });

  it('says it guards paging cursors only and seals no credential, and goes with the stack', () => {
    const [, secret] = secretNamed(template, 'CursorSigningKey');

    expect(secret.Properties.Description).toBe(
      'HMAC key of paging cursors only; seals no credential (generated; rotate by putting a new value and redeploying: walks in flight restart)',
    );
    expect(secret).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
  });
});

describe('identity providers and CORS', () => {
  const parameters = template.toJSON().Parameters;

  it('takes audiences and access-token client ids as optional lists, and refuses a stack with neither', () => {
    expect(parameters.JwtAudience).toMatchObject({ Type: 'String', Default: '' });
    expect(parameters.JwtClientIds).toMatchObject({ Type: 'String', Default: '' });
    expect(template.toJSON().Rules.JwtAudienceOrClientIds.Assertions).toEqual([
      {
        Assert: {
          'Fn::Not': [{ 'Fn::And': [{ 'Fn::Equals': [{ Ref: 'JwtAudience' }, ''] }, { 'Fn::Equals': [{ Ref: 'JwtClientIds' }, ''] }] }],
        },
        AssertDescription: 'Set JwtAudience (ID tokens), JwtClientIds (access tokens), or both',
      },
    ]);
    // Every route's function (the scheduled sweeper verifies no token).
    for (const [, fn] of ofType(template, 'AWS::Lambda::Function').filter(
      ([, candidate]) => candidate.Properties.Environment.Variables.JWT_ISSUER,
    )) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        JWT_AUDIENCE: { Ref: 'JwtAudience' },
        JWT_CLIENT_IDS: { Ref: 'JwtClientIds' },
      });
    }
  });

  it.each([
    ['', true],
    ['*', true],
    ['https://app.example.com', true],
    ['https://app.example.com,http://localhost:5173', true],
    ['https://app.example.com, https://b.example.com', false],
    ['https://app.example.com/', false],
    ['app.example.com', false],
  ])('accepts CorsAllowedOrigins=%j: %s', (value, valid) => {
    expect(new RegExp(parameters.CorsAllowedOrigins.AllowedPattern).test(value)).toBe(valid);
  });

  it("gives API Gateway the handlers' CORS policy when origins are named, and none otherwise", () => {
    const [, api] = ofType(template, 'AWS::ApiGatewayV2::Api')[0]!;

    expect(template.toJSON().Conditions.CorsEnabled).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'CorsAllowedOrigins' }, ''] }] });
    expect(api.Properties.CorsConfiguration).toEqual({
      'Fn::If': [
        'CorsEnabled',
        {
          AllowOrigins: { 'Fn::Split': [',', { Ref: 'CorsAllowedOrigins' }] },
          AllowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
          AllowHeaders: [
            'Authorization',
            'Content-Type',
            'Endless-Api-Version',
            'Service-Api-Version',
            'Idempotency-Key',
            'Cache-Control',
            'Max-Credits',
          ],
          ExposeHeaders: expect.arrayContaining(['x-request-id', 'RateLimit-Remaining', 'Retry-After', 'Credits-Remaining']),
          MaxAge: 600,
        },
        { Ref: 'AWS::NoValue' },
      ],
    });
  });
});

describe('the table', () => {
  it('is the shared definition, on demand, with point-in-time recovery, TTL and deletion protection, and is retained', () => {
    const table = resource(template, tableId);

    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      DeletionProtectionEnabled: true,
    });
  });
});

describe('the API', () => {
  it('has one $default stage with throttling and JSON access logs that carry no headers', () => {
    const stages = ofType(template, 'AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const stage = stages[0]![1];

    expect(stage.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: { Ref: 'ApiThrottleRateLimit' },
        ThrottlingBurstLimit: { Ref: 'ApiThrottleBurstLimit' },
      },
    });
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format);
    expect(format).toMatchObject({ requestId: '$context.requestId', routeKey: '$context.routeKey', status: '$context.status' });
    expect(stage.Properties.AccessLogSettings.Format).not.toMatch(/header|authorization/i);
  });

  it('keeps every log group for the retention the operator chose', () => {
    const groups = ofType(template, 'AWS::Logs::LogGroup');

    // One per function (the routes', the sweeper's, the grant expiry's, the reconciler's, the job worker's, the job recovery's, the delivery's and the table stream's) and the API's access log.
    expect(groups).toHaveLength(routes.length + 8);
    for (const [, group] of groups) expect(group.Properties.RetentionInDays).toEqual({ Ref: 'LogRetentionDays' });
  });

  it('takes the JWT and provider settings as parameters, the provider defaulting to http', () => {
    template.hasParameter('JwtIssuer', { Type: 'String' });
    template.hasParameter('JwtAudience', { Type: 'String' });
    template.hasParameter('JwtJwksUri', { Type: 'String', AllowedPattern: '^https://.+' });
    template.hasParameter('SocialProvider', { Type: 'String', Default: 'http' });
    // Provider names of the registry, comma-separated: the three vendors' order serves all 52.
    const allowed = new RegExp(template.toJSON().Parameters.SocialProvider.AllowedPattern);
    for (const value of ['http', 'http,tikhub', 'tikhub,http', 'http,tikhub,facebook_scraper3', 'sample', 'sample,sample_backup'])
      expect(allowed.test(value), value).toBe(true);
    for (const value of ['', 'ftp', 'http,', 'http tikhub', 'http,,tikhub', 'HTTP']) expect(allowed.test(value), value).toBe(false);
    expect(template.toJSON().Parameters.SocialProvider.Description).toContain('All 52 operations: http,tikhub,facebook_scraper3');
    template.hasParameter('ProviderTimeoutMs', { Type: 'Number', Default: 10000 });
  });
});

describe('alarms', () => {
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const topicId = ofType(template, 'AWS::SNS::Topic')[0]![0];

  it('watches the 5xx rate of the API', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({ Expression: 'IF(requests >= 20, 100 * errors / requests, 0)' })]),
      Threshold: 2,
    });
  });

  it.each(
    routes.map((route) => [route.name, route] as const),
  )('watches errors and throttles of %s, each in one alarm that names it among its domain', (_, route) => {
    const functionId = functionOf(template, route);
    for (const metricName of ['Errors', 'Throttles']) {
      const watching = alarmsReading(template, functionId, metricName);
      expect(watching).toHaveLength(1);
      const [names, domain] = /^([\w, ]+?) \((.+?)\): /.exec(watching[0]!.AlarmDescription)!.slice(1);
      expect(names!.split(', ')).toContain(route.name);
      expect(domain).toBe(`${route.tag} routes`);
    }
  });

  it.each(
    functionGroups.map((group) => [group.title, group] as const),
  )('sums the errors, and the throttles, of the %s with metric math: the threshold of one function, the functions named', (_, group) => {
    const fires = {
      Errors: 'a function failed (crash, timeout or init error) at least once in 5 minutes',
      Throttles: 'Lambda throttled invocations (account or reserved concurrency exhausted) in the last 5 minutes',
    };
    for (const metricName of ['Errors', 'Throttles'] as const) {
      for (const [chunk, { suffix, items }] of alarmChunks(group.functionIds).entries()) {
        const names = group.names.slice(chunk * METRICS_PER_ALARM, chunk * METRICS_PER_ALARM + items.length);
        const { Metrics, ...rest } = alarm(`${group.id}${metricName}${suffix}`);

        expect(rest).toEqual({
          AlarmDescription: `${names.join(', ')} (${group.title}): ${fires[metricName]}; the dashboard's "Errors and throttles: ${group.title}" graph shows which.`,
          Threshold: 1,
          EvaluationPeriods: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
          AlarmActions: [{ Ref: topicId }],
          OKActions: [{ Ref: topicId }],
        });
        expect(Metrics).toEqual([
          {
            Id: 'expr_1',
            Expression: items.map((_, i) => `FILL(f${i}, 0)`).join(' + '),
            Label: `${group.title}: ${metricName.toLowerCase()}`,
            ReturnData: true,
          },
          ...items.map((functionId, i) => ({
            Id: `f${i}`,
            MetricStat: {
              Metric: {
                Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
                MetricName: metricName,
                Namespace: 'AWS/Lambda',
              },
              Period: 300,
              Stat: 'Sum',
            },
            ReturnData: false,
          })),
        ]);
      }
    }
  });

  it("cuts a group into alarms of at most 10 functions, CloudWatch's hard limit on an alarm's metrics, the first alarm keeping its id", () => {
    const names = Array.from({ length: 23 }, (_, i) => `F${i}`);

    expect(METRICS_PER_ALARM).toBe(10);
    expect(alarmChunks(names)).toEqual([
      { suffix: '', items: names.slice(0, 10) },
      { suffix: '2', items: names.slice(10, 20) },
      { suffix: '3', items: names.slice(20) },
    ]);
    expect(alarmChunks(names.slice(0, 10))).toEqual([{ suffix: '', items: names.slice(0, 10) }]);
  });

  it("watches every function of the stack, each in exactly one errors alarm and one throttles alarm; no alarm reads more than CloudWatch's 10 metrics", () => {
    const functionIds = ofType(template, 'AWS::Lambda::Function').map(([id]) => id);

    expect(functionGroups.flatMap((group) => group.functionIds).sort()).toEqual([...functionIds].sort());
    for (const functionId of functionIds) {
      expect([
        functionId,
        alarmsReading(template, functionId, 'Errors').length,
        alarmsReading(template, functionId, 'Throttles').length,
      ]).toEqual([functionId, 1, 1]);
    }
    for (const each of alarms) {
      expect((each.Metrics ?? []).filter((query: { MetricStat?: unknown }) => query.MetricStat).length).toBeLessThanOrEqual(
        METRICS_PER_ALARM,
      );
      expect(each.AlarmDescription.length).toBeLessThanOrEqual(1024);
    }
  });

  it('watches DynamoDB throttling on the table and its indexes', () => {
    const dynamo = alarms.filter((alarm) => JSON.stringify(alarm.Metrics ?? []).includes('ThrottleEvents'));

    expect(dynamo).toHaveLength(1);
    for (const index of tableDefinition.globalSecondaryIndexes) expect(JSON.stringify(dynamo[0])).toContain(index.indexName);
  });

  /** The alarm whose construct id is `id` (logical ids are the path plus a hash). */
  const alarm = (id: string) => {
    const found = ofType(template, 'AWS::CloudWatch::Alarm').filter(([logicalId]) =>
      new RegExp(`^Alarms${id}[0-9A-F]{8}$`).test(logicalId),
    );
    expect(found).toHaveLength(1);
    return found[0]![1].Properties;
  };
  const serviceMetric = (name: string, stat: string) => ({
    Metric: { Dimensions: [{ Name: 'service', Value: 'workspace-service' }], MetricName: name, Namespace: 'WorkspaceService' },
    Period: 300,
    Stat: stat,
  });
  const apiRequests = {
    Metric: {
      Dimensions: [{ Name: 'ApiId', Value: { Ref: ofType(template, 'AWS::ApiGatewayV2::Api')[0]![0] } }],
      MetricName: 'Count',
      Namespace: 'AWS/ApiGateway',
    },
    Period: 300,
    Stat: 'Sum',
  };

  it('pages on a single refund that could not be written', () => {
    expect(alarm('RefundFailures')).toMatchObject({
      Namespace: 'WorkspaceService',
      MetricName: 'RefundFailures',
      Dimensions: [{ Name: 'service', Value: 'workspace-service' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('watches the provider failure rate: failures over calls (the latency sample count), with a minimum of calls', () => {
    const { Metrics, ...rest } = alarm('ProviderFailureRate');

    expect(rest).toMatchObject({ Threshold: 20, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    expect(Metrics).toEqual([
      expect.objectContaining({ Expression: 'IF(calls >= 10, 100 * FILL(failures, 0) / calls, 0)', ReturnData: true }),
      { Id: 'calls', MetricStat: serviceMetric('UpstreamLatency', 'SampleCount'), ReturnData: false },
      { Id: 'failures', MetricStat: serviceMetric('UpstreamFailures', 'Sum'), ReturnData: false },
    ]);
  });

  it.each([
    ['UnauthorizedSpike', 'Unauthorized', '401', 25],
    ['RateLimitedSpike', 'RateLimited', '429', 10],
  ])('%s: the share of requests answered %s (counted from the access log) over all requests', (id, metricName, status, threshold) => {
    const { Metrics, ...rest } = alarm(id);
    const filters = ofType(template, 'AWS::Logs::MetricFilter').map(([, filter]) => filter.Properties);
    const accessLogs = ofType(template, 'AWS::Logs::LogGroup').find(([logicalId]) => logicalId.startsWith('ApiAccessLogs'))![0];

    expect(rest).toMatchObject({ Threshold: threshold, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    expect(Metrics).toEqual([
      expect.objectContaining({ Expression: 'IF(requests >= 50, 100 * FILL(answered, 0) / requests, 0)', ReturnData: true }),
      expect.objectContaining({ Id: 'requests', MetricStat: apiRequests, ReturnData: false }),
      expect.objectContaining({
        Id: 'answered',
        MetricStat: { Metric: { MetricName: metricName, Namespace: 'WorkspaceService' }, Period: 300, Stat: 'Sum' },
        ReturnData: false,
      }),
    ]);
    expect(filters).toContainEqual({
      LogGroupName: { Ref: accessLogs },
      FilterPattern: `{ $.status = "${status}" }`,
      MetricTransformations: [{ MetricNamespace: 'WorkspaceService', MetricName: metricName, MetricValue: '1' }],
    });
  });

  it('notifies the alarm topic when an alarm fires and when it clears', () => {
    // 5xx rate, errors and throttles of each group of at most 10 functions (a domain's routes, the
    // background functions), DynamoDB throttles, refund failures, provider failure rate, 401 and
    // 429 spikes, the sweeper's three, the jobs queue's two, the recovery's two, the webhooks
    // queue's two and its failed deliveries, the table stream's two.
    const functionAlarms = 2 * functionGroups.reduce((sum, group) => sum + alarmChunks(group.functionIds).length, 0);
    expect(alarms.length).toBe(1 + functionAlarms + 1 + 4 + 3 + 2 + 2 + 3 + 2);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
    }
  });
});

describe('the dashboard', () => {
  const dashboards = ofType(template, 'AWS::CloudWatch::Dashboard');
  /** The dashboard body with every reference as the logical id it names (a function, an alarm), or "<ref>" (the region). */
  const body = JSON.parse(
    (dashboards[0]![1].Properties.DashboardBody['Fn::Join'][1] as (string | Record<string, any>)[])
      .map((part) => (typeof part === 'string' ? part : (part['Fn::GetAtt']?.[0] ?? (part.Ref?.startsWith('AWS::') ? '<ref>' : part.Ref))))
      .join(''),
  ) as { widgets: { type: string; properties: { title?: string; metrics?: unknown[]; alarms?: string[] } }[] };
  const graph = (title: string) => {
    const widget = body.widgets.find((candidate) => candidate.properties.title === title);
    expect(widget, title).toBeDefined();
    return JSON.stringify(widget!.properties.metrics);
  };

  it('is one dashboard, with the state of every alarm of the stack', () => {
    expect(dashboards).toHaveLength(1);
    const alarmWidget = body.widgets.find((widget) => widget.type === 'alarm')!;
    expect(alarmWidget.properties.alarms).toHaveLength(ofType(template, 'AWS::CloudWatch::Alarm').length);
    template.hasOutput('DashboardName', { Value: { Ref: dashboards[0]![0] } });
  });

  it.each([
    ['Requests by route and status', ['SEARCH(\'{WorkspaceService,route,service,status} MetricName=\\"Requests\\"']],
    ['API latency (ms)', ['"Latency"', '"stat":"p50"', '"stat":"p99"']],
    ['Credits charged and refunded', ['"CreditsCharged"', '"CreditsRefunded"', '"RefundFailures"']],
    ['Provider latency (ms) and failures', ['"UpstreamLatency"', '"stat":"p99"', '"UpstreamFailures"']],
    ['Throttles', ['"RateLimited"', '"AWS/Lambda","Throttles"', '"ReadThrottleEvents"', '"WriteThrottleEvents"']],
    ['Refused and failed requests', ['"Unauthorized"', '"4xx"', '"5xx"']],
  ])('graphs %s', (title, parts) => {
    const metrics = graph(title);
    for (const part of parts) expect(metrics).toContain(part);
  });

  it.each(
    functionGroups.map((group) => [group.title, group] as const),
  )('graphs each function of the %s, where its alarms send on-call: its errors, and its throttles on the right', (_, group) => {
    const widget = body.widgets.find((candidate) => candidate.properties.title === `Errors and throttles: ${group.title}`);
    const line = (metricName: string, i: number, extra: Record<string, string> = {}) => [
      'AWS/Lambda',
      metricName,
      'FunctionName',
      group.functionIds[i],
      { label: `${group.names[i]} ${metricName.toLowerCase()}`, stat: 'Sum', ...extra },
    ];

    expect(widget?.properties.metrics).toEqual([
      ...group.names.map((_, i) => line('Errors', i)),
      ...group.names.map((_, i) => line('Throttles', i, { yAxis: 'right' })),
    ]);
  });
});

describe('the payments reconciler', () => {
  it('is invoked every minute, not retried on top of the next pass, and may read and write the table as a settle does, and read Stripe’s key', () => {
    const rules = ofType(template, 'AWS::Events::Rule').filter(([, rule]) =>
      JSON.stringify(rule.Properties.Targets).includes(reconcilerId),
    );
    expect(rules.map(([, rule]) => rule.Properties.ScheduleExpression)).toEqual(['rate(1 minute)']);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: reconcilerId }, MaximumRetryAttempts: 0 });
    // A settle's, and the due auto-recharges' (their index).
    expect(dynamoStatements(reconcilerId).flatMap(actionsOf).sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const secretReads = otherStatements(reconcilerId).filter((statement) =>
      actionsOf(statement).some((a) => a.startsWith('secretsmanager:')),
    );
    expect(secretReads.map((statement) => statement.Resource)).toEqual([{ Ref: secretNamed(template, 'StripeSecretKey')[0] }]);
  });
});

describe('the charge sweeper', () => {
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const sweeperAlarm = (metricName: string) => alarms.filter((alarm) => alarm.MetricName === metricName);

  it('is invoked by an EventBridge rule every minute, and a failed sweep is not retried on top of the next one', () => {
    const rules = ofType(template, 'AWS::Events::Rule').filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(sweeperId));

    // Four schedules: this one, the job recovery, the grant expiry and the payments reconciler.
    expect(ofType(template, 'AWS::Events::Rule')).toHaveLength(4);
    expect(rules).toHaveLength(1);
    expect(rules[0]![1].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [{ Arn: { 'Fn::GetAtt': [sweeperId, 'Arn'] } }],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [sweeperId, 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [rules[0]![0], 'Arn'] },
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: sweeperId },
      MaximumRetryAttempts: 0,
    });
    expect(resource(template, sweeperId).Properties).toMatchObject({ Handler: 'index.handler', Runtime: 'nodejs22.x', Timeout: 50 });
  });

  it('may query the sweep index, refund (update, put, delete) and read lanes (get, query) on the table, and nothing else', () => {
    const statements = dynamoStatements(sweeperId);

    expect(statements.map((statement) => [statement.Action, statement.Resource])).toEqual([
      [['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:Query'], tableArn],
      ['dynamodb:Query', { 'Fn::Join': ['', [tableArn, `/index/${SWEEP_INDEX}`]] }],
    ]);
    const logGroup = resource(template, sweeperId).Properties.LoggingConfig.LogGroup;
    const others = otherStatements(sweeperId);
    expect(others).toEqual([
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroup.Ref, 'Arn'] } },
      { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' },
    ]);
  });

  it('gets the table and the telemetry settings, nothing of the API (no JWT, no provider)', () => {
    const variables = resource(template, sweeperId).Properties.Environment.Variables;

    expect(Object.keys(variables).sort()).toEqual([
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
      'TABLE_NAME',
    ]);
    expect(variables.TABLE_NAME).toEqual({ Ref: tableId });
  });

  it('alarms when charges were swept, when a run stays pending past a sweep, when the sweeper fails, and when it stops running', () => {
    const onSweeper = (metricName: string) =>
      alarms.filter((alarm) => alarm.MetricName === metricName && JSON.stringify(alarm.Dimensions).includes(`"Ref":"${sweeperId}"`));

    expect(sweeperAlarm('SweptRefunds')).toEqual([
      expect.objectContaining({
        Namespace: 'WorkspaceService',
        Dimensions: [{ Name: 'service', Value: 'workspace-service' }],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    ]);
    expect(sweeperAlarm('PendingRunOverdueSeconds')).toEqual([
      expect.objectContaining({ Statistic: 'Maximum', Threshold: 60, ComparisonOperator: 'GreaterThanOrEqualToThreshold' }),
    ]);
    expect(onSweeper('Invocations')).toEqual([
      expect.objectContaining({ Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'LessThanThreshold', TreatMissingData: 'breaching' }),
    ]);
    expect(alarmsReading(template, sweeperId, 'Errors')).toHaveLength(1);
    expect(alarmsReading(template, sweeperId, 'Throttles')).toHaveLength(1);
  });
});

describe('jobs: the queue, its dead-letter queue and the worker', () => {
  const queues = ofType(template, 'AWS::SQS::Queue');
  const queueId = queueOf('Jobs', 'Queue');
  const dlqId = queueOf('Jobs', 'DeadLetterQueue');
  const sqsStatements = (functionId: string) =>
    statementsOf(template, functionId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('sqs:')));

  it('is an encrypted queue with a dead-letter queue after 5 receives, and a visibility of 6 worker timeouts', () => {
    // The jobs queue and the webhooks queue, each with its dead-letter queue, and the table
    // stream's on-failure queue.
    expect(queues).toHaveLength(5);
    expect(resource(template, queueId).Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 360,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(resource(template, dlqId).Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    expect(resource(template, workerId).Properties).toMatchObject({ Timeout: 60, Runtime: 'nodejs22.x' });
  });

  it('feeds the worker in batches of 10 with partial batch failures, at most 10 invocations at once', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: workerId },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
    expect(
      ofType(template, 'AWS::Lambda::EventSourceMapping').filter(
        ([, mapping]) => JSON.stringify(mapping.Properties.FunctionName) === JSON.stringify({ Ref: workerId }),
      ),
    ).toHaveLength(1);
  });

  it('lets only the routes that create jobs and the recovery send, and only the worker receive', () => {
    const queueArn = { 'Fn::GetAtt': [queueId, 'Arn'] };
    const senders = routes.filter((route) => route.sendsJobs).map((route) => route.name);
    expect(senders.sort()).toEqual(['CreateSocialJob', 'Mcp']);
    for (const route of routes) {
      const statements = sqsStatements(functionOf(template, route)).filter(
        (statement) => JSON.stringify(statement.Resource) === JSON.stringify(queueArn),
      );
      expect(statements).toEqual(route.sendsJobs ? [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: queueArn }] : []);
    }
    expect(sqsStatements(sweeperId)).toEqual([]);
    expect(sqsStatements(recoveryId)).toEqual(expect.arrayContaining([{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: queueArn }]));
    // The worker receives items; the webhooks of the jobs it ends go to the webhooks queue.
    const worker = sqsStatements(workerId).filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(queueArn));
    expect(worker.flatMap(actionsOf).sort()).toEqual(
      ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'].sort(),
    );
    expect(sqsStatements(workerId).filter((statement) => !worker.includes(statement))).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: webhooksQueueArn },
    ]);
  });

  it("may do the run path's table actions and nothing else on the table; reads the provider key; knows the queue", () => {
    expect(dynamoStatements(workerId).map((statement) => [statement.Action, statement.Resource])).toEqual([
      [
        [
          'dynamodb:UpdateItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:ConditionCheckItem',
          'dynamodb:DeleteItem',
          'dynamodb:Query',
        ],
        tableArn,
      ],
    ]);
    const variables = resource(template, workerId).Properties.Environment.Variables;
    expect(variables).toMatchObject({
      WEBHOOKS_QUEUE_URL: { Ref: queueOf('Webhooks', 'Queue') },
      TABLE_NAME: { Ref: tableId },
      SOCIAL_PROVIDER: { Ref: 'SocialProvider' },
    });
    expect(variables.JOBS_QUEUE_URL).toBeUndefined();
    expect(variables.SCRAPECREATORS_API_KEY_SECRET_ARN).toBeDefined();
    expect(variables.TIKHUB_API_KEY_SECRET_ARN).toBeDefined();
  });

  it('alarms on a message in the dead-letter queue and on the oldest message waiting more than 15 minutes', () => {
    const alarms = ofType(template, 'AWS::CloudWatch::Alarm')
      .map(([, alarm]) => alarm.Properties)
      .filter((alarm) => JSON.stringify(alarm.Dimensions ?? []).includes('"Jobs'));
    expect(alarms.filter((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible')).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/SQS',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    ]);
    expect(alarms.filter((alarm) => alarm.MetricName === 'ApproximateAgeOfOldestMessage')).toEqual([
      expect.objectContaining({
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
        Threshold: 900,
        Statistic: 'Maximum',
      }),
    ]);
    expect(alarmsReading(template, workerId, 'Errors')).toHaveLength(1);
    expect(alarmsReading(template, workerId, 'Throttles')).toHaveLength(1);
  });
});

describe('the table stream: its function, event source mapping and on-failure queue', () => {
  const onFailureId = defined(
    ofType(template, 'AWS::SQS::Queue').find(([id]) => id.startsWith('TableStream')),
    'the on-failure queue',
  )[0];
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);

  it('reads the table stream from its oldest record in batches of 100, with partial batch failures, bisect, 5 retries and the on-failure queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      FunctionName: { Ref: streamFunctionId },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 5,
      ParallelizationFactor: 1,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [onFailureId, 'Arn'] } } },
    });
    expect(resource(template, onFailureId).Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
  });

  it("passes the consumers' filters to the mapping: only new charge and refund events, balances and spend counters invoke the function", () => {
    const mapping = defined(
      ofType(template, 'AWS::Lambda::EventSourceMapping').find(
        ([, each]) => JSON.stringify(each.Properties.FunctionName) === JSON.stringify({ Ref: streamFunctionId }),
      ),
      'the mapping',
    )[1];
    expect(mapping.Properties.FilterCriteria.Filters.map((filter: { Pattern: string }) => JSON.parse(filter.Pattern))).toEqual([
      {
        eventName: ['INSERT'],
        dynamodb: {
          NewImage: { entity: { S: ['billing_event'] }, type: { S: ['social_operation.charged', 'social_operation.refunded'] } },
        },
      },
      { eventName: ['MODIFY'], dynamodb: { NewImage: { SK: { S: ['ORG'] }, PK: { S: [{ prefix: 'ORG#' }] } } } },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { SK: { S: [{ prefix: 'SPEND#' }] } } } },
      { eventName: ['MODIFY'], dynamodb: { NewImage: { SK: { S: ['JOB'] }, PK: { S: [{ prefix: 'JOB#' }] } } } },
      { eventName: ['MODIFY'], dynamodb: { NewImage: { SK: { S: [{ prefix: 'GRANT#' }] }, PK: { S: [{ prefix: 'GRANTS#' }] } } } },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { SK: { S: ['AUTO_RECHARGE'] }, PK: { S: [{ prefix: 'ORG#' }] } } } },
      {
        eventName: ['INSERT'],
        dynamodb: {
          NewImage: {
            entity: { S: ['billing_event'] },
            type: {
              S: [
                'social_operation.charged',
                'social_operation.refunded',
                'credits.granted',
                'credits.deducted',
                'credits.purchased',
                'credits.reversed',
              ],
            },
          },
        },
      },
      // The providers' health: stored results and refund events that carry a run's attempts.
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entity: { S: ['result_cache'] }, attempts: { S: [{ prefix: '' }] } } } },
      {
        eventName: ['INSERT'],
        dynamodb: {
          NewImage: {
            entity: { S: ['billing_event'] },
            type: { S: ['social_operation.refunded'] },
            metadata: { M: { attempts: { S: [{ prefix: '' }] } } },
          },
        },
      },
    ]);
  });

  it('may put, update, get (the alerts: settings a batch at once) and query on the table, read the stream, send to its on-failure queue and the webhooks queue, and nothing else', () => {
    expect(dynamoStatements(streamFunctionId).map((statement) => [statement.Action, statement.Resource])).toEqual([
      [['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'], tableArn],
      ['dynamodb:ListStreams', '*'],
      [['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], { 'Fn::GetAtt': [tableId, 'StreamArn'] }],
    ]);
    const sqs = otherStatements(streamFunctionId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('sqs:')));
    expect(sqs.map((statement) => [actionsOf(statement).sort(), statement.Resource])).toEqual([
      [['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], { 'Fn::GetAtt': [onFailureId, 'Arn'] }],
      [['sqs:SendMessage'], webhooksQueueArn],
    ]);
    const variables = resource(template, streamFunctionId).Properties.Environment.Variables;
    // Stripe's key (auto-recharge's payments) through the Parameters and Secrets extension.
    expect(
      Object.keys(variables)
        .filter((name) => !/^(PARAMETERS_SECRETS_EXTENSION|SECRETS_MANAGER|SSM_PARAMETER_STORE)_/.test(name))
        .sort(),
    ).toEqual([
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
      'STRIPE_SECRET_KEY_SECRET_ARN',
      'TABLE_NAME',
      'WEBHOOKS_QUEUE_URL',
    ]);
  });

  it('alarms on the iterator age (usage falling behind), on a batch given up on, and on the function failing', () => {
    expect(alarms.filter((alarm) => alarm.MetricName === 'IteratorAge')).toEqual([
      expect.objectContaining({
        Namespace: 'AWS/Lambda',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: streamFunctionId } }],
        Statistic: 'Maximum',
        Threshold: 60_000,
      }),
    ]);
    expect(
      alarms.filter(
        (alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible' && JSON.stringify(alarm.Dimensions).includes(onFailureId),
      ),
    ).toEqual([expect.objectContaining({ Namespace: 'AWS/SQS', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' })]);
    expect(alarmsReading(template, streamFunctionId, 'Errors')).toHaveLength(1);
    expect(alarmsReading(template, streamFunctionId, 'Throttles')).toHaveLength(1);
  });
});

describe('jobs: the recovery of stalled jobs', () => {
  const queueId = queueOf('Jobs', 'Queue');
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);

  it('is invoked by its own EventBridge rule every minute, and a failed run is not retried on top of the next one', () => {
    const rules = ofType(template, 'AWS::Events::Rule').filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(recoveryId));

    expect(rules).toHaveLength(1);
    expect(rules[0]![1].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [{ Arn: { 'Fn::GetAtt': [recoveryId, 'Arn'] } }],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [recoveryId, 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [rules[0]![0], 'Arn'] },
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: recoveryId }, MaximumRetryAttempts: 0 });
    expect(resource(template, recoveryId).Properties).toMatchObject({ Handler: 'index.handler', Runtime: 'nodejs22.x', Timeout: 50 });
  });

  it('takes a job for stalled well after its creating function timed out, and holds it longer than a run of the recovery lasts', () => {
    expect(DEFAULTS.jobStalledAfterSeconds).toBeGreaterThanOrEqual(MIN_JOB_STALLED_AFTER_SECONDS);
    expect(MIN_JOB_STALLED_AFTER_SECONDS).toBeGreaterThanOrEqual(2 * FUNCTION_TIMEOUT_SECONDS);
    // The hold on a job is the threshold: a recovery killed at its timeout is taken over only after it.
    expect(MIN_JOB_STALLED_AFTER_SECONDS).toBeGreaterThan(JOB_RECOVERY_TIMEOUT.toSeconds());
  });

  it('may query, read, update and delete on the table only (no index, no put, no scan), send to the two queues, and nothing else', () => {
    expect(dynamoStatements(recoveryId).map((statement) => [statement.Action, statement.Resource])).toEqual([
      [['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], tableArn],
    ]);
    const logGroup = resource(template, recoveryId).Properties.LoggingConfig.LogGroup;
    const others = otherStatements(recoveryId);
    const byAction = (statement: Statement) => JSON.stringify(statement.Action);
    expect(others.sort((a, b) => byAction(a).localeCompare(byAction(b)) || JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: webhooksQueueArn },
      { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroup.Ref, 'Arn'] } },
      { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' },
    ]);
  });

  it('gets the table, the queue and the telemetry settings, nothing of the API (no JWT, no provider)', () => {
    const variables = resource(template, recoveryId).Properties.Environment.Variables;

    expect(Object.keys(variables).sort()).toEqual([
      'JOBS_QUEUE_URL',
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
      'TABLE_NAME',
      'WEBHOOKS_QUEUE_URL',
    ]);
    expect(variables).toMatchObject({ TABLE_NAME: { Ref: tableId }, JOBS_QUEUE_URL: { Ref: queueId } });
  });

  it('alarms when it found a stalled job, when it fails, and when it stops running', () => {
    const onRecovery = (metricName: string) =>
      alarms.filter((alarm) => alarm.MetricName === metricName && JSON.stringify(alarm.Dimensions).includes(`"Ref":"${recoveryId}"`));

    expect(alarms.filter((alarm) => alarm.MetricName === 'StalledJobs')).toEqual([
      expect.objectContaining({
        Namespace: 'WorkspaceService',
        Dimensions: [{ Name: 'service', Value: 'workspace-service' }],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    ]);
    expect(onRecovery('Invocations')).toEqual([
      expect.objectContaining({ Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'LessThanThreshold', TreatMissingData: 'breaching' }),
    ]);
    expect(alarmsReading(template, recoveryId, 'Errors')).toHaveLength(1);
    expect(alarmsReading(template, recoveryId, 'Throttles')).toHaveLength(1);
  });
});

describe('cdk-nag', () => {
  it('finds nothing unacknowledged in the AwsSolutions pack', () => {
    expect(nagReport).toBeUndefined();
  });
});

describe('the user pool option (-c userPool=true)', () => {
  const pooled = withOptions;
  const [poolId, pool] = ofType(pooled.template, 'AWS::Cognito::UserPool')[0] ?? [];
  const [clientId, client] = ofType(pooled.template, 'AWS::Cognito::UserPoolClient')[0] ?? [];

  it('creates one user pool with production defaults, kept on delete, and cdk-nag stays clean', () => {
    expect(ofType(pooled.template, 'AWS::Cognito::UserPool')).toHaveLength(1);
    expect(pool?.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'OPTIONAL',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      DeletionProtection: 'ACTIVE',
      UsernameAttributes: ['email'],
      Policies: { PasswordPolicy: expect.objectContaining({ MinimumLength: 12 }) },
    });
    expect(pool?.DeletionPolicy).toBe('Retain');
    expect(pooled.nagReport).toBeUndefined();
  });

  it('creates one public app client for password sign-in from the CLI and SRP from apps', () => {
    expect(client?.Properties).toMatchObject({
      UserPoolId: { Ref: poolId },
      GenerateSecret: false,
      ExplicitAuthFlows: expect.arrayContaining(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']),
    });
  });

  it('wires its issuer, JWKS and client id into every function, and asks for no JWT parameter', () => {
    const issuer = { 'Fn::GetAtt': [poolId, 'ProviderURL'] };
    const trusting = ofType(pooled.template, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment?.Variables?.JWT_ISSUER);
    // Every route's function, the variant's extra routes' included (the sweeper reads no token).
    expect(trusting.length).toBe(routes.length + EXTRA_ROUTES.length);
    for (const [, fn] of trusting) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        JWT_ISSUER: issuer,
        JWT_JWKS_URI: { 'Fn::Join': ['', [issuer, '/.well-known/jwks.json']] },
        JWT_AUDIENCE: { Ref: clientId },
        JWT_CLIENT_IDS: { Ref: clientId },
      });
    }
    expect(Object.keys(pooled.template.toJSON().Parameters)).not.toContain('JwtIssuer');
    expect(pooled.template.toJSON().Outputs).toMatchObject({
      UserPoolId: { Value: { Ref: poolId } },
      UserPoolClientId: { Value: { Ref: clientId } },
      AcceptedIssuer: { Value: issuer },
    });
  });

  it("signs people into the console: the hosted UI's domain, and the app client's code flow (PKCE, no secret) calling back to /console", () => {
    const [domainId, domain] = ofType(pooled.template, 'AWS::Cognito::UserPoolDomain')[0] ?? [];
    expect(domain?.Properties.UserPoolId).toEqual({ Ref: poolId });
    expect(JSON.stringify(domain?.Properties.Domain)).toContain('AWS::StackId');
    const consoleUrl = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^Api/), 'ApiEndpoint'] }, '/console']] };
    expect(client?.Properties).toMatchObject({
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      CallbackURLs: [
        consoleUrl,
        { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^Api/), 'ApiEndpoint'] }, '/oauth/authorize']] },
      ],
      LogoutURLs: [consoleUrl],
      SupportedIdentityProviders: ['COGNITO'],
    });
    // Only the console's page and the OAuth consent screen learn the hosted UI and its client (lib/config.ts consoleHostedUi).
    for (const name of ['GetConsolePage', 'OAuthAuthorize']) {
      const fn = resource(pooled.template, functionOf(pooled.template, routes.find((route) => route.name === name)!));
      expect(fn.Properties.Environment.Variables).toMatchObject({
        CONSOLE_HOSTED_UI_URL: {
          'Fn::Join': ['', ['https://', { Ref: domainId }, '.auth.', { Ref: 'AWS::Region' }, '.amazoncognito.com']],
        },
        CONSOLE_CLIENT_ID: { Ref: clientId },
      });
    }
    const told = ofType(pooled.template, 'AWS::Lambda::Function').filter(
      ([, fn]) => fn.Properties.Environment?.Variables?.CONSOLE_CLIENT_ID,
    );
    expect(told).toHaveLength(2);
  });

  it('lets anyone sign up only when asked (-c selfSignUp=true)', () => {
    // The pool alone, in a stack of its own: the option changes nothing outside it.
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
    const stack = new Stack(app, 'OpenPool');
    new ServiceUserPool(stack, 'Identity', {
      selfSignUp: true,
      consoleUrl: 'https://api.test/console',
      consentUrl: 'https://api.test/oauth/authorize',
    });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
    const open = Template.fromJSON(app.synth().getStackByName(stack.stackName).template);
    expect(ofType(open, 'AWS::Cognito::UserPool')[0]?.[1].Properties.AdminCreateUserConfig).toEqual({
      AllowAdminCreateUserOnly: false,
    });
  });

  it('keeps the existing issuer as the default path: its parameters, and no user pool', () => {
    expect(ofType(template, 'AWS::Cognito::UserPool')).toEqual([]);
    expect(Object.keys(template.toJSON().Parameters)).toEqual(
      expect.arrayContaining(['JwtIssuer', 'JwtAudience', 'JwtClientIds', 'JwtJwksUri']),
    );
  });
});

describe('the console', () => {
  const keys = () => ofType(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => String(route.Properties.RouteKey));

  it('is served by the stack (its page and files), and no route of the local server is: not the demo users', () => {
    expect(keys()).toEqual(expect.arrayContaining(['GET /console', 'GET /console/{asset}']));
    expect(keys().filter((key) => /local-idp|demo/i.test(key))).toEqual([]);
    // Without the user pool, the console offers no hosted sign-in.
    const page = resource(template, functionOf(template, routes.find((route) => route.name === 'GetConsolePage')!));
    expect(page.Properties.Environment.Variables.CONSOLE_HOSTED_UI_URL).toBeUndefined();
    expect(template.toJSON().Outputs.ConsoleUrl.Value).toEqual({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^Api/), 'ApiEndpoint'] }, '/console']],
    });
  });
});

describe('email (invitations)', () => {
  it('lets only the functions that send email call ses:SendEmail, and only from the stack parameter InvitationFromAddress', () => {
    const sesStatements = (policy: { Properties: Record<string, any> }): { Action: unknown }[] =>
      policy.Properties.PolicyDocument.Statement.filter((statement: { Action: unknown }) =>
        [statement.Action].flat().some((action) => String(action).startsWith('ses:')),
      );
    const senders = ofType(template, 'AWS::IAM::Policy').filter(([, policy]) => sesStatements(policy).length > 0);
    const sending = routes.filter((route) => route.sendsEmail);
    expect(sending.map((route) => route.name)).toEqual(['CreateInvitation', 'ResendInvitation']);
    expect(senders).toHaveLength(sending.length);
    for (const [, sender] of senders) {
      const [statement, ...more] = sesStatements(sender);
      expect(more).toEqual([]);
      expect(statement).toMatchObject({
        Action: 'ses:SendEmail',
        Effect: 'Allow',
        Condition: { StringEquals: { 'ses:FromAddress': expect.anything() } },
      });
      expect(JSON.stringify(statement)).toContain(':identity/*');
    }
    expect(template.toJSON().Parameters.InvitationFromAddress).toMatchObject({ Type: 'String', Default: '' });
    for (const route of sending) {
      expect(resource(template, functionOf(template, route)).Properties.Environment.Variables.INVITATION_FROM_ADDRESS).toBeDefined();
    }
  });
});

describe('the API-key signing key', () => {
  it('is an RSA key for signing that KMS keeps (retained), usable by the key-issuing functions alone (API keys, OAuth tokens)', () => {
    const [id, key] = defined(ofType(template, 'AWS::KMS::Key')[0], 'the signing key');
    expect(ofType(template, 'AWS::KMS::Key')).toHaveLength(1);
    expect(key.Properties).toMatchObject({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' });
    expect(key).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    const signers = ofType(template, 'AWS::IAM::Policy').filter(([, policy]) =>
      policy.Properties.PolicyDocument.Statement.some((statement: { Action: unknown }) =>
        [statement.Action].flat().some((action) => String(action).startsWith('kms:')),
      ),
    );
    const issuing = routes.filter((route) => route.signsApiKeys);
    expect(issuing.map((route) => route.name)).toEqual(['CreateApiKey', 'OAuthToken']);
    expect(signers).toHaveLength(issuing.length);
    for (const [, signer] of signers) {
      const kmsStatements = signer.Properties.PolicyDocument.Statement.filter((statement: { Action: unknown }) =>
        [statement.Action].flat().some((action) => String(action).startsWith('kms:')),
      );
      expect(kmsStatements).toEqual([
        { Action: ['kms:Sign', 'kms:GetPublicKey'], Effect: 'Allow', Resource: { 'Fn::GetAtt': [id, 'Arn'] } },
      ]);
    }
    for (const route of issuing) {
      const issuer = resource(template, functionOf(template, route));
      expect(issuer.Properties.Environment.Variables.API_KEY_KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [id, 'Arn'] });
    }
  });
});

describe('webhooks: a queue, a dead-letter queue and a delivery function of their own', () => {
  const queueId = queueOf('Webhooks', 'Queue');
  const dlqId = queueOf('Webhooks', 'DeadLetterQueue');
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const sqsStatements = (functionId: string) =>
    statementsOf(template, functionId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('sqs:')));

  it('is an encrypted queue with a dead-letter queue after 5 receives, apart from the jobs queue', () => {
    expect(resource(template, queueId).Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(resource(template, dlqId).Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    expect(resource(template, deliveryId).Properties).toMatchObject({ Handler: 'index.handler', Runtime: 'nodejs22.x', Timeout: 30 });
  });

  it("ends an attempt before its message could come back: the webhook timeout and the writes' reserve within the function's timeout, within the visibility", () => {
    expect(DEFAULTS.webhookTimeoutMs + 5_000).toBeLessThanOrEqual(DELIVER_WEBHOOKS_TIMEOUT.toMilliseconds());
    expect(DELIVER_WEBHOOKS_TIMEOUT.toSeconds()).toBeLessThan(WEBHOOKS_VISIBILITY_TIMEOUT.toSeconds());
  });

  it('feeds the delivery function in batches of 10 with partial batch failures, at most 20 invocations at once', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: deliveryId },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 20 },
    });
  });

  it('lets the functions that end a job (the cancel route, the worker, the recovery), the test event route and the delivery function send; only the delivery function receive', () => {
    const senders = routes.filter((route) => route.sendsWebhooks).map((route) => route.name);
    expect(senders).toEqual(['CancelSocialJob', 'TestWebhook']);
    for (const route of routes) {
      const statements = sqsStatements(functionOf(template, route)).filter(
        (statement) => JSON.stringify(statement.Resource) === JSON.stringify(webhooksQueueArn),
      );
      expect(statements).toEqual(route.sendsWebhooks ? [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: webhooksQueueArn }] : []);
    }
    const delivery = sqsStatements(deliveryId);
    expect(delivery.every((statement) => JSON.stringify(statement.Resource) === JSON.stringify(webhooksQueueArn))).toBe(true);
    expect(delivery.flatMap(actionsOf).sort()).toEqual(
      [
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ].sort(),
    );
    const receivers = ofType(template, 'AWS::IAM::Policy').filter(([, policy]) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).some(
        (statement) =>
          actionsOf(statement).includes('sqs:ReceiveMessage') && JSON.stringify(statement.Resource) === JSON.stringify(webhooksQueueArn),
      ),
    );
    expect(receivers).toHaveLength(1);
  });

  it('may read and update on the table only, and gets the table, its queue and the telemetry settings', () => {
    expect(dynamoStatements(deliveryId).map((statement) => [statement.Action, statement.Resource])).toEqual([
      [['dynamodb:GetItem', 'dynamodb:UpdateItem'], tableArn],
    ]);
    const variables = resource(template, deliveryId).Properties.Environment.Variables;
    expect(Object.keys(variables).sort()).toEqual([
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
      'TABLE_NAME',
      'WEBHOOKS_QUEUE_URL',
    ]);
    expect(variables).toMatchObject({ TABLE_NAME: { Ref: tableId }, WEBHOOKS_QUEUE_URL: { Ref: queueId } });
  });

  it('alarms on a message in its dead-letter queue, on a message waiting more than 15 minutes, and on the function failing', () => {
    const onQueue = (metricName: string, id: string) =>
      alarms.filter((alarm) => alarm.MetricName === metricName && JSON.stringify(alarm.Dimensions).includes(`"${id}"`));
    expect(onQueue('ApproximateNumberOfMessagesVisible', dlqId)).toEqual([expect.objectContaining({ Threshold: 1 })]);
    expect(onQueue('ApproximateAgeOfOldestMessage', queueId)).toEqual([expect.objectContaining({ Threshold: 900, Statistic: 'Maximum' })]);
    expect(alarmsReading(template, deliveryId, 'Errors')).toHaveLength(1);
    expect(alarmsReading(template, deliveryId, 'Throttles')).toHaveLength(1);
  });

  it('alarms on a single delivery given up on after its last attempt, from the metric the delivery writes', () => {
    expect(alarms.filter((alarm) => alarm.MetricName === 'WebhookDeliveriesFailed')).toEqual([
      expect.objectContaining({
        Namespace: 'WorkspaceService',
        Dimensions: [{ Name: 'service', Value: 'workspace-service' }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: ofType(template, 'AWS::SNS::Topic')[0]![0] }],
        OKActions: [{ Ref: ofType(template, 'AWS::SNS::Topic')[0]![0] }],
      }),
    ]);
  });
});
