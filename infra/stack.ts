import {
  Aws,
  CfnCondition,
  CfnOutput,
  CfnParameter,
  CfnRule,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type CfnApi, HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { ParamsAndSecretsLayerVersion, ParamsAndSecretsLogLevel, ParamsAndSecretsVersions } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { STREAM_CONSUMERS } from '../functions/table-stream.ts';
import { DEFAULTS, METRICS_NAMESPACE, SERVICE_NAME } from '../lib/config.ts';
import { table as tableDefinition } from '../lib/db/table.ts';
import { CORS_POLICY } from '../lib/http/cors.ts';
import { FUNCTION_TIMEOUT_SECONDS, type Route, type RouteSecret, routeKey, routes, tableActionsOf } from '../lib/routes.ts';
import { Alarms } from './alarms.ts';
import { ServiceDashboard } from './dashboard.ts';
import { bundledFunction, functionRole } from './function.ts';
import { type IdentityOptions, type JwtSettings, ServiceUserPool } from './identity.ts';
import { Jobs } from './jobs.ts';
import { ServiceMetrics } from './metrics.ts';
import { ChargeSweeper } from './sweeper.ts';
import { TableStream } from './table-stream.ts';
import { Webhooks } from './webhooks.ts';

export { FUNCTION_TIMEOUT_SECONDS } from '../lib/routes.ts';
export { copyAssetsCommands } from './function.ts';

/** The longest provider call the stack accepts: leaves the run 5 s for its reads, charge and refund. */
export const PROVIDER_TIMEOUT_MAX_MS = 20_000;

/**
 * The AWS Parameters and Secrets Lambda Extension, for the functions that read the provider key
 * (lib/social/providers/secret.ts): the value is kept 300 s (its default and maximum), so a key
 * put in Secrets Manager reaches new instances within 5 minutes; only warnings are logged. By
 * default CDK maps each region to AWS's published ARN of the arm64 layer; `layerArn` names one
 * (a region, or a newer version, that CDK's map lacks).
 */
function providerKeyExtension(layerArn: string | undefined): ParamsAndSecretsLayerVersion {
  const options = { logLevel: ParamsAndSecretsLogLevel.WARN };
  return layerArn
    ? ParamsAndSecretsLayerVersion.fromVersionArn(layerArn, options)
    : ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, options);
}

/** CloudWatch Logs' accepted retention periods, offered as the parameter's allowed values. */
const RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

export interface WorkspaceServiceStackProps extends StackProps {
  /** Bundle the Powertools Tracer (X-Ray subsegments per DynamoDB call); costs cold start. */
  tracer?: boolean;
  /** The route table; the tests pass variants of it. */
  routes?: readonly Route[];
  /**
   * Create a Cognito user pool and app client for the API (infra/identity.ts) instead of taking
   * an existing issuer's settings as parameters. `selfSignUp` lets anyone sign up.
   */
  userPool?: false | IdentityOptions;
  /** The Parameters and Secrets extension's layer ARN, instead of CDK's map by region (`-c secretsExtensionArn=…`). */
  secretsExtensionArn?: string;
}

/**
 * The Workspace Service in one stack: the table, one function per route of the route table,
 * an HTTP API in front, and the alarms. Environment-agnostic (no lookups): `cdk synth` needs no
 * credentials and no network. Every decision is explained in docs/deployment.md.
 */
export class WorkspaceServiceStack extends Stack {
  readonly api: HttpApi;
  readonly table: Table;
  readonly functions = new Map<string, NodejsFunction>();
  /** The charge sweeper (scheduled, not a route). */
  readonly sweeper: NodejsFunction;
  /** The jobs queue, its dead-letter queue and worker (not a route). */
  readonly jobs: Jobs;
  readonly webhooks: Webhooks;
  /** The table's change stream, its function and on-failure queue (not a route). */
  readonly tableStream: TableStream;

  constructor(scope: Construct, id: string, props: WorkspaceServiceStackProps = {}) {
    super(scope, id, props);
    const param = this.parameters();
    this.api = new HttpApi(this, 'Api', {
      description: 'Workspace Service',
      createDefaultStage: false,
    });
    // The console's page (GET /console) and the OAuth consent screen are the user pool's app client's callbacks.
    const identity = props.userPool
      ? new ServiceUserPool(this, 'Identity', {
          ...props.userPool,
          consoleUrl: `${this.api.apiEndpoint}/console`,
          consentUrl: `${this.api.apiEndpoint}/oauth/authorize`,
        })
      : undefined;
    const jwt = identity?.jwt ?? this.jwtParameters();

    // The table, from the shared definition (the same one DynamoDB Local and the tests use).
    // Deletion protection and RETAIN: a `cdk destroy` or a replacement never loses the data.
    this.table = new Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      stream: StreamViewType[tableDefinition.stream.viewType],
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
      });
    }

    // Created empty (a random placeholder): ops put the real key in after the first deploy, so
    // it never appears in a template, a parameter or a shell history of `cdk deploy`.
    const providerApiKey = new Secret(this, 'ProviderApiKey', {
      description: 'ScrapeCreators API key for the social operations provider (set the value after the first deploy)',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(providerApiKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: "A third-party vendor's API key: no Lambda can rotate it; it is rotated by hand (docs/deployment.md).",
    });
    // Generated once and never shown: it only signs paging cursors, so losing or rotating
    // it invalidates the cursors in flight and nothing else (docs/deployment.md).
    const cursorSigningKey = new Secret(this, 'CursorSigningKey', {
      description: 'HMAC key of paging cursors (generated; rotate by putting a new value and redeploying)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(cursorSigningKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'It signs paging cursors only; a new value takes effect at the next deploy and merely restarts walks in flight.',
    });
    const secrets: Record<RouteSecret, Secret> = { providerApiKey, cursorSigningKey };

    const environment: Record<string, string> = {
      TABLE_NAME: this.table.tableName,
      JWT_ISSUER: jwt.issuer,
      JWT_AUDIENCE: jwt.audience,
      JWT_CLIENT_IDS: jwt.clientIds,
      JWT_JWKS_URI: jwt.jwksUri,
      RATE_LIMIT_REQUESTS: param.rateLimitRequests.valueAsString,
      RATE_LIMIT_WINDOW_SECONDS: param.rateLimitWindowSeconds.valueAsString,
      RESTORE_WINDOW_DAYS: param.restoreWindowDays.valueAsString,
      SOCIAL_PROVIDER: param.socialProvider.valueAsString,
      SCRAPECREATORS_BASE_URL: param.scrapeCreatorsBaseUrl.valueAsString,
      PROVIDER_TIMEOUT_MS: param.providerTimeoutMs.valueAsString,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      POWERTOOLS_LOG_LEVEL: param.logLevel.valueAsString,
      CORS_ALLOWED_ORIGINS: param.corsAllowedOrigins.valueAsString,
      CREDITS_HELP: param.creditsHelp.valueAsString,
    };
    const retention = param.logRetentionDays.valueAsNumber as RetentionDays;

    this.corsFor(param.corsAllowedOrigins);
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', { retention });
    const stage = new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      // A coarse guard for the whole API in front of the per-caller limit the functions enforce.
      throttle: { rateLimit: param.throttleRateLimit.valueAsNumber, burstLimit: param.throttleBurstLimit.valueAsNumber },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: accessLogFormat() },
    });

    // API keys are JWTs this key signs; its private half never leaves KMS. Only the key-issuing
    // function may sign (routeFunction); every verifier reads the public half from the table,
    // where that function publishes it. Kept on stack deletion: without it, no key verifies.
    // Rotation: docs/authentication.md.
    const apiKeySigningKey = new Key(this, 'ApiKeySigningKey', {
      description: "Signs the Workspace Service's API keys (RS256)",
      keySpec: KeySpec.RSA_2048,
      keyUsage: KeyUsage.SIGN_VERIFY,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Not routes: the jobs queue's event source invokes the worker, which runs items as a run does;
    // EventBridge invokes the recovery of stalled jobs every minute.
    this.jobs = new Jobs(this, 'Jobs', {
      table: this.table,
      // What a run reads: the table, the provider, the 402's advice, telemetry; no JWT (no token comes with a message).
      environment: Object.fromEntries(
        [
          'TABLE_NAME',
          'SOCIAL_PROVIDER',
          'SCRAPECREATORS_BASE_URL',
          'PROVIDER_TIMEOUT_MS',
          'CREDITS_HELP',
          'POWERTOOLS_SERVICE_NAME',
          'POWERTOOLS_METRICS_NAMESPACE',
          'POWERTOOLS_LOG_LEVEL',
        ].map((name) => [name, environment[name]!]),
      ),
      providerApiKey,
      retention,
      tracer: props.tracer ?? false,
    });

    // Not a route: the webhooks queue's event source invokes it. A queue and function of their
    // own: a slow receiver never holds the job worker. The functions that end a job send to it.
    this.webhooks = new Webhooks(this, 'Webhooks', {
      table: this.table,
      environment,
      retention,
      tracer: props.tracer ?? false,
    });
    this.webhooks.addSender(this.jobs.worker);
    this.webhooks.addSender(this.jobs.recovery);

    for (const route of props.routes ?? routes) {
      const fn = this.routeFunction(route, {
        environment,
        retention,
        secrets,
        apiKeySigningKey,
        jobs: this.jobs,
        webhooks: this.webhooks,
        tracer: props.tracer ?? false,
        extension: providerKeyExtension(props.secretsExtensionArn),
        identity,
      });
      this.functions.set(route.name, fn);
      const httpRoute = new HttpRoute(this, `${route.name}Route`, {
        httpApi: this.api,
        routeKey: route.path === '$default' ? HttpRouteKey.DEFAULT : HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${route.name}Integration`, fn),
      });
      Validations.of(httpRoute).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          route.path === '$default'
            ? 'The catch-all route answers 404 route_not_found to anyone: there is nothing behind it to protect.'
            : 'The function verifies the bearer JWT itself (issuer, audience, JWKS) so that a 401 has the documented error body, headers and order of checks; an API Gateway authorizer would answer with its own body.',
      });
    }

    // Not a route: EventBridge invokes it every minute. It needs the table and the telemetry
    // settings, nothing of the API's (no JWT, no provider).
    const sweeper = new ChargeSweeper(this, 'ChargeSweeper', {
      table: this.table,
      environment: Object.fromEntries(
        ['TABLE_NAME', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_LOG_LEVEL'].map((name) => [
          name,
          environment[name]!,
        ]),
      ),
      retention,
      tracer: props.tracer ?? false,
    });
    this.sweeper = sweeper.fn;

    // Not a route: the table stream's event source mapping invokes it. The table, telemetry, and
    // the webhooks queue (the alerts consumer queues the deliveries of the crossings it finds).
    this.tableStream = new TableStream(this, 'TableStream', {
      table: this.table,
      filters: STREAM_CONSUMERS.flatMap((consumer) => consumer.filters),
      environment: Object.fromEntries(
        ['TABLE_NAME', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_LOG_LEVEL'].map((name) => [
          name,
          environment[name]!,
        ]),
      ),
      retention,
      tracer: props.tracer ?? false,
    });
    this.webhooks.addSender(this.tableStream.fn);

    const functions = [
      ...this.functions.values(),
      sweeper.fn,
      this.jobs.worker,
      this.jobs.recovery,
      this.webhooks.delivery,
      this.tableStream.fn,
    ];
    const metrics = new ServiceMetrics(this, 'Metrics', {
      api: this.api,
      table: this.table,
      indexNames: tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
      functions,
      accessLogs,
    });
    const alarms = new Alarms(this, 'Alarms', { api: this.api, functions, metrics });
    sweeper.addAlarms(alarms);
    this.jobs.addAlarms(alarms);
    this.webhooks.addAlarms(alarms);
    this.tableStream.addAlarms(alarms);
    const { dashboard } = new ServiceDashboard(this, 'Dashboard', { api: this.api, metrics, alarms: alarms.alarms });

    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'ConsoleUrl', { value: `${this.api.apiEndpoint}/console`, description: 'The web console (docs/console.md)' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'For the admin CLI: --table' });
    new CfnOutput(this, 'ProviderApiKeySecretArn', { value: providerApiKey.secretArn, description: 'Put the ScrapeCreators API key here' });
    new CfnOutput(this, 'JobsQueueUrl', {
      value: this.jobs.queue.queueUrl,
      description: 'For the admin CLI: jobs recover|requeue --queue-url',
    });
    new CfnOutput(this, 'WebhooksQueueUrl', {
      value: this.webhooks.queue.queueUrl,
      description: 'For the admin CLI: jobs recover --webhooks-queue-url',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn, description: 'Subscribe on-call here' });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboardName, description: 'The CloudWatch dashboard of the service' });
    new CfnOutput(this, 'Region', { value: Aws.REGION, description: 'For the admin CLI and the AWS CLI: --region' });
    new CfnOutput(this, 'AcceptedIssuer', { value: jwt.issuer, description: 'The issuer whose tokens the API accepts' });
    if (identity) {
      new CfnOutput(this, 'UserPoolId', {
        value: identity.userPool.userPoolId,
        description: 'aws cognito-idp admin-create-user --user-pool-id',
      });
      new CfnOutput(this, 'UserPoolClientId', {
        value: identity.client.userPoolClientId,
        description: 'aws cognito-idp initiate-auth --client-id (and the aud / client_id of its tokens)',
      });
      new CfnOutput(this, 'HostedUiUrl', {
        value: identity.domain.baseUrl(),
        description: "The user pool's sign-in pages (the console's sign-in)",
      });
    }
  }

  /**
   * An existing issuer's settings as parameters (the default path). A deployment must accept some
   * token: CloudFormation refuses a stack with neither JwtAudience nor JwtClientIds.
   */
  private jwtParameters(): JwtSettings {
    const text = (id: string, description: string, extra: Partial<ConstructorParameters<typeof CfnParameter>[2]> = {}) =>
      new CfnParameter(this, id, { type: 'String', description, ...extra });
    const issuer = text('JwtIssuer', 'Issuer (iss) of the bearer JWTs, e.g. https://cognito-idp.<region>.amazonaws.com/<pool id>', {
      minLength: 1,
    });
    const audience = text(
      'JwtAudience',
      'Accepted aud values, comma-separated (Cognito ID tokens: the app client id); empty: none. Set this, JwtClientIds, or both',
      { default: '', allowedPattern: '^[^,\\s]*(,[^,\\s]+)*$', constraintDescription: 'must be comma-separated values without spaces' },
    );
    const clientIds = text(
      'JwtClientIds',
      'Accepted client_id values of access tokens without aud (Cognito access tokens: the app client id), comma-separated; empty: none',
      { default: '', allowedPattern: '^[^,\\s]*(,[^,\\s]+)*$', constraintDescription: 'must be comma-separated values without spaces' },
    );
    const jwksUri = text('JwtJwksUri', "HTTPS URL of the issuer's JWKS, e.g. <issuer>/.well-known/jwks.json", {
      allowedPattern: '^https://.+',
      constraintDescription: 'must be an https:// URL',
    });
    this.acceptSomeToken(audience, clientIds);
    return {
      issuer: issuer.valueAsString,
      audience: audience.valueAsString,
      clientIds: clientIds.valueAsString,
      jwksUri: jwksUri.valueAsString,
    };
  }

  private acceptSomeToken(audience: CfnParameter, clientIds: CfnParameter): void {
    new CfnRule(this, 'JwtAudienceOrClientIds', {
      assertions: [
        {
          assert: Fn.conditionNot(
            Fn.conditionAnd(Fn.conditionEquals(audience.valueAsString, ''), Fn.conditionEquals(clientIds.valueAsString, '')),
          ),
          assertDescription: 'Set JwtAudience (ID tokens), JwtClientIds (access tokens), or both',
        },
      ],
    });
  }

  /**
   * API Gateway's CORS configuration, only when origins are named: it then answers preflights
   * itself and adds the headers to every response, with the policy the handlers use locally.
   */
  private corsFor(allowedOrigins: CfnParameter): void {
    const enabled = new CfnCondition(this, 'CorsEnabled', {
      expression: Fn.conditionNot(Fn.conditionEquals(allowedOrigins.valueAsString, '')),
    });
    (this.api.node.defaultChild as CfnApi).corsConfiguration = Fn.conditionIf(
      enabled.logicalId,
      {
        AllowOrigins: Fn.split(',', allowedOrigins.valueAsString),
        AllowMethods: [...CORS_POLICY.allowMethods],
        AllowHeaders: [...CORS_POLICY.allowHeaders],
        ExposeHeaders: [...CORS_POLICY.exposeHeaders],
        MaxAge: CORS_POLICY.maxAgeSeconds,
      },
      Aws.NO_VALUE,
    );
  }

  private routeFunction(
    route: Route,
    options: {
      environment: Record<string, string>;
      retention: RetentionDays;
      secrets: Record<RouteSecret, Secret>;
      apiKeySigningKey: Key;
      jobs: Jobs;
      webhooks: Webhooks;
      tracer: boolean;
      extension: ParamsAndSecretsLayerVersion;
      identity: ServiceUserPool | undefined;
    },
  ): NodejsFunction {
    const { role, logGroup } = functionRole(this, route.name, options.retention);
    const tableActions = tableActionsOf(route);
    if (tableActions.length > 0) {
      role.addToPrincipalPolicy(new PolicyStatement({ actions: tableActions, resources: [this.table.tableArn] }));
    }
    const indexActions = tableActions.filter((action) => action === 'dynamodb:Query');
    if (route.indexes?.length && indexActions.length > 0) {
      role.addToPrincipalPolicy(
        new PolicyStatement({ actions: indexActions, resources: route.indexes.map((index) => `${this.table.tableArn}/index/${index}`) }),
      );
    }
    const environment = { ...options.environment };
    if (route.signsApiKeys) {
      options.apiKeySigningKey.grant(role, 'kms:Sign', 'kms:GetPublicKey');
      environment.API_KEY_KMS_KEY_ID = options.apiKeySigningKey.keyArn;
    }
    if (route.sendsJobs) {
      options.jobs.grantSend(role);
      environment.JOBS_QUEUE_URL = options.jobs.queue.queueUrl;
    }
    if (route.hostedUi && options.identity) {
      environment.CONSOLE_HOSTED_UI_URL = options.identity.domain.baseUrl();
      environment.CONSOLE_CLIENT_ID = options.identity.client.userPoolClientId;
    }
    if (route.sendsWebhooks) {
      options.webhooks.grantSend(role);
      environment.WEBHOOKS_QUEUE_URL = options.webhooks.queue.queueUrl;
    }
    let paramsAndSecrets: ParamsAndSecretsLayerVersion | undefined;
    for (const name of route.secrets ?? []) {
      if (name === 'providerApiKey') {
        // Read at run time through the Parameters and Secrets extension (a layer: CDK maps each
        // region to AWS's published ARN of its arm64 build), which uses the function's role.
        options.secrets[name].grantRead(role);
        environment.SCRAPECREATORS_API_KEY_SECRET_ARN = options.secrets[name].secretArn;
        paramsAndSecrets = options.extension;
      } else {
        // A CloudFormation dynamic reference: resolved at deploy, never a value in the template.
        environment.CURSOR_SIGNING_KEY = options.secrets[name].secretValue.unsafeUnwrap();
      }
    }

    return bundledFunction(this, route.name, {
      description: `${routeKey(route)} (${route.entry})`,
      entry: route.entry,
      // API Gateway gives up at 30 s; a social run may wait PROVIDER_TIMEOUT_MS (at most
      // PROVIDER_TIMEOUT_MAX_MS) and still have time to write its refund.
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      role,
      logGroup,
      environment,
      tracer: options.tracer,
      ...(route.assets?.length ? { assets: route.assets } : {}),
      ...(paramsAndSecrets ? { paramsAndSecrets } : {}),
    });
  }

  private parameters() {
    const text = (id: string, description: string, extra: Partial<ConstructorParameters<typeof CfnParameter>[2]> = {}) =>
      new CfnParameter(this, id, { type: 'String', description, ...extra });
    const number = (id: string, description: string, defaultValue: number, minValue: number, maxValue?: number) =>
      new CfnParameter(this, id, {
        type: 'Number',
        description,
        default: defaultValue,
        minValue,
        ...(maxValue === undefined ? {} : { maxValue }),
      });
    return {
      creditsHelp: text('CreditsHelp', 'What a 402 for exhausted credits tells the caller to do: a sentence, a URL or an address', {
        default: DEFAULTS.creditsHelp,
        minLength: 1,
        maxLength: 300,
      }),
      corsAllowedOrigins: text(
        'CorsAllowedOrigins',
        'Browser origins allowed to call the API (CORS), comma-separated, e.g. https://app.example.com; * for any; empty: CORS off',
        {
          default: '',
          allowedPattern: '^(\\*|https?://[^,\\s/]+(,https?://[^,\\s/]+)*)?$',
          constraintDescription: 'must be empty, *, or comma-separated origins such as https://app.example.com (no spaces, no path)',
        },
      ),
      socialProvider: text(
        'SocialProvider',
        'Social operations provider: http (ScrapeCreators) or sample (generated data, for test stacks)',
        {
          default: 'http',
          allowedValues: ['http', 'sample'],
        },
      ),
      scrapeCreatorsBaseUrl: text('ScrapeCreatorsBaseUrl', 'Base URL of the ScrapeCreators API', {
        default: 'https://api.scrapecreators.com',
        allowedPattern: '^https://.+',
        constraintDescription: 'must be an https:// URL',
      }),
      providerTimeoutMs: number(
        'ProviderTimeoutMs',
        `Timeout of one upstream provider call, in ms (below the ${FUNCTION_TIMEOUT_SECONDS} s function timeout)`,
        DEFAULTS.providerTimeoutMs,
        100,
        PROVIDER_TIMEOUT_MAX_MS,
      ),
      rateLimitRequests: number('RateLimitRequests', 'Requests per caller per window', DEFAULTS.rateLimitRequests, 1),
      rateLimitWindowSeconds: number(
        'RateLimitWindowSeconds',
        'Length of the per-caller rate-limit window, in seconds',
        DEFAULTS.rateLimitWindowSeconds,
        1,
      ),
      restoreWindowDays: number(
        'RestoreWindowDays',
        'Days a deleted resource can be restored before it is purged',
        DEFAULTS.restoreWindowDays,
        1,
      ),
      throttleRateLimit: number('ApiThrottleRateLimit', 'Stage-wide steady-state limit, requests per second (all callers)', 200, 1),
      throttleBurstLimit: number('ApiThrottleBurstLimit', 'Stage-wide burst limit, requests (all callers)', 400, 1),
      logRetentionDays: new CfnParameter(this, 'LogRetentionDays', {
        type: 'Number',
        description: 'Retention of the function and access logs, in days',
        default: 90,
        allowedValues: RETENTION_DAYS.map(String),
      }),
      // Not WARN or ERROR: Lambda filters stdout by level, and the EMF metric records (which have
      // no level) count as INFO, so a higher level would silently drop every custom metric.
      logLevel: text('LogLevel', 'Application log level of the functions (above INFO would drop the EMF metrics)', {
        default: 'INFO',
        allowedValues: ['DEBUG', 'INFO'],
      }),
    };
  }
}

/**
 * One JSON object per request. No headers (they carry the bearer token) and no query string;
 * the request id is the `x-request-id` clients see and the `request_id` of the function's logs.
 */
function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: '$context.requestId',
      requestTime: '$context.requestTime',
      ip: '$context.identity.sourceIp',
      userAgent: '$context.identity.userAgent',
      httpMethod: '$context.httpMethod',
      path: '$context.path',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLength: '$context.responseLength',
      responseLatency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
      integrationStatus: '$context.integrationStatus',
      integrationError: '$context.integrationErrorMessage',
      error: '$context.error.message',
    }),
  );
}
