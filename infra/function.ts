/**
 * One Lambda function of the stack, built the same way for every route and for the charge
 * sweeper: its own role and log group, the shared bundling (infra/bundling.ts), ARM, JSON logs,
 * active tracing. Decisions in docs/deployment.md.
 */
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  type ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  type ParamsAndSecretsLayerVersion,
  Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { AUDIT_PARTITION_PREFIX } from '../lib/db/keys.ts';
import { assetPath } from '../lib/openapi/read-asset.ts';
import { aliases, bundling, defines } from './bundling.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Shell commands that copy a route's `assets` beside its bundle (lib/openapi/read-asset.ts
 * reads them there), paths relative to the project root so that they hold in a Docker build too.
 */
export function copyAssetsCommands(assets: readonly string[], inputDir: string, outputDir: string): string[] {
  return assets.map((asset) => `cp "${inputDir}/${relative(ROOT, assetPath(asset))}" "${outputDir}/${basename(asset)}"`);
}

/**
 * The audit log is never changed (docs/audit.md): whatever a function is granted on the table, it
 * may not update or delete an item of an audit partition (`AUDIT#<org>`). An explicit Deny, which
 * no Allow overrides, on the items whose partition key starts so; the log's puts (conditional on a
 * new item) and reads stay allowed.
 */
export const denyAuditChanges = (table: ITable): PolicyStatement =>
  new PolicyStatement({
    effect: Effect.DENY,
    actions: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    resources: [table.tableArn],
    conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [`${AUDIT_PARTITION_PREFIX}*`] } },
  });

/**
 * An explicit role per function instead of the default one with the managed
 * AWSLambdaBasicExecutionRole: it may write its own log group and nothing else until the caller
 * grants exactly what the function does; and never change the audit log (denyAuditChanges).
 */
export function functionRole(scope: Construct, id: string, retention: RetentionDays, table: ITable): { role: Role; logGroup: LogGroup } {
  const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  const logGroup = new LogGroup(scope, `${id}Logs`, { retention });
  logGroup.grantWrite(role);
  role.addToPrincipalPolicy(denyAuditChanges(table));
  return { role, logGroup };
}

export interface BundledFunctionProps {
  description: string;
  /** Module (from the repository root) exporting `handler`. */
  entry: string;
  timeout: Duration;
  role: Role;
  logGroup: LogGroup;
  environment: Record<string, string>;
  tracer: boolean;
  /** Asynchronous invocations (a schedule): how often Lambda retries a failed one. */
  retryAttempts?: number;
  /** Files the handler reads at run time, copied beside its bundle (lib/routes.ts `assets`). */
  assets?: readonly string[];
  /** The Parameters and Secrets Lambda Extension, for a function that reads a secret at run time. */
  paramsAndSecrets?: ParamsAndSecretsLayerVersion;
}

export function bundledFunction(scope: Construct, id: string, props: BundledFunctionProps): NodejsFunction {
  const fn = new NodejsFunction(scope, id, {
    description: props.description,
    entry: join(ROOT, props.entry),
    handler: 'handler',
    projectRoot: ROOT,
    depsLockFilePath: join(ROOT, 'package-lock.json'),
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.ARM_64,
    // CPU scales with memory: 1 GB keeps the cold start (module load) short.
    memorySize: 1024,
    timeout: props.timeout,
    role: props.role,
    logGroup: props.logGroup,
    loggingFormat: LoggingFormat.JSON,
    applicationLogLevelV2: props.environment.POWERTOOLS_LOG_LEVEL as ApplicationLogLevel,
    // INFO keeps Lambda's `platform.report` line (duration, memory used, init duration) per
    // invocation; WARN would leave only failures.
    systemLogLevelV2: SystemLogLevel.INFO,
    tracing: Tracing.ACTIVE,
    environment: props.environment,
    ...(props.retryAttempts === undefined ? {} : { retryAttempts: props.retryAttempts }),
    ...(props.paramsAndSecrets ? { paramsAndSecrets: props.paramsAndSecrets } : {}),
    bundling: {
      target: bundling.target,
      format: OutputFormat.ESM,
      minify: bundling.minify,
      sourceMap: bundling.sourceMap,
      sourcesContent: bundling.sourcesContent,
      mainFields: [...bundling.mainFields],
      externalModules: [...bundling.external],
      banner: bundling.banner,
      define: defines(props.tracer),
      esbuildArgs: { '--alias': Object.entries(aliases).map(([name, stub]) => `${name}=${stub}`) },
      logLevel: LogLevel.WARNING,
      ...(props.assets?.length
        ? {
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (inputDir: string, outputDir: string) => copyAssetsCommands(props.assets ?? [], inputDir, outputDir),
            },
          }
        : {}),
    },
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'nodejs22.x is the runtime the service is built (esbuild target node22) and tested for; a newer runtime is a deliberate upgrade.',
  });
  Validations.of(props.role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'X-Ray (active tracing) has no resource-level permissions: PutTraceSegments and PutTelemetryRecords need "*".',
  });
  return fn;
}
