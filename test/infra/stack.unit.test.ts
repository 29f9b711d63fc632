/**
 * The synthesized stack, as a specification: every route of the route table reaches its own
 * function, each function may do exactly what its route declares, the table keeps its data, the
 * alarms exist, and cdk-nag (AwsSolutions) finds nothing left unacknowledged.
 * Two synths for the whole file (each about 2 CPU-s): the stack as `cdk deploy` makes it by
 * default, and one with every option on at once (an extra route, the extension layer, the user
 * pool). Self sign-up, the one option that changes nothing but the pool, is checked on the pool alone.
 * Bundling is skipped here (the bundle tests and `npm run bundle:report` build the code).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ServiceUserPool } from '../../infra/identity.ts';
import { JOB_RECOVERY_TIMEOUT } from '../../infra/jobs.ts';
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
import { type Route, routes, tableActionsOf } from '../../lib/routes.ts';
import { actionsOf, allStatements, functionOf, ofType, resource, type Statement, statementsOf, wildcardDynamoActions } from './template.ts';

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
  const template = Template.fromJSON(JSON.parse(readFileSync(join(outdir, stack.templateFile), 'utf8')));
  rmSync(outdir, { recursive: true, force: true });
  return { template, nagReport };
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

const { template, nagReport } = synth(routes);
const tableId = ofType(template, 'AWS::DynamoDB::Table')[0]![0];
const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
const kmsKeyId = () => ofType(template, 'AWS::KMS::Key')[0]?.[0];
const sweeperId = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
  String(fn.Properties.Description).includes('(functions/sweep-charges.ts)'),
)![0];
const workerId = ofType(template, 'AWS::Lambda::Function').find(([, fn]) =>
  String(fn.Properties.Description).includes('(functions/job-worker.ts)'),
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
const onTheTable = (statement: Statement) => actionsOf(statement).some((action) => action.startsWith('dynamodb:'));
const dynamoStatements = (functionId: string) => statementsOf(template, functionId).filter(onTheTable);
/** A function's grants beyond DynamoDB (its logs, X-Ray, a queue). */
const otherStatements = (functionId: string) => statementsOf(template, functionId).filter((statement) => !onTheTable(statement));

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

  it('has one function and one API route per route of the table, and no others but the charge sweeper, the job worker, the job recovery, the webhook delivery and the table stream', () => {
    const invoked = new Set(routes.map((route) => functionOf(template, route)));

    expect(invoked.size).toBe(routes.length);
    expect(new Set([sweeperId, workerId, recoveryId, deliveryId, streamFunctionId]).size).toBe(5);
    expect(ofType(template, 'AWS::Lambda::Function').map(([id]) => id)).toEqual(
      expect.arrayContaining([...invoked, sweeperId, workerId, recoveryId, deliveryId, streamFunctionId]),
    );
    expect(ofType(template, 'AWS::Lambda::Function')).toHaveLength(routes.length + 5);
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
          'PROVIDER_TIMEOUT_MS',
          'POWERTOOLS_SERVICE_NAME',
          'POWERTOOLS_METRICS_NAMESPACE',
          'POWERTOOLS_LOG_LEVEL',
          ...((route.secrets ?? []).includes('providerApiKey') ? ['SCRAPECREATORS_API_KEY_SECRET_ARN', ...EXTENSION_SETTINGS] : []),
          ...((route.secrets ?? []).includes('cursorSigningKey') ? ['CURSOR_SIGNING_KEY'] : []),
          ...(route.signsApiKeys ? ['API_KEY_KMS_KEY_ID'] : []),
          ...(route.sendsJobs ? ['JOBS_QUEUE_URL'] : []),
          ...(route.sendsWebhooks ? ['WEBHOOKS_QUEUE_URL'] : []),
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
 * The second synth: every option at once, since none of them touches what another one sets. An
 * extra route that reads the provider key, the extension layer named by -c secretsExtensionArn,
 * and the user pool of -c userPool=true.
 */
const EXTENSION_ARN = 'arn:aws:lambda:ap-south-2:123456789012:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12';
const EXTRA_ROUTE: Route = {
  name: 'NeedsSecretAndIndex',
  method: 'POST',
  path: '/test-only/{thing}',
  entry: 'functions/route-not-found.ts',
  tableActions: ['dynamodb:GetItem'],
  secrets: ['providerApiKey'],
  ...TEST_ONLY,
};
const withOptions = synth([...routes, EXTRA_ROUTE], { secretsExtensionArn: EXTENSION_ARN, userPool: {} });

describe('a route that reads the provider key', () => {
  const extra = EXTRA_ROUTE;
  const variant = withOptions.template;
  const secretId = ofType(variant, 'AWS::SecretsManager::Secret')[0]![0];
  const secretReaders = (t: Template) =>
    ofType(t, 'AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.PolicyDocument).includes(`"Ref":"${secretId}"`))
      .map(([, policy]) => policy.Properties.Roles);

  it('gets read access to that secret and its ARN; functions that do not declare it do not', () => {
    const functionId = functionOf(variant, extra);
    const roleId = resource(variant, functionId).Properties.Role['Fn::GetAtt'][0];
    const declaring = routes.filter((route) => route.secrets?.includes('providerApiKey'));
    const roleOf = (t: Template, route: Route) => ({ Ref: resource(t, functionOf(t, route)).Properties.Role['Fn::GetAtt'][0] });

    expect(secretReaders(variant)).toEqual(expect.arrayContaining([[{ Ref: roleId }]]));
    // The declaring routes, the variant's extra route and the job worker.
    expect(secretReaders(variant)).toHaveLength(declaring.length + 2);
    expect(resource(variant, functionId).Properties.Environment.Variables.SCRAPECREATORS_API_KEY_SECRET_ARN).toEqual({ Ref: secretId });
    // … and the job worker, which runs items as a run does.
    const workerRole = { Ref: resource(template, workerId).Properties.Role['Fn::GetAtt'][0] };
    expect(secretReaders(template)).toEqual(expect.arrayContaining([...declaring.map((route) => [roleOf(template, route)]), [workerRole]]));
    expect(secretReaders(template)).toHaveLength(declaring.length + 1);
  });
});

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
    for (const route of [...routes, EXTRA_ROUTE].filter((candidate) => candidate.secrets?.includes('providerApiKey'))) {
      expect(resource(named.template, functionOf(named.template, route)).Properties.Layers).toEqual([arn]);
    }
  });

  it('is read through the Parameters and Secrets extension: its arm64 layer, from the map of its ARNs by region that CDK keeps, on exactly the functions that read the key', () => {
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
      const reads = (route.secrets ?? []).includes('providerApiKey');
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
    const [cursorKeyId] = secretNamed(template, 'CursorSigningKey');

    expect(ofType(template, 'AWS::SecretsManager::Secret')).toHaveLength(2);
    expect(secret.Properties).not.toHaveProperty('SecretString');
    expect(secret.Properties).toHaveProperty('GenerateSecretString');
    expect(secret).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(Object.keys(template.toJSON().Parameters).filter((name) => /key|secret|token/i.test(name))).toEqual([]);
    for (const [, fn] of ofType(template, 'AWS::Lambda::Function')) {
      const variables: Record<string, unknown> = fn.Properties.Environment.Variables;
      for (const [name, value] of Object.entries(variables)) {
        if (/KEY|SECRET|TOKEN/.test(name) && name !== 'CURSOR_SIGNING_KEY' && !EXTENSION_SETTINGS.includes(name)) {
          expect([name, value]).toEqual(
            name === 'API_KEY_KMS_KEY_ID'
              ? [name, { 'Fn::GetAtt': [kmsKeyId(), 'Arn'] }]
              : ['SCRAPECREATORS_API_KEY_SECRET_ARN', { Ref: secretId }],
          );
        }
      }
    }
    expect(cursorKeyId).not.toBe(secretId);
  });
});

describe('the billing-event cursor key', () => {
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
      'ListBillingEvents',
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

    // One per function (the routes', the sweeper's, the job worker's, the job recovery's, the delivery's and the table stream's) and the API's access log.
    expect(groups).toHaveLength(routes.length + 6);
    for (const [, group] of groups) expect(group.Properties.RetentionInDays).toEqual({ Ref: 'LogRetentionDays' });
  });

  it('takes the JWT and provider settings as parameters, the provider defaulting to http', () => {
    template.hasParameter('JwtIssuer', { Type: 'String' });
    template.hasParameter('JwtAudience', { Type: 'String' });
    template.hasParameter('JwtJwksUri', { Type: 'String', AllowedPattern: '^https://.+' });
    template.hasParameter('SocialProvider', { Type: 'String', Default: 'http', AllowedValues: ['http', 'sample'] });
    template.hasParameter('ScrapeCreatorsBaseUrl', { Type: 'String', Default: 'https://api.scrapecreators.com' });
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

  it.each(routes.map((route) => [route.name, route] as const))('watches errors and throttles of %s', (_, route) => {
    const functionId = functionOf(template, route);
    const on = (metricName: string) =>
      alarms.filter((alarm) => alarm.MetricName === metricName && JSON.stringify(alarm.Dimensions).includes(`"Ref":"${functionId}"`));

    expect(on('Errors')).toHaveLength(1);
    expect(on('Throttles')).toHaveLength(1);
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
    // 5xx rate, errors and throttles of each function (the sweeper's, the worker's, the
    // recovery's, the delivery's and the table stream's too), DynamoDB throttles, refund failures,
    // provider failure rate, 401 and 429 spikes, the sweeper's three, the jobs queue's two, the
    // recovery's two, the webhooks queue's two and its failed deliveries, the table stream's two.
    expect(alarms.length).toBe(1 + 2 * (routes.length + 5) + 1 + 4 + 3 + 2 + 2 + 3 + 2);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
    }
  });
});

describe('the dashboard', () => {
  const dashboards = ofType(template, 'AWS::CloudWatch::Dashboard');
  /** The dashboard body with every reference (API id, region, alarm ARNs) as "<ref>". */
  const body = JSON.parse(
    (dashboards[0]![1].Properties.DashboardBody['Fn::Join'][1] as unknown[])
      .map((part) => (typeof part === 'string' ? part : '<ref>'))
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
});

describe('the charge sweeper', () => {
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
  const sweeperAlarm = (metricName: string) => alarms.filter((alarm) => alarm.MetricName === metricName);

  it('is invoked by an EventBridge rule every minute, and a failed sweep is not retried on top of the next one', () => {
    const rules = ofType(template, 'AWS::Events::Rule').filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(sweeperId));

    expect(ofType(template, 'AWS::Events::Rule')).toHaveLength(2);
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

  it('may query the sweep index and refund (update, put, delete) on the table, and nothing else', () => {
    const statements = dynamoStatements(sweeperId);

    expect(statements.map((statement) => [statement.Action, statement.Resource])).toEqual([
      [['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'], tableArn],
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
    expect(onSweeper('Errors')).toHaveLength(1);
    expect(onSweeper('Throttles')).toHaveLength(1);
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
      [['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem'], tableArn],
    ]);
    const variables = resource(template, workerId).Properties.Environment.Variables;
    expect(variables).toMatchObject({
      WEBHOOKS_QUEUE_URL: { Ref: queueOf('Webhooks', 'Queue') },
      TABLE_NAME: { Ref: tableId },
      SOCIAL_PROVIDER: { Ref: 'SocialProvider' },
    });
    expect(variables.JOBS_QUEUE_URL).toBeUndefined();
    expect(variables.SCRAPECREATORS_API_KEY_SECRET_ARN).toBeDefined();
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
    const onWorker = (metricName: string) =>
      ofType(template, 'AWS::CloudWatch::Alarm')
        .map(([, alarm]) => alarm.Properties)
        .filter((alarm) => alarm.MetricName === metricName && JSON.stringify(alarm.Dimensions).includes(`"Ref":"${workerId}"`));
    expect(onWorker('Errors')).toHaveLength(1);
    expect(onWorker('Throttles')).toHaveLength(1);
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
    expect(Object.keys(variables).sort()).toEqual([
      'POWERTOOLS_LOG_LEVEL',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
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
    const onFunction = (metricName: string) =>
      alarms.filter((alarm) => alarm.MetricName === metricName && JSON.stringify(alarm.Dimensions).includes(`"Ref":"${streamFunctionId}"`));
    expect(onFunction('Errors')).toHaveLength(1);
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
    expect(onRecovery('Errors')).toHaveLength(1);
    expect(onRecovery('Throttles')).toHaveLength(1);
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
    // Every route's function, the variant's extra route's included (the sweeper reads no token).
    expect(trusting.length).toBe(routes.length + 1);
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
    const onDelivery = (metricName: string) =>
      alarms.filter((alarm) => alarm.MetricName === metricName && JSON.stringify(alarm.Dimensions).includes(`"Ref":"${deliveryId}"`));
    expect(onDelivery('Errors')).toHaveLength(1);
    expect(onDelivery('Throttles')).toHaveLength(1);
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
