/**
 * `npx cdk synth` / `npx cdk deploy`: the Workspace Service stack, checked by cdk-nag's
 * AwsSolutions pack on every synth (an unsuppressed finding fails it).
 * Context: `-c stackName=…` (default WorkspaceService), `-c tracer=true` to bundle the
 * Powertools Tracer, `-c userPool=true` to create a Cognito user pool for the API instead of
 * naming an existing issuer (`-c selfSignUp=true` lets anyone sign up, `-c userPoolDomain=…` names its
 * hosted UI's domain prefix), `-c secretsExtensionArn=…`
 * for the Parameters and Secrets extension's layer where CDK's map of it lacks the region. Runtime settings are
 * CloudFormation parameters (docs/deployment.md).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildConsole } from '../lib/console/build.ts';
import { WorkspaceServiceStack } from './stack.ts';

// The console's files from its sources as they are now: the console routes copy them beside their bundles.
await buildConsole();

const app = new App();
const flag = (value: unknown): boolean => value === true || value === 'true';
new WorkspaceServiceStack(app, String(app.node.tryGetContext('stackName') ?? 'WorkspaceService'), {
  description: 'Workspace Service: HTTP API, Lambda functions, DynamoDB table, alarms',
  tracer: flag(app.node.tryGetContext('tracer')),
  userPool: flag(app.node.tryGetContext('userPool')) && {
    selfSignUp: flag(app.node.tryGetContext('selfSignUp')),
    ...(app.node.tryGetContext('userPoolDomain') ? { domainPrefix: String(app.node.tryGetContext('userPoolDomain')) } : {}),
  },
  ...(app.node.tryGetContext('secretsExtensionArn') ? { secretsExtensionArn: String(app.node.tryGetContext('secretsExtensionArn')) } : {}),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
