import { Aws, CfnCondition, CfnOutput, CfnParameter, CfnRule, Fn, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type CfnApi, HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { ParamsAndSecretsLayerVersion, ParamsAndSecretsLogLevel, ParamsAndSecretsVersions } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { STREAM_CONSUMERS } from '../functions/table-stream.ts';
import { DEFAULTS, METRICS_NAMESPACE, SERVICE_NAME } from '../lib/config.ts';
import { table as tableDefinition } from '../lib/db/table.ts';
import { defined } from '../lib/defined.ts';
import { CORS_POLICY } from '../lib/http/cors.ts';
import { FUNCTION_TIMEOUT_SECONDS, type Route, type RouteSecret, routes } from '../lib/routes.ts';
import { PROVIDERS, VENDOR_PROVIDERS } from '../lib/social/providers/index.ts';
import { Alarms, type FunctionGroup } from './alarms.ts';
import { ServiceDashboard } from './dashboard.ts';
import { GrantExpiry } from './grant-expiry.ts';
import { type IdentityOptions, type JwtSettings, ServiceUserPool } from './identity.ts';
import { Jobs } from './jobs.ts';
import { ServiceMetrics } from './metrics.ts';
import { PaymentsReconciler } from './reconciler.ts';
import { apiRoute, RouteStack, routesByStack } from './route-stack.ts';
import { ChargeSweeper } from './sweeper.ts';
import { TableStream } from './table-stream.ts';
import { vendorBaseUrls, vendorKeys } from './vendor-keys.ts';
import { Webhooks } from './webhooks.ts';

export { FUNCTION_TIMEOUT_SECONDS } from '../lib/routes.ts';
export { copyAssetsCommands } from './function.ts';

/** The longest provider call the stack accepts: leaves the run 5 s for its reads, charge and refund. */
export const PROVIDER_TIMEOUT_MAX_MS = 20_000;

/**
 * The AWS Parameters and Secrets Lambda Extension, for the functions that read a secret at run
 * time (the provider key, lib/social/providers/secret.ts; the OAuth sealing key): the value is
 * kept 300 s (its default and maximum), so a value put in Secrets Manager reaches new instances
 * within 5 minutes; only warnings are logged. By default CDK maps each region to AWS's published
 * ARN of the arm64 layer; `layerArn` names one (a region, or a newer version, that CDK's map lacks).
 */
function providerKeyExtension(layerArn: string | undefined): ParamsAndSecretsLayerVersion {
  const options = { logLevel: ParamsAndSecretsLogLevel.WARN };
  return layerArn
    ? ParamsAndSecretsLayerVersion.fromVersionArn(layerArn, options)
    : ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, options);
}

/** The named settings of the functions' environment, each one there. */
const settingsOf = (environment: Record<string, string>, names: readonly string[]): Record<string, string> =>
  Object.fromEntries(names.map((name) => [name, defined(environment[name], `the setting ${name}`)]));

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

/** SocialProvider's words: the registry's provider names. */
const PROVIDER_NAMES = PROVIDERS.map((provider) => provider.name).join('|');

/**
 * The Workspace Service: the table, an HTTP API in front, the secrets, keys, queues, background
 * functions, metrics and alarms in this stack; one function per route of the route table, in a
 * nested stack per domain (infra/route-stack.ts), deployed with it as one unit. Environment-agnostic
 * (no lookups): `cdk synth` needs no credentials and no network. Every decision is explained in
 * docs/deployment.md.
 */
export class WorkspaceServiceStack extends Stack {
  readonly api: HttpApi;
  readonly table: Table;
  /** The route functions by route name, whichever nested stack holds them. */
  readonly functions = new Map<string, NodejsFunction>();
  /** One nested stack per domain (the routes' `tag`). */
  readonly routeStacks: RouteStack[] = [];
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

    // Each data vendor's key, in a secret of its own, and its base URL (infra/vendor-keys.ts).
    const vendors = vendorKeys(this);
    // Paging cursors only, and never a credential: a forged cursor could only position a listing
    // inside what its caller may already read (every page checks access again), so the key may be
    // resolved into the environment at deploy time. Rotating it (a new value, then a deploy)
    // restarts the walks in flight, and nothing else; so does losing it (docs/deployment.md).
    const cursorSigningKey = new Secret(this, 'CursorSigningKey', {
      description:
        'HMAC key of paging cursors only; seals no credential (generated; rotate by putting a new value and redeploying: walks in flight restart)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(cursorSigningKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'It signs paging cursors only and seals no credential: a forged cursor can only position a listing inside what the caller may already read. A new value, put by hand, takes effect at the next deploy and merely restarts walks in flight.',
    });
    // Seals who signed in: the OAuth consent ticket and the hosted sign-in state. Read at run time
    // (never in the environment) as {"kid","key"}, with the keys still accepted under `previous`.
    const oauthSealingKey = sealingKeySecret(
      this,
      'OAuthSealingKey',
      'Seals the OAuth consent ticket and the hosted sign-in state (who signed in): {"kid","key","previous"} JSON, read at run time (rotation: docs/deployment.md)',
      'It seals the OAuth consent ticket and the hosted sign-in state, i.e. who signed in. It is rotated by hand: putting {"kid":"k2","key":"…","previous":[{"kid":"k1","key":"…"}]} keeps the tickets in flight valid for their 10 minutes. No Lambda rotation, because the previous key must be kept for those 10 minutes, and a rotation function would replace it.',
    );
    // Seals MCP consent (confirmation tokens and requestStates: lib/mcp/consent-token.ts), apart from
    // the OAuth key (habit 19): whoever holds it can let an agent spend above its owner's threshold.
    const mcpConsentKey = sealingKeySecret(
      this,
      'McpConsentKey',
      'Seals MCP consent (the confirmation tokens of calls above confirm_above): {"kid","key","previous"} JSON, read at run time (rotation: docs/deployment.md)',
      'It seals MCP consent tokens, each valid 10 minutes and single-use. Rotated by hand like the OAuth sealing key: {"kid":"k2","key":"…","previous":[{"kid":"k1","key":"…"}]} keeps tokens in flight valid; a rotation function would drop the previous key.',
    );
    // Stripe's secret API key: it makes checkouts and refunds. Created with a random placeholder, like
    // the provider key: until an operator puts an `sk_…` key in it, buying credits answers 403
    // `operation_not_enabled` (docs/funding.md, "Deployed").
    const stripeSecretKey = new Secret(this, 'StripeSecretKey', {
      description: "Stripe's secret API key, which makes checkouts and refunds (set the value after the first deploy; docs/funding.md)",
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(stripeSecretKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "A payment provider's API key: no Lambda can rotate it; it is rolled in Stripe's dashboard and put by hand (docs/deployment.md).",
    });
    // The webhook's signing secrets: apart from the API key (habit 19), since they only tell Stripe's
    // events from forgeries. Created with a random placeholder holding no `whsec_…`: until an
    // operator puts the endpoint's signing secret in it, the webhook answers 404.
    const stripeWebhookSecret = new Secret(this, 'StripeWebhookSecret', {
      description:
        'The Stripe webhook endpoint\'s signing secret(s): "whsec_…", or ["whsec_new","whsec_old"] during a rotation (set after the first deploy; docs/deployment.md)',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(stripeWebhookSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "A payment provider's webhook signing secret: no Lambda can rotate it; it is rolled in Stripe's dashboard, both secrets kept in it for the rotation's overlap (docs/deployment.md).",
    });
    const secrets: Record<Exclude<RouteSecret, 'providerKeys'>, Secret> = {
      cursorSigningKey,
      oauthSealingKey,
      mcpConsentKey,
      stripeSecretKey,
      stripeWebhookSecret,
    };

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
      ...vendorBaseUrls(vendors),
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

    // What a function that only works on the table needs (the sweeper, the grant expiry, the
    // reconciler, the stream's function): nothing of the API's (no JWT, no provider).
    const tableAndTelemetry = settingsOf(environment, [
      'TABLE_NAME',
      'POWERTOOLS_SERVICE_NAME',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_LOG_LEVEL',
    ]);

    // Not routes: the jobs queue's event source invokes the worker, which runs items as a run does;
    // EventBridge invokes the recovery of stalled jobs every minute.
    this.jobs = new Jobs(this, 'Jobs', {
      table: this.table,
      // What a run reads: the table, the provider, the 402's advice, telemetry; no JWT (no token comes with a message).
      environment: settingsOf(environment, [
        'TABLE_NAME',
        'SOCIAL_PROVIDER',
        ...Object.keys(vendorBaseUrls(vendors)),
        'PROVIDER_TIMEOUT_MS',
        'CREDITS_HELP',
        'POWERTOOLS_SERVICE_NAME',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_LOG_LEVEL',
      ]),
      vendors,
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

    // A nested stack per domain keeps each stack under CloudFormation's 500 resources with room
    // for the next waves of routes (docs/deployment.md): 6 resources per route there, its API
    // route here (apiRoute says why).
    const deps = {
      table: this.table,
      environment,
      retention,
      secrets,
      vendors,
      apiKeySigningKey,
      jobs: this.jobs,
      webhooks: this.webhooks,
      tracer: props.tracer ?? false,
      extension: providerKeyExtension(props.secretsExtensionArn),
      identity,
      invitationFromAddress: param.invitationFromAddress.valueAsString,
    };
    for (const [id, domainRoutes] of routesByStack(props.routes ?? routes)) {
      const routeStack = new RouteStack(this, id, { tag: domainRoutes[0]!.tag, routes: domainRoutes, api: this.api, deps });
      this.routeStacks.push(routeStack);
      for (const route of domainRoutes) {
        this.functions.set(route.name, routeStack.functions.get(route.name)!);
        apiRoute(this, this.api, route, routeStack.integrations.get(route.name)!);
      }
    }

    // Not a route: EventBridge invokes it every minute. It needs the table and the telemetry
    // settings, nothing of the API's (no JWT, no provider).
    const sweeper = new ChargeSweeper(this, 'ChargeSweeper', {
      table: this.table,
      environment: tableAndTelemetry,
      retention,
      tracer: props.tracer ?? false,
    });
    this.sweeper = sweeper.fn;

    // Not a route either: the grant expiry, every minute, with the sweeper's settings.
    const grantExpiry = new GrantExpiry(this, 'GrantExpiry', {
      table: this.table,
      environment: tableAndTelemetry,
      retention,
      tracer: props.tracer ?? false,
    });

    // Not a route: EventBridge invokes it every minute. The table, telemetry and Stripe's key.
    const reconciler = new PaymentsReconciler(this, 'PaymentsReconciler', {
      table: this.table,
      environment: tableAndTelemetry,
      retention,
      tracer: props.tracer ?? false,
      stripeSecretKey,
      extension: deps.extension,
    });

    // Not a route: the table stream's event source mapping invokes it. The table, telemetry, and
    // the webhooks queue (the alerts consumer queues the deliveries of the crossings it finds).
    this.tableStream = new TableStream(this, 'TableStream', {
      table: this.table,
      // Each pattern once: the alerts and auto-recharge both watch the balances and the auto-recharge items.
      filters: [...new Map(STREAM_CONSUMERS.flatMap((consumer) => consumer.filters).map((f) => [JSON.stringify(f), f])).values()],
      environment: tableAndTelemetry,
      retention,
      tracer: props.tracer ?? false,
      // The auto-recharge consumer asks Stripe for a recharge's payment within seconds of its trigger.
      stripeSecretKey,
      extension: deps.extension,
    });
    this.webhooks.addSender(this.tableStream.fn);

    const background = [
      sweeper.fn,
      grantExpiry.fn,
      reconciler.fn,
      this.jobs.worker,
      this.jobs.recovery,
      this.webhooks.delivery,
      this.tableStream.fn,
    ];
    const functions = [...this.functions.values(), ...background];
    const metrics = new ServiceMetrics(this, 'Metrics', {
      api: this.api,
      table: this.table,
      indexNames: tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
      functions,
      accessLogs,
    });
    const functionGroups: FunctionGroup[] = [
      ...this.routeStacks.map((routeStack) => ({
        id: routeStack.node.id,
        title: `${routeStack.tag} routes`,
        functions: [...routeStack.functions.values()],
      })),
      { id: 'BackgroundFunctions', title: 'background functions', functions: background },
    ];
    const alarms = new Alarms(this, 'Alarms', { api: this.api, functionGroups, metrics });
    sweeper.addAlarms(alarms);
    this.jobs.addAlarms(alarms);
    this.webhooks.addAlarms(alarms);
    this.tableStream.addAlarms(alarms);
    const { dashboard } = new ServiceDashboard(this, 'Dashboard', { api: this.api, metrics, alarms: alarms.alarms, functionGroups });

    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'ConsoleUrl', { value: `${this.api.apiEndpoint}/console`, description: 'The web console (docs/console.md)' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'For the admin CLI: --table' });
    new CfnOutput(this, 'OAuthSealingKeySecretArn', {
      value: oauthSealingKey.secretArn,
      description: 'Rotate the OAuth sealing key here, keeping the old one under previous (docs/deployment.md)',
    });
    new CfnOutput(this, 'McpConsentKeySecretArn', {
      value: mcpConsentKey.secretArn,
      description: 'Rotate the MCP consent key here, keeping the old one under previous (docs/deployment.md)',
    });
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
      invitationFromAddress: text(
        'InvitationFromAddress',
        "The address invitations are emailed from (Amazon SES SendEmail), an identity verified in SES in this stack's region; empty: invitations are saved but their email answers 500 upstream_failed (docs/invitations.md)",
        {
          default: '',
          maxLength: 254,
          allowedPattern: '^([^@\\s]+@[^@\\s]+\\.[^@\\s]+)?$',
          constraintDescription: 'must be empty or one email address',
        },
      ),
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
        `Social operations providers, comma-separated, in failover order, of: ${PROVIDERS.map((provider) => `${provider.name} (${provider.sampleData ? 'generated data, for test stacks' : provider.displayName})`).join(', ')}. All 52 operations: ${VENDOR_PROVIDERS.map((provider) => provider.name).join(',')}`,
        {
          default: 'http',
          // Each name once is checked by every function at its cold start (a 500 naming the repeat).
          allowedPattern: `^(${PROVIDER_NAMES})(,(${PROVIDER_NAMES}))*$`,
          constraintDescription: `must be provider names, comma-separated, of: ${PROVIDERS.map((provider) => provider.name).join(', ')}`,
        },
      ),
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
/**
 * A sealing key of one purpose (habit 19), as {"kid","key"} JSON generated at creation and kept
 * when the stack is deleted. Rotated by hand with `previous`, so no Lambda rotation: the
 * acknowledgement says why for this key.
 */
function sealingKeySecret(scope: Construct, id: string, description: string, whyNoRotation: string): Secret {
  const secret = new Secret(scope, id, {
    description,
    generateSecretString: {
      secretStringTemplate: JSON.stringify({ kid: 'k1' }),
      generateStringKey: 'key',
      passwordLength: 64,
      excludePunctuation: true,
    },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  Validations.of(secret).acknowledge({ id: 'AwsSolutions-SMG4', reason: whyNoRotation });
  return secret;
}

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
